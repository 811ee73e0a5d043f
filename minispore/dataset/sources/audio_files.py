"""Audio datasets in their published layouts, read with Python's `wave` module (PCM WAV):
YesNo, SpeechCommands, LJSpeech, GTZAN, CMU Arctic and LibriTTS; TED-LIUM's NIST SPHERE
(.sph) files are read by `read_sph` (uncompressed PCM only).

A waveform is float32 in [-1, 1) (8-bit PCM is unsigned, centred at 128; 16/24/32-bit signed,
divided by 2**(bits-1)); a mono file gives a 1-D vector of samples, a multi-channel one
(channels, samples). Files are listed on construction and decoded lazily, row by row.
"""
import csv
import os
import wave
from typing import Any, Dict, List, Optional, Set, Tuple

import numpy as np

from .base import MappableSource
from .vision_files import _check_dir

__all__ = ["YesNoDataset", "SpeechCommandsDataset", "LJSpeechDataset", "GTZANDataset",
           "CMUArcticDataset", "LibriTTSDataset", "TedliumDataset", "read_wav", "read_sph"]


def read_wav(path: str) -> Tuple[np.ndarray, int]:
    """The float32 waveform and sample rate of a PCM WAV file.

        >>> waveform, rate = read_wav("yes_no/0_1_0_0_1_0_1_1.wav")    # doctest: +SKIP
    """
    try:
        with wave.open(path, "rb") as f:
            channels, width, rate = f.getnchannels(), f.getsampwidth(), f.getframerate()
            frames = f.readframes(f.getnframes())
    except (wave.Error, EOFError) as error:
        raise RuntimeError(f"{path}: not a PCM WAV file ({error})") from None
    if width == 1:
        samples = (np.frombuffer(frames, np.uint8).astype(np.float32) - 128) / 128
    elif width == 3:
        raw = np.frombuffer(frames, np.uint8).reshape(-1, 3)
        ints = (raw[:, 0].astype(np.int32) | (raw[:, 1].astype(np.int32) << 8)
                | (raw[:, 2].astype(np.int8).astype(np.int32) << 16))
        samples = ints.astype(np.float32) / 2 ** 23
    else:
        dtype = {2: "<i2", 4: "<i4"}[width]
        samples = np.frombuffer(frames, dtype).astype(np.float32) / 2 ** (8 * width - 1)
    samples = samples.reshape(-1, channels).T
    return (samples[0] if channels == 1 else samples).astype(np.float32), rate


class _WavSource(MappableSource):
    """Rows of a WAV file's waveform and sample rate, followed by the row's fields."""

    _RATE_DTYPE: Any = np.int32

    def __init__(self, api: str, columns: List[str], num_samples: Optional[int],
                 num_parallel_workers: Optional[int], shuffle: Optional[bool], sampler: Any,
                 num_shards: Optional[int], shard_id: Optional[int]) -> None:
        super().__init__(api, columns, num_samples, num_parallel_workers, shuffle, sampler,
                         num_shards, shard_id)
        self._wavs: List[str] = []
        self._fields: List[Tuple[Any, ...]] = []

    def _row_count(self) -> int:
        return len(self._wavs)

    def _read(self, index: int) -> Tuple[Any, ...]:
        waveform, rate = read_wav(self._wavs[index])
        return (waveform, self._RATE_DTYPE(rate), *self._fields[index])


def _usage(usage: Optional[str], allowed: Tuple[str, ...], api: str) -> str:
    usage = "all" if usage is None else usage
    if usage not in allowed:
        raise ValueError(f"{api}: usage must be one of {allowed} or None, got {usage!r}")
    return usage


class YesNoDataset(_WavSource):
    """YesNo: ``dataset_dir/*.wav`` named by their eight words, e.g. ``0_1_0_0_1_0_1_1.wav``
    (0 no, 1 yes). Columns ``waveform`` float32, ``sample_rate`` int32 and ``labels``
    int32 (8,).

    Example:
        >>> data = ds.YesNoDataset("/data/waves_yesno", shuffle=False)    # doctest: +SKIP
    """

    def __init__(self, dataset_dir: str, num_samples: Optional[int] = None,
                 num_parallel_workers: Optional[int] = None, shuffle: Optional[bool] = None,
                 sampler: Any = None, num_shards: Optional[int] = None,
                 shard_id: Optional[int] = None, cache: Any = None) -> None:
        api = "YesNoDataset"
        super().__init__(api, ["waveform", "sample_rate", "labels"], num_samples,
                         num_parallel_workers, shuffle, sampler, num_shards, shard_id)
        folder = _check_dir(dataset_dir, api)
        for name in sorted(os.listdir(folder)):
            if not name.endswith(".wav"):
                continue
            try:
                labels = np.asarray([int(w) for w in name[:-4].split("_")], np.int32)
            except ValueError:
                raise RuntimeError(f"{api}: {name} is not named by its words (like "
                                   f"0_1_0_0_1_0_1_1.wav)") from None
            self._wavs.append(os.path.join(folder, name))
            self._fields.append((labels,))


class SpeechCommandsDataset(_WavSource):
    """Speech Commands: ``dataset_dir/<word>/<speaker>_nohash_<n>.wav`` with
    ``validation_list.txt`` and ``testing_list.txt`` naming the valid and test files
    (``_background_noise_`` is skipped).

    Columns ``waveform`` float32, ``sample_rate`` int32, ``label`` str, ``speaker_id`` str
    and ``utterance_number`` int32. `usage` "train" (files in neither list), "valid", "test"
    or "all"/None.

    Example:
        >>> data = ds.SpeechCommandsDataset("/data/speech_commands", usage="test")  # doctest: +SKIP
    """

    def __init__(self, dataset_dir: str, usage: Optional[str] = None,
                 num_samples: Optional[int] = None, num_parallel_workers: Optional[int] = None,
                 shuffle: Optional[bool] = None, sampler: Any = None,
                 num_shards: Optional[int] = None, shard_id: Optional[int] = None,
                 cache: Any = None) -> None:
        api = "SpeechCommandsDataset"
        super().__init__(api, ["waveform", "sample_rate", "label", "speaker_id",
                               "utterance_number"], num_samples, num_parallel_workers, shuffle,
                         sampler, num_shards, shard_id)
        folder = _check_dir(dataset_dir, api)
        usage = _usage(usage, ("train", "valid", "test", "all"), api)
        lists: Dict[str, Set[str]] = {}
        for part, name in (("valid", "validation_list.txt"), ("test", "testing_list.txt")):
            path = os.path.join(folder, name)
            if usage != "all" and not os.path.isfile(path):
                raise ValueError(f"{api}: usage={usage!r} needs {name} in {folder}")
            lists[part] = set()
            if os.path.isfile(path):
                with open(path, encoding="utf-8") as f:
                    lists[part] = {line.strip().replace("\\", "/") for line in f if line.strip()}
        for word in sorted(os.listdir(folder)):
            if word.startswith("_") or not os.path.isdir(os.path.join(folder, word)):
                continue
            for name in sorted(os.listdir(os.path.join(folder, word))):
                if not name.endswith(".wav"):
                    continue
                relative = f"{word}/{name}"
                part = "valid" if relative in lists["valid"] else (
                    "test" if relative in lists["test"] else "train")
                if usage not in ("all", part):
                    continue
                speaker, _, number = name[:-4].partition("_nohash_")
                self._wavs.append(os.path.join(folder, word, name))
                self._fields.append((np.array(word), np.array(speaker),
                                     np.int32(int(number) if number.isdigit() else 0)))


class LJSpeechDataset(_WavSource):
    """LJ Speech: ``metadata.csv`` (``id|transcription|normalized transcription``) and
    ``wavs/<id>.wav`` in `dataset_dir`. Columns ``waveform`` float32, ``sample_rate`` int32,
    ``transcription`` and ``normalized_transcription`` (str).

    Example:
        >>> data = ds.LJSpeechDataset("/data/LJSpeech-1.1", num_samples=8)    # doctest: +SKIP
    """

    def __init__(self, dataset_dir: str, num_samples: Optional[int] = None,
                 num_parallel_workers: Optional[int] = None, shuffle: Optional[bool] = None,
                 sampler: Any = None, num_shards: Optional[int] = None,
                 shard_id: Optional[int] = None, cache: Any = None) -> None:
        api = "LJSpeechDataset"
        super().__init__(api, ["waveform", "sample_rate", "transcription",
                               "normalized_transcription"], num_samples, num_parallel_workers,
                         shuffle, sampler, num_shards, shard_id)
        folder = _check_dir(dataset_dir, api)
        metadata = os.path.join(folder, "metadata.csv")
        if not os.path.isfile(metadata):
            raise ValueError(f"{api}: {folder} has no file metadata.csv")
        with open(metadata, encoding="utf-8", newline="") as f:
            for number, fields in enumerate(csv.reader(f, delimiter="|",
                                                       quoting=csv.QUOTE_NONE), 1):
                if not fields:
                    continue
                if len(fields) != 3:
                    raise RuntimeError(f"{api}: {metadata}:{number} has {len(fields)} field(s), "
                                       f"expected 3 (id|transcription|normalized)")
                self._wavs.append(os.path.join(folder, "wavs", fields[0] + ".wav"))
                self._fields.append((np.array(fields[1]), np.array(fields[2])))


class GTZANDataset(_WavSource):
    """GTZAN genres: ``dataset_dir/<genre>/<genre>.000NN.wav``. Columns ``waveform``
    float32, ``sample_rate`` uint32 and ``label`` (the genre, str).

    `usage` "all"/None only: the train/valid/test splits are torchaudio's published lists of
    file names, which are not part of the dataset's files; other usages raise ValueError.

    Example:
        >>> data = ds.GTZANDataset("/data/gtzan/genres", shuffle=False)    # doctest: +SKIP
    """

    _RATE_DTYPE = np.uint32

    def __init__(self, dataset_dir: str, usage: Optional[str] = None,
                 num_samples: Optional[int] = None, num_parallel_workers: Optional[int] = None,
                 shuffle: Optional[bool] = None, sampler: Any = None,
                 num_shards: Optional[int] = None, shard_id: Optional[int] = None,
                 cache: Any = None) -> None:
        api = "GTZANDataset"
        if usage not in (None, "all"):
            raise ValueError(f"{api}: only usage='all' is supported (the split lists are not "
                             f"in the dataset's files), got {usage!r}")
        super().__init__(api, ["waveform", "sample_rate", "label"], num_samples,
                         num_parallel_workers, shuffle, sampler, num_shards, shard_id)
        folder = _check_dir(dataset_dir, api)
        for genre in sorted(os.listdir(folder)):
            if not os.path.isdir(os.path.join(folder, genre)):
                continue
            for name in sorted(os.listdir(os.path.join(folder, genre))):
                if name.endswith(".wav"):
                    self._wavs.append(os.path.join(folder, genre, name))
                    self._fields.append((np.array(genre),))


class CMUArcticDataset(_WavSource):
    """CMU Arctic: ``dataset_dir/cmu_us_<name>_arctic/wav/<id>.wav`` with the transcripts in
    ``etc/txt.done.data`` (lines ``( arctic_a0001 "Author of the danger trail." )``).

    Columns ``waveform`` float32, ``sample_rate`` uint32, ``transcript`` and
    ``utterance_id`` (str). `name` the speaker: "aew", "ahw", "aup", "awb", "axb", "bdl",
    "clb", "eey", "fem", "gka", "jmk", "ksp", "ljm", "lnh", "rms", "rxr", "slp" or "slt"
    (default "aew").

    Example:
        >>> data = ds.CMUArcticDataset("/data/cmu_arctic", name="slt")    # doctest: +SKIP
    """

    _RATE_DTYPE = np.uint32
    _NAMES = ("aew", "ahw", "aup", "awb", "axb", "bdl", "clb", "eey", "fem", "gka", "jmk",
              "ksp", "ljm", "lnh", "rms", "rxr", "slp", "slt")

    def __init__(self, dataset_dir: str, name: Optional[str] = None,
                 num_samples: Optional[int] = None, num_parallel_workers: Optional[int] = None,
                 shuffle: Optional[bool] = None, sampler: Any = None,
                 num_shards: Optional[int] = None, shard_id: Optional[int] = None,
                 cache: Any = None) -> None:
        api = "CMUArcticDataset"
        name = "aew" if name is None else name
        if name not in self._NAMES:
            raise ValueError(f"{api}: name must be one of {self._NAMES}, got {name!r}")
        super().__init__(api, ["waveform", "sample_rate", "transcript", "utterance_id"],
                         num_samples, num_parallel_workers, shuffle, sampler, num_shards,
                         shard_id)
        root = os.path.join(_check_dir(dataset_dir, api), f"cmu_us_{name}_arctic")
        text = os.path.join(root, "etc", "txt.done.data")
        if not os.path.isfile(text):
            raise ValueError(f"{api}: {root} has no etc/txt.done.data")
        with open(text, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                body = line.strip("()").strip()
                utterance, _, quoted = body.partition(" ")
                if not quoted.strip().startswith('"'):
                    raise RuntimeError(f"{api}: {text}:{number} is not "
                                       f'( <id> "<transcript>" )')
                self._wavs.append(os.path.join(root, "wav", utterance + ".wav"))
                self._fields.append((np.array(quoted.strip().strip('"')), np.array(utterance)))


class LibriTTSDataset(_WavSource):
    """LibriTTS: ``dataset_dir/<usage>/<speaker>/<chapter>/<utterance>.wav`` with
    ``<utterance>.original.txt`` and ``<utterance>.normalized.txt`` beside each file.

    Columns ``waveform`` float32, ``sample_rate`` uint32, ``original_text``,
    ``normalized_text`` (str), ``speaker_id``, ``chapter_id`` (uint32) and ``utterance_id``
    (str). `usage` "dev-clean", "dev-other", "test-clean", "test-other", "train-clean-100",
    "train-clean-360", "train-other-500" or "all"/None (the folders present).

    Example:
        >>> data = ds.LibriTTSDataset("/data/LibriTTS", usage="dev-clean")    # doctest: +SKIP
    """

    _RATE_DTYPE = np.uint32
    _USAGES = ("dev-clean", "dev-other", "test-clean", "test-other", "train-clean-100",
               "train-clean-360", "train-other-500", "all")

    def __init__(self, dataset_dir: str, usage: Optional[str] = None,
                 num_samples: Optional[int] = None, num_parallel_workers: Optional[int] = None,
                 shuffle: Optional[bool] = None, sampler: Any = None,
                 num_shards: Optional[int] = None, shard_id: Optional[int] = None,
                 cache: Any = None) -> None:
        api = "LibriTTSDataset"
        super().__init__(api, ["waveform", "sample_rate", "original_text", "normalized_text",
                               "speaker_id", "chapter_id", "utterance_id"], num_samples,
                         num_parallel_workers, shuffle, sampler, num_shards, shard_id)
        folder = _check_dir(dataset_dir, api)
        usage = _usage(usage, self._USAGES, api)
        parts = [u for u in self._USAGES[:-1] if os.path.isdir(os.path.join(folder, u))] \
            if usage == "all" else [usage]
        for part in parts:
            part_dir = os.path.join(folder, part)
            if not os.path.isdir(part_dir):
                raise ValueError(f"{api}: {folder} has no folder {part}")
            for top, dirs, files in sorted(os.walk(part_dir)):
                dirs.sort()
                for name in sorted(files):
                    if name.endswith(".wav"):
                        self._add(os.path.join(top, name[:-4]), api)

    def _add(self, stem: str, api: str) -> None:
        texts = []
        for kind in ("original", "normalized"):
            path = f"{stem}.{kind}.txt"
            if not os.path.isfile(path):
                raise ValueError(f"{api}: {path} is missing")
            with open(path, encoding="utf-8") as f:
                texts.append(np.array(f.read().strip()))
        utterance = os.path.basename(stem)
        speaker, chapter = (utterance.split("_") + ["0", "0"])[:2]
        self._wavs.append(stem + ".wav")
        self._fields.append((*texts, np.uint32(int(speaker)), np.uint32(int(chapter)),
                             np.array(utterance)))


def read_sph(path: str) -> Tuple[np.ndarray, int]:
    """The float32 waveform and sample rate of a NIST SPHERE file of uncompressed PCM
    (a ``NIST_1A`` text header of ``key -type value`` lines, then the samples).

        >>> waveform, rate = read_sph("TEDLIUM_release1/test/sph/talk.sph")  # doctest: +SKIP
    """
    with open(path, "rb") as f:
        raw = f.read()
    lines = raw[:1024].split(b"\n")
    if not lines or lines[0].strip() != b"NIST_1A" or len(lines) < 2:
        raise RuntimeError(f"{path}: not a NIST SPHERE file")
    header_size = int(lines[1])
    fields: Dict[str, str] = {}
    for line in raw[:header_size].split(b"\n")[2:]:
        parts = line.decode("ascii", "replace").split(None, 2)
        if parts and parts[0] == "end_head":
            break
        if len(parts) == 3:
            fields[parts[0]] = parts[2].strip()
    coding = fields.get("sample_coding", "pcm")
    if coding != "pcm":
        raise RuntimeError(f"{path}: sample_coding {coding!r} is not supported (only pcm)")
    width = int(fields.get("sample_n_bytes", "2"))
    channels = int(fields.get("channel_count", "1"))
    order = "<" if fields.get("sample_byte_format", "01") == "01" else ">"
    data = np.frombuffer(raw[header_size:], f"{order}i{width}")
    samples = (data.astype(np.float32) / 2 ** (8 * width - 1)).reshape(-1, channels).T
    return (samples[0] if channels == 1 else samples), int(fields.get("sample_rate", "16000"))


class TedliumDataset(MappableSource):
    """TED-LIUM: talks as ``sph/<talk>.sph`` with their segments in ``stm/<talk>.stm``
    (lines ``<talk> <channel> <speaker> <start> <end> <label> <transcript>``; the
    ``ignore_time_segment_in_scoring`` ones are skipped). One row per segment: columns
    ``waveform`` float32 (the segment's samples), ``sample_rate`` uint32, ``transcript``,
    ``talk_id``, ``speaker_id`` and ``identifier`` (str, the segment's start and end).

    Args:
        release: "release1" (``TEDLIUM_release1/<usage>``), "release2"
            (``TEDLIUM_release2/<usage>``) or "release3" (``TEDLIUM_release-3/data``).
        usage: "train", "dev", "test" or "all"/None (release3: "all" only).
        extensions: the audio files' extension (".sph").

    Example:
        >>> data = ds.TedliumDataset("/data", "release1", usage="test")    # doctest: +SKIP
    """

    _ROOTS = {"release1": "TEDLIUM_release1", "release2": "TEDLIUM_release2",
              "release3": "TEDLIUM_release-3"}

    def __init__(self, dataset_dir: str, release: str, usage: Optional[str] = None,
                 extensions: Optional[str] = None, num_samples: Optional[int] = None,
                 num_parallel_workers: Optional[int] = None, shuffle: Optional[bool] = None,
                 sampler: Any = None, num_shards: Optional[int] = None,
                 shard_id: Optional[int] = None, cache: Any = None) -> None:
        api = "TedliumDataset"
        if release not in self._ROOTS:
            raise ValueError(f"{api}: release must be one of {tuple(self._ROOTS)}, got "
                             f"{release!r}")
        extension = extensions or ".sph"
        if extension != ".sph":
            raise ValueError(f"{api}: extensions must be '.sph', got {extensions!r}")
        super().__init__(api, ["waveform", "sample_rate", "transcript", "talk_id",
                               "speaker_id", "identifier"], num_samples, num_parallel_workers,
                         shuffle, sampler, num_shards, shard_id)
        root = os.path.join(_check_dir(dataset_dir, api), self._ROOTS[release])
        if release == "release3":
            if usage not in (None, "all"):
                raise ValueError(f"{api}: release3 has usage 'all' only, got {usage!r}")
            folders = [os.path.join(root, "data")]
        else:
            usage = _usage(usage, ("train", "dev", "test", "all"), api)
            folders = [os.path.join(root, u) for u in (
                ["train", "dev", "test"] if usage == "all" else [usage])]
        self._segments: List[Tuple[str, float, float, Tuple[np.ndarray, ...]]] = []
        for folder in folders:
            stm_dir = os.path.join(folder, "stm")
            if not os.path.isdir(stm_dir):
                raise ValueError(f"{api}: folder {stm_dir} is missing")
            for name in sorted(os.listdir(stm_dir)):
                if name.endswith(".stm"):
                    self._add_talk(os.path.join(stm_dir, name), folder, extension)

    def _add_talk(self, stm: str, folder: str, extension: str) -> None:
        with open(stm, encoding="utf-8") as f:
            for line in f:
                parts = line.strip().split(" ", 6)
                if len(parts) < 6:
                    continue
                talk, _, speaker, start, end = parts[:5]
                transcript = parts[6] if len(parts) == 7 else ""
                if transcript == "ignore_time_segment_in_scoring":
                    continue
                sph = os.path.join(folder, "sph", talk + extension)
                self._segments.append((sph, float(start), float(end), (
                    np.array(transcript), np.array(talk), np.array(speaker),
                    np.array(f"{talk}-{start}-{end}"))))

    def _row_count(self) -> int:
        return len(self._segments)

    def _read(self, index: int) -> Tuple[Any, ...]:
        sph, start, end, fields = self._segments[index]
        waveform, rate = read_sph(sph)
        segment = waveform[..., int(start * rate):int(end * rate)]
        return (segment, np.uint32(rate), *fields)
