"""Text datasets in their published on-disk formats, read from local folders (no downloads).

- CSV corpora (one ``train.csv`` / ``test.csv`` pair in `dataset_dir`, quoted fields, no
  header): AGNewsDataset, AmazonReviewDataset, DBpediaDataset, SogouNewsDataset,
  YahooAnswersDataset, YelpReviewDataset.
- One line a row: PennTreebankDataset (``ptb.<usage>.txt``), WikiTextDataset
  (``wiki.<usage>.tokens``), EnWik9Dataset (``enwik9``).
- Tab-separated: SST2Dataset (``train.tsv`` / ``dev.tsv`` / ``test.tsv`` with a header).
- Sentences of tagged words (blank lines between sentences): UDPOSDataset, CoNLL2000Dataset.
- Parallel text: Multi30kDataset (``<usage>.<lang>`` line pairs), IWSLT2016Dataset /
  IWSLT2017Dataset (``train.tags.*`` text and ``*.xml`` <seg> files).
- JSON: SQuADDataset (``train-v1.1.json`` / ``dev-v1.1.json`` or v2.0), CLUEDataset.
- Folders: IMDBDataset (``aclImdb``: ``<usage>/pos|neg/*.txt``).

All but IMDBDataset take MindSpore's `shuffle` modes (True/Shuffle.GLOBAL, Shuffle.FILES,
Shuffle.INFILE, False) and shard rows with num_shards / shard_id; every column of text is a
numpy str array. Files of a usage "all" are read in sorted file-name order.
"""
import csv
import glob
import html
import json
import os
import re
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from .base import MappableSource, json_lines
from .text_files import Shuffle, _FileSource
from .vision_files import _check_dir

__all__ = ["AGNewsDataset", "AmazonReviewDataset", "DBpediaDataset", "SogouNewsDataset",
           "YahooAnswersDataset", "YelpReviewDataset", "PennTreebankDataset",
           "WikiTextDataset", "EnWik9Dataset", "SST2Dataset", "UDPOSDataset",
           "CoNLL2000Dataset", "Multi30kDataset", "IWSLT2016Dataset", "IWSLT2017Dataset",
           "SQuADDataset", "CLUEDataset", "IMDBDataset"]

Row = Tuple[np.ndarray, ...]


def _usage(usage: Optional[str], allowed: Sequence[str], default: str, api: str) -> str:
    usage = default if usage is None else usage
    if usage not in allowed:
        raise ValueError(f"{api}: usage must be one of {tuple(allowed)} or None, got {usage!r}")
    return usage


def _files(folder: str, names: Sequence[str], api: str) -> List[str]:
    paths = [os.path.join(folder, name) for name in names]
    for path in paths:
        if not os.path.isfile(path):
            raise ValueError(f"{api}: {folder} has no file {os.path.basename(path)}")
    return paths


class _Parsed(_FileSource):
    """A `_FileSource` over named files of `dataset_dir`, each parsed by `_parse`."""

    def __init__(self, api: str, paths: List[str], columns: List[str],
                 num_samples: Optional[int], num_parallel_workers: Optional[int], shuffle: Any,
                 num_shards: Optional[int], shard_id: Optional[int]) -> None:
        super().__init__(api, [glob.escape(p) for p in paths], columns, num_samples,
                         num_parallel_workers, shuffle, num_shards, shard_id)
        self._api = api


# ----- CSV corpora -----

class _CsvCorpus(_Parsed):
    _COLUMNS: List[str] = []

    def __init__(self, dataset_dir: str, usage: Optional[str] = None,
                 num_samples: Optional[int] = None, num_parallel_workers: Optional[int] = None,
                 shuffle: Any = Shuffle.GLOBAL, num_shards: Optional[int] = None,
                 shard_id: Optional[int] = None, cache: Any = None) -> None:
        api = type(self).__name__
        usage = _usage(usage, ("train", "test", "all"), "all", api)
        names = ["train.csv", "test.csv"] if usage == "all" else [f"{usage}.csv"]
        paths = _files(_check_dir(dataset_dir, api), names, api)
        super().__init__(api, paths, list(self._COLUMNS), num_samples, num_parallel_workers,
                         shuffle, num_shards, shard_id)

    def _parse(self, path: str) -> List[Row]:
        with open(path, encoding="utf-8", newline="") as f:
            lines = [fields for fields in csv.reader(f) if fields]
        for number, fields in enumerate(lines, 1):
            if len(fields) != len(self._column_names):
                raise RuntimeError(f"{self._api}: {path}:{number} has {len(fields)} field(s), "
                                   f"expected {len(self._column_names)} {self._column_names}")
        return [tuple(np.array(v) for v in fields) for fields in lines]


class AGNewsDataset(_CsvCorpus):
    """AG News: ``train.csv`` / ``test.csv`` rows ``"class","title","description"``.
    Columns ``index``, ``title``, ``description`` (str). `usage` "train", "test", "all"/None.

    Example:
        >>> data = ds.AGNewsDataset("/data/ag_news_csv", usage="test")    # doctest: +SKIP
    """
    _COLUMNS = ["index", "title", "description"]


class AmazonReviewDataset(_CsvCorpus):
    """Amazon Review (polarity or full): ``train.csv`` / ``test.csv``, columns ``label``,
    ``title``, ``content`` (str).

    Example:
        >>> data = ds.AmazonReviewDataset("/data/amazon_review_polarity_csv")  # doctest: +SKIP
    """
    _COLUMNS = ["label", "title", "content"]


class DBpediaDataset(_CsvCorpus):
    """DBpedia ontology: ``train.csv`` / ``test.csv``, columns ``class``, ``title``,
    ``content`` (str).

    Example:
        >>> data = ds.DBpediaDataset("/data/dbpedia_csv", usage="train")    # doctest: +SKIP
    """
    _COLUMNS = ["class", "title", "content"]


class SogouNewsDataset(_CsvCorpus):
    """Sogou News: ``train.csv`` / ``test.csv``, columns ``index``, ``title``, ``content``.

    Example:
        >>> data = ds.SogouNewsDataset("/data/sogou_news_csv")    # doctest: +SKIP
    """
    _COLUMNS = ["index", "title", "content"]


class YahooAnswersDataset(_CsvCorpus):
    """Yahoo! Answers: ``train.csv`` / ``test.csv``, columns ``class``, ``title``,
    ``content``, ``answer``.

    Example:
        >>> data = ds.YahooAnswersDataset("/data/yahoo_answers_csv")    # doctest: +SKIP
    """
    _COLUMNS = ["class", "title", "content", "answer"]


class YelpReviewDataset(_CsvCorpus):
    """Yelp Review (polarity or full): ``train.csv`` / ``test.csv``, columns ``label``,
    ``text``.

    Example:
        >>> data = ds.YelpReviewDataset("/data/yelp_review_full_csv")    # doctest: +SKIP
    """
    _COLUMNS = ["label", "text"]


# ----- one line a row -----

class _LineCorpus(_Parsed):
    _PATTERN = "{}"
    _USAGES: Tuple[str, ...] = ("train", "test", "valid", "all")
    _SKIP_BLANK = True

    def __init__(self, dataset_dir: str, usage: Optional[str] = None,
                 num_samples: Optional[int] = None, num_parallel_workers: Optional[int] = None,
                 shuffle: Any = Shuffle.GLOBAL, num_shards: Optional[int] = None,
                 shard_id: Optional[int] = None, cache: Any = None) -> None:
        api = type(self).__name__
        usage = _usage(usage, self._USAGES, "all", api)
        parts = [u for u in self._USAGES if u != "all"] if usage == "all" else [usage]
        paths = _files(_check_dir(dataset_dir, api), [self._PATTERN.format(p) for p in parts],
                       api)
        super().__init__(api, paths, ["text"], num_samples, num_parallel_workers, shuffle,
                         num_shards, shard_id)

    def _parse(self, path: str) -> List[Row]:
        with open(path, encoding="utf-8") as f:
            lines = [line.rstrip("\r\n") for line in f]
        return [(np.array(line),) for line in lines if line.strip() or not self._SKIP_BLANK]


class PennTreebankDataset(_LineCorpus):
    """Penn Treebank (Mikolov's text): ``ptb.train.txt``, ``ptb.test.txt``, ``ptb.valid.txt``;
    one row per line, column ``text``. `usage` "train", "test", "valid" or "all"/None.

    Example:
        >>> data = ds.PennTreebankDataset("/data/ptb", usage="train")    # doctest: +SKIP
    """
    _PATTERN = "ptb.{}.txt"


class WikiTextDataset(_LineCorpus):
    """WikiText-2 / -103: ``wiki.train.tokens``, ``wiki.test.tokens``, ``wiki.valid.tokens``;
    one row per non-blank line, column ``text``.

    Example:
        >>> data = ds.WikiTextDataset("/data/wikitext-2", usage="valid")    # doctest: +SKIP
    """
    _PATTERN = "wiki.{}.tokens"


class EnWik9Dataset(_LineCorpus):
    """enwik9: the file ``enwik9`` in `dataset_dir`, one row per line, column ``text``
    (shuffled by default, as MindSpore).

    Example:
        >>> data = ds.EnWik9Dataset("/data/enwik9", shuffle=False)    # doctest: +SKIP
    """
    _PATTERN = "enwik9"
    _USAGES = ("all",)

    def __init__(self, dataset_dir: str, num_samples: Optional[int] = None,
                 num_parallel_workers: Optional[int] = None, shuffle: Any = True,
                 num_shards: Optional[int] = None, shard_id: Optional[int] = None,
                 cache: Any = None) -> None:
        api = "EnWik9Dataset"
        paths = _files(_check_dir(dataset_dir, api), ["enwik9"], api)
        _Parsed.__init__(self, api, paths, ["text"], num_samples, num_parallel_workers,
                         shuffle, num_shards, shard_id)


# ----- SST-2 -----

class SST2Dataset(_Parsed):
    """SST-2 (GLUE): ``train.tsv`` and ``dev.tsv`` (header ``sentence<TAB>label``) give
    columns ``sentence`` and ``label``; ``test.tsv`` (header ``index<TAB>sentence``) gives
    ``sentence``. Both are str, as MindSpore. `usage` "train" (default), "dev" or "test".

    Example:
        >>> data = ds.SST2Dataset("/data/SST-2", usage="dev", shuffle=False)    # doctest: +SKIP
    """

    def __init__(self, dataset_dir: str, usage: Optional[str] = None,
                 num_samples: Optional[int] = None, num_parallel_workers: Optional[int] = None,
                 shuffle: Any = Shuffle.GLOBAL, num_shards: Optional[int] = None,
                 shard_id: Optional[int] = None, cache: Any = None) -> None:
        api = "SST2Dataset"
        usage = _usage(usage, ("train", "dev", "test"), "train", api)
        paths = _files(_check_dir(dataset_dir, api), [f"{usage}.tsv"], api)
        self._test = usage == "test"
        super().__init__(api, paths, ["sentence"] if self._test else ["sentence", "label"],
                         num_samples, num_parallel_workers, shuffle, num_shards, shard_id)

    def _parse(self, path: str) -> List[Row]:
        with open(path, encoding="utf-8") as f:
            header, *lines = [line.rstrip("\r\n").split("\t") for line in f if line.strip()]
        want = "index" if self._test else "sentence"
        where = {name: i for i, name in enumerate(header)}
        if want not in where or "sentence" not in where:
            raise RuntimeError(f"SST2Dataset: {path} has header {header}, expected "
                               f"{'index, sentence' if self._test else 'sentence, label'}")
        names = ["sentence"] if self._test else ["sentence", "label"]
        return [tuple(np.array(fields[where[n]]) for n in names) for fields in lines]


# ----- tagged sentences -----

class _TaggedSentences(_Parsed):
    """Sentences of one word a line (whitespace-separated fields), blank lines between."""
    _NAMES: Dict[str, str] = {}
    _COLUMNS: List[str] = []
    _DELIMITER: Optional[str] = None

    def __init__(self, dataset_dir: str, usage: Optional[str] = None,
                 num_samples: Optional[int] = None, num_parallel_workers: Optional[int] = None,
                 shuffle: Any = Shuffle.GLOBAL, num_shards: Optional[int] = None,
                 shard_id: Optional[int] = None, cache: Any = None) -> None:
        api = type(self).__name__
        usage = _usage(usage, (*self._NAMES, "all"), "all", api)
        names = list(self._NAMES.values()) if usage == "all" else [self._NAMES[usage]]
        paths = _files(_check_dir(dataset_dir, api), names, api)
        super().__init__(api, paths, list(self._COLUMNS), num_samples, num_parallel_workers,
                         shuffle, num_shards, shard_id)

    def _parse(self, path: str) -> List[Row]:
        sentences: List[Row] = []
        words: List[List[str]] = []
        width = len(self._column_names)
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(list(f) + [""], 1):
                fields = line.rstrip("\r\n").split(self._DELIMITER)
                if not line.strip():
                    if words:
                        sentences.append(tuple(np.array([w[i] for w in words])
                                               for i in range(width)))
                        words = []
                    continue
                if len(fields) < width:
                    raise RuntimeError(f"{self._api}: {path}:{number} has {len(fields)} "
                                       f"field(s), expected {width} {self._column_names}")
                words.append(fields[:width])
        return sentences


class UDPOSDataset(_TaggedSentences):
    """UDPOS (English Universal Dependencies, torchtext's layout): ``en-ud-tag.v2.train.txt``,
    ``en-ud-tag.v2.dev.txt``, ``en-ud-tag.v2.test.txt``, lines ``word<TAB>upos<TAB>xpos``.
    One row per sentence; columns ``word``, ``universal``, ``stanford`` (1-D str arrays).
    `usage` "train", "valid", "test" or "all"/None.

    Example:
        >>> data = ds.UDPOSDataset("/data/udpos", usage="valid")    # doctest: +SKIP
    """
    _NAMES = {"train": "en-ud-tag.v2.train.txt", "valid": "en-ud-tag.v2.dev.txt",
              "test": "en-ud-tag.v2.test.txt"}
    _COLUMNS = ["word", "universal", "stanford"]
    _DELIMITER = "\t"


class CoNLL2000Dataset(_TaggedSentences):
    """CoNLL-2000 chunking: ``train.txt`` and ``test.txt``, lines ``word pos chunk``. One row
    per sentence; columns ``word``, ``pos_tag``, ``chunk_tag`` (1-D str arrays). `usage`
    "train", "test" or "all"/None.

    Example:
        >>> data = ds.CoNLL2000Dataset("/data/conll2000", usage="test")    # doctest: +SKIP
    """
    _NAMES = {"train": "train.txt", "test": "test.txt"}
    _COLUMNS = ["word", "pos_tag", "chunk_tag"]


# ----- parallel text -----

class Multi30kDataset(_Parsed):
    """Multi30k: line-aligned ``<usage>.<lang>`` files (``train.en`` / ``train.de``,
    ``valid.*``, ``test.*``) in `dataset_dir`. Columns ``text`` (the first language of
    `language_pair`) and ``translation`` (the second). `usage` "train", "valid", "test" or
    "all"/None; `language_pair` ["en", "de"] (default) or ["de", "en"].

    Example:
        >>> data = ds.Multi30kDataset("/data/multi30k", usage="train")    # doctest: +SKIP
    """

    def __init__(self, dataset_dir: str, usage: Optional[str] = None,
                 language_pair: Optional[Sequence[str]] = None,
                 num_samples: Optional[int] = None, shuffle: Any = None,
                 num_shards: Optional[int] = None, shard_id: Optional[int] = None,
                 num_parallel_workers: Optional[int] = None, cache: Any = None) -> None:
        api = "Multi30kDataset"
        pair = list(language_pair) if language_pair is not None else ["en", "de"]
        if pair not in (["en", "de"], ["de", "en"]):
            raise ValueError(f"{api}: language_pair must be ['en', 'de'] or ['de', 'en'], got "
                             f"{language_pair!r}")
        usage = _usage(usage, ("train", "valid", "test", "all"), "all", api)
        folder = _check_dir(dataset_dir, api)
        parts = ["test", "train", "valid"] if usage == "all" else [usage]
        self._pair = pair
        paths = _files(folder, [f"{p}.{pair[0]}" for p in parts], api)
        _files(folder, [f"{p}.{pair[1]}" for p in parts], api)
        super().__init__(api, paths, ["text", "translation"], num_samples,
                         num_parallel_workers, shuffle, num_shards, shard_id)

    def _parse(self, path: str) -> List[Row]:
        other = path[:-len(self._pair[0])] + self._pair[1]
        with open(path, encoding="utf-8") as f, open(other, encoding="utf-8") as g:
            source = [line.rstrip("\r\n") for line in f]
            target = [line.rstrip("\r\n") for line in g]
        if len(source) != len(target):
            raise RuntimeError(f"Multi30kDataset: {path} has {len(source)} lines but {other} "
                               f"{len(target)}")
        return [(np.array(s), np.array(t)) for s, t in zip(source, target)
                if s.strip() or t.strip()]


class _IWSLT(_Parsed):
    """IWSLT TED talks: the pair's files found anywhere under `dataset_dir`:
    ``train.tags.<src>-<tgt>.<lang>`` (lines of text between ``<tag>`` lines) and
    ``IWSLT<yy>.TED.<set>.<src>-<tgt>.<lang>.xml`` (the text of each ``<seg>``)."""

    _YEAR = ""
    _LANGUAGES: Tuple[str, ...] = ()
    _SETS: Tuple[str, str] = ("", "")

    def __init__(self, dataset_dir: str, usage: Optional[str] = None,
                 language_pair: Optional[Sequence[str]] = None, valid_set: Optional[str] = None,
                 test_set: Optional[str] = None, num_samples: Optional[int] = None,
                 shuffle: Any = Shuffle.GLOBAL, num_shards: Optional[int] = None,
                 shard_id: Optional[int] = None, num_parallel_workers: Optional[int] = None,
                 cache: Any = None) -> None:
        api = type(self).__name__
        pair = list(language_pair) if language_pair is not None else ["de", "en"]
        if len(pair) != 2 or pair[0] == pair[1] or not set(pair) <= set(self._LANGUAGES):
            raise ValueError(f"{api}: language_pair must be two of {self._LANGUAGES}, got "
                             f"{language_pair!r}")
        usage = _usage(usage, ("train", "valid", "test", "all"), "all", api)
        folder = _check_dir(dataset_dir, api)
        src, tgt = pair
        sets = {"valid": valid_set or self._SETS[0], "test": test_set or self._SETS[1]}
        names = {"train": f"train.tags.{src}-{tgt}.{src}"}
        for part, name in sets.items():
            names[part] = f"IWSLT{self._YEAR}.TED.{name}.{src}-{tgt}.{src}.xml"
        found: Dict[str, str] = {}
        for top, _, files in os.walk(folder):
            for file in files:
                found.setdefault(file, os.path.join(top, file))
        paths = []
        for part in (["train", "valid", "test"] if usage == "all" else [usage]):
            if names[part] not in found:
                raise ValueError(f"{api}: {folder} has no file {names[part]}")
            paths.append(found[names[part]])
        self._pair = pair
        super().__init__(api, paths, ["text", "translation"], num_samples,
                         num_parallel_workers, shuffle, num_shards, shard_id)

    def _parse(self, path: str) -> List[Row]:
        src, tgt = self._pair
        if path.endswith(".xml"):
            other = path[:-len(f".{src}.xml")] + f".{tgt}.xml"
        else:
            other = path[:-len(src)] + tgt
        texts = [self._texts(p) for p in (path, other)]
        if len(texts[0]) != len(texts[1]):
            raise RuntimeError(f"{self._api}: {path} has {len(texts[0])} sentences but "
                               f"{other} {len(texts[1])}")
        return [(np.array(a), np.array(b)) for a, b in zip(*texts)]

    def _texts(self, path: str) -> List[str]:
        if not os.path.isfile(path):
            raise RuntimeError(f"{self._api}: {path} is missing")
        with open(path, encoding="utf-8") as f:
            text = f.read()
        if path.endswith(".xml"):
            return [html.unescape(m.strip()) for m in re.findall(r"<seg[^>]*>(.*?)</seg>",
                                                                 text, re.S)]
        return [line.strip() for line in text.splitlines()
                if line.strip() and not line.lstrip().startswith("<")]


class IWSLT2016Dataset(_IWSLT):
    """IWSLT 2016 (TED talks, en <-> de / fr / cs / ar): columns ``text`` (the first
    language of `language_pair`, default ["de", "en"]) and ``translation``. `usage`
    "train", "valid" (`valid_set`, default "tst2013"), "test" (`test_set`, default
    "tst2014") or "all"/None.

    Example:
        >>> data = ds.IWSLT2016Dataset("/data/iwslt2016", usage="train")    # doctest: +SKIP
    """
    _YEAR = "16"
    _LANGUAGES = ("en", "fr", "de", "cs", "ar")
    _SETS = ("tst2013", "tst2014")


class IWSLT2017Dataset(_IWSLT):
    """IWSLT 2017 (TED talks among en, nl, de, it, ro): columns ``text`` and
    ``translation``; valid set dev2010, test set tst2010; `usage` "train", "valid", "test"
    or "all"/None.

    Example:
        >>> data = ds.IWSLT2017Dataset("/data/iwslt2017",
        ...                            language_pair=["it", "en"])    # doctest: +SKIP
    """
    _YEAR = "17"
    _LANGUAGES = ("en", "nl", "de", "it", "ro")
    _SETS = ("dev2010", "tst2010")

    def __init__(self, dataset_dir: str, usage: Optional[str] = None,
                 language_pair: Optional[Sequence[str]] = None,
                 num_samples: Optional[int] = None, shuffle: Any = Shuffle.GLOBAL,
                 num_shards: Optional[int] = None, shard_id: Optional[int] = None,
                 num_parallel_workers: Optional[int] = None, cache: Any = None) -> None:
        super().__init__(dataset_dir, usage, language_pair, None, None, num_samples, shuffle,
                         num_shards, shard_id, num_parallel_workers, cache)


# ----- JSON -----

class SQuADDataset(_Parsed):
    """SQuAD 1.1 or 2.0: ``train-v1.1.json`` / ``dev-v1.1.json`` (or ``-v2.0``) in
    `dataset_dir`. One row per question; columns ``context``, ``question`` (str), ``text``
    (1-D str, the answers) and ``answer_start`` (1-D uint32); an unanswerable 2.0 question
    has the answer "" at -1 (as MindSpore). `usage` "train", "dev" or "all"/None.

    Example:
        >>> data = ds.SQuADDataset("/data/squad", usage="dev", shuffle=False)    # doctest: +SKIP
    """

    def __init__(self, dataset_dir: str, usage: Optional[str] = None,
                 num_samples: Optional[int] = None, num_parallel_workers: Optional[int] = None,
                 shuffle: Any = Shuffle.GLOBAL, num_shards: Optional[int] = None,
                 shard_id: Optional[int] = None, cache: Any = None) -> None:
        api = "SQuADDataset"
        usage = _usage(usage, ("train", "dev", "all"), "all", api)
        folder = _check_dir(dataset_dir, api)
        paths = []
        for part in (["dev", "train"] if usage == "all" else [usage]):
            found = [os.path.join(folder, f"{part}-v{v}.json") for v in ("1.1", "2.0")]
            found = [p for p in found if os.path.isfile(p)]
            if not found:
                raise ValueError(f"{api}: {folder} has no {part}-v1.1.json or {part}-v2.0.json")
            paths.extend(found)
        super().__init__(api, paths, ["context", "question", "text", "answer_start"],
                         num_samples, num_parallel_workers, shuffle, num_shards, shard_id)

    def _parse(self, path: str) -> List[Row]:
        with open(path, encoding="utf-8") as f:
            document = json.load(f)
        out: List[Row] = []
        for article in document.get("data", []):
            for paragraph in article["paragraphs"]:
                for qa in paragraph["qas"]:
                    answers = qa.get("answers") or [{"text": "", "answer_start": -1}]
                    out.append((np.array(paragraph["context"]), np.array(qa["question"]),
                                np.array([a["text"] for a in answers]),
                                np.array([a["answer_start"] for a in answers],
                                         np.int64).astype(np.uint32)))
        return out


class CLUEDataset(_Parsed):
    """CLUE benchmark tasks from their JSON-lines files (one JSON object a line).

    Args:
        dataset_files: a file, a glob pattern or a list of them.
        task: "AFQMC", "TNEWS", "IFLYTEK", "CMNLI", "WSC" or "CSL".
        usage: "train", "eval" or "test" (test files have an ``id`` and no labels).

    Columns per task and usage are the fields of CLUE's files (`_COLUMNS`), e.g. AFQMC
    train/eval ``sentence1, sentence2, label`` and test ``id, sentence1, sentence2``; every
    value is read as a str except ``id``/``idx`` and the WSC spans' indices (int64). The
    test-usage columns of TNEWS, IFLYTEK and CSL were not checked against MindSpore's
    table.

    Example:
        >>> data = ds.CLUEDataset("/data/afqmc/train.json", task="AFQMC")    # doctest: +SKIP
    """

    _COLUMNS = {
        "AFQMC": (["sentence1", "sentence2", "label"], ["id", "sentence1", "sentence2"]),
        "TNEWS": (["label", "label_des", "sentence", "keywords"],
                  ["id", "sentence", "keywords"]),
        "IFLYTEK": (["label", "label_des", "sentence"], ["id", "sentence"]),
        "CMNLI": (["sentence1", "sentence2", "label"], ["id", "sentence1", "sentence2"]),
        "WSC": (["span1_index", "span2_index", "span1_text", "span2_text", "idx", "label",
                 "text"],
                ["span1_index", "span2_index", "span1_text", "span2_text", "idx", "text"]),
        "CSL": (["id", "abst", "keyword", "label"], ["id", "abst", "keyword"]),
    }
    _INTS = ("id", "idx", "span1_index", "span2_index")

    def __init__(self, dataset_files: Any, task: str = "AFQMC", usage: str = "train",
                 num_samples: Optional[int] = None, num_parallel_workers: Optional[int] = None,
                 shuffle: Any = Shuffle.GLOBAL, num_shards: Optional[int] = None,
                 shard_id: Optional[int] = None, cache: Any = None) -> None:
        api = "CLUEDataset"
        if task not in self._COLUMNS:
            raise ValueError(f"{api}: task must be one of {tuple(self._COLUMNS)}, got {task!r}")
        usage = _usage(usage, ("train", "eval", "test"), "train", api)
        columns = self._COLUMNS[task][1 if usage == "test" else 0]
        _FileSource.__init__(self, api, dataset_files, list(columns), num_samples,
                             num_parallel_workers, shuffle, num_shards, shard_id)

    def _parse(self, path: str) -> List[Row]:
        out: List[Row] = []
        for record in json_lines("CLUEDataset", path):
            record.update(record.pop("target", {}))  # WSC nests the spans in "target"
            out.append(tuple(self._value(record.get(name, ""), name)
                             for name in self._column_names))
        return out

    def _value(self, value: Any, name: str) -> np.ndarray:
        if name in self._INTS:
            return np.array(int(value) if value != "" else -1, np.int64)
        if isinstance(value, list):
            return np.array([str(v) for v in value])
        return np.array(str(value))


# ----- folders -----

class IMDBDataset(MappableSource):
    """IMDB reviews (``aclImdb``): ``dataset_dir/<train|test>/<pos|neg>/*.txt``.

    Columns ``text`` (str, the review) and ``label`` uint32 (1 for pos, 0 for neg); per usage
    the pos files, then the neg files, each in sorted order. `usage` "train", "test" or
    "all"/None. The other arguments choose the rows, as for every source (see `samplers`).

    Example:
        >>> data = ds.IMDBDataset("/data/aclImdb", usage="test", shuffle=False)  # doctest: +SKIP
    """

    def __init__(self, dataset_dir: str, usage: Optional[str] = None,
                 num_samples: Optional[int] = None, num_parallel_workers: Optional[int] = None,
                 shuffle: Optional[bool] = None, sampler: Any = None,
                 num_shards: Optional[int] = None, shard_id: Optional[int] = None,
                 cache: Any = None) -> None:
        api = "IMDBDataset"
        super().__init__(api, ["text", "label"], num_samples, num_parallel_workers, shuffle,
                         sampler, num_shards, shard_id)
        folder = _check_dir(dataset_dir, api)
        usage = _usage(usage, ("train", "test", "all"), "all", api)
        self._files: List[str] = []
        labels = []
        for part in (["train", "test"] if usage == "all" else [usage]):
            for kind, label in (("pos", 1), ("neg", 0)):
                sub = os.path.join(folder, part, kind)
                if not os.path.isdir(sub):
                    raise ValueError(f"{api}: {folder} has no folder {part}/{kind}")
                names = sorted(n for n in os.listdir(sub) if n.endswith(".txt"))
                self._files.extend(os.path.join(sub, n) for n in names)
                labels.extend([label] * len(names))
        self._labels = np.asarray(labels, np.uint32)

    def _row_count(self) -> int:
        return len(self._files)

    def _read(self, index: int) -> Tuple[np.ndarray, Any]:
        with open(self._files[index], encoding="utf-8") as f:
            return np.array(f.read()), self._labels[index]
