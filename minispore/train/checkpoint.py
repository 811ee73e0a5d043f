"""Checkpoints: save a network's parameters to a file, load them back, load them into a network.

    >>> import os, tempfile
    >>> import minispore as ms
    >>> from minispore.train import save_checkpoint, load_checkpoint, load_param_into_net
    >>> path = os.path.join(tempfile.mkdtemp(), "net.ckpt")
    >>> save_checkpoint(ms.nn.Dense(3, 2), path)
    >>> params = load_checkpoint(path)                 # dict name -> Parameter
    >>> sorted(params)
    ['bias', 'weight']
    >>> load_param_into_net(ms.nn.Dense(3, 2), params)  # (param_not_load, ckpt_not_load)
    ([], [])

File format (version 1), readable with nothing but numpy and the json module — no pickle, so
loading a checkpoint never runs code from the file:

    offset  size  content
    0       8     magic b"MSPCKPT\\x00"
    8       4     format version, uint32 little-endian (1)
    12      8     index length L in bytes, uint64 little-endian
    20      L     index: UTF-8 JSON object
                    {"tensors": [{"name", "dtype", "shape", "offset", "nbytes"}, ...],
                     "strings": {name: str, ...},
                     "payload_nbytes": P}
                  dtype is a numpy name ("float32", "int64", "bool", ...), offset is relative
                  to the payload start; tensors are stored in index order, back to back
    20+L    P     payload: each tensor's elements, C order, little-endian
    20+L+P  32    SHA-256 of every byte before it (header, index and payload)

The digest catches a truncated file and any flipped byte; every index field is checked as
well, so a damaged file is rejected with an error naming it before any parameter changes.
Writes are atomic: the file is written under a temporary name in the same directory, flushed
and fsynced, then renamed over the target (os.replace), so a crash mid-write leaves any old
checkpoint intact.
"""
from __future__ import annotations

import contextlib
import hashlib
import json
import os
import struct
import tempfile
from collections import OrderedDict

import numpy as np

from ..context import parallel
from ..core.dtype import ALL_TYPES, is_float_np
from ..core.parameter import Parameter
from ..core.tensor import Tensor
from ..nn.cell import Cell
from typing import Any, Callable, Optional, Sequence, Union

__all__ = ["CheckpointError", "save_checkpoint", "load_checkpoint", "load_param_into_net"]

MAGIC = b"MSPCKPT\x00"
VERSION = 1
_HEADER = struct.Struct("<8sIQ")  # magic, version, index length
_DIGEST_SIZE = hashlib.sha256().digest_size
_DTYPES = {t.np.name: t.np for t in ALL_TYPES}  # the only element types a checkpoint may hold


class CheckpointError(ValueError):
    """A checkpoint file that cannot be read: missing, truncated, corrupted or not a checkpoint."""


# ----- saving -----

def save_checkpoint(save_obj: Any, ckpt_file_name: str, integrated_save: bool = True,
                    async_save: bool = False, append_dict: Optional[dict[str, Any]] = None,
                    choice_func: Optional[Callable[[str], bool]] = None) -> None:
    """Save parameters to `ckpt_file_name` (".ckpt" is appended when missing).

    Args:
        save_obj: a Cell (its parameters, keyed by `Parameter.name`), a list of
            ``{"name": str, "data": Tensor}`` dicts, or a dict name -> Tensor.
        ckpt_file_name: the file to write; its directory must exist.
        integrated_save: in a data-parallel job (every rank holds the same parameters) only
            rank 0 writes, so ranks never race on one file; False writes on every rank, each
            to its own file (``name_rank<r>.ckpt``).
        async_save: accepted for MindSpore compatibility (writes are synchronous).
        append_dict: extra entries, name -> int, float, bool, str or Tensor (e.g. the epoch).
            Numbers come back from `load_checkpoint` as 0-d Parameters, strings as str.
        choice_func: name -> bool; only the parameters it accepts are saved.

    Example:
        >>> save_checkpoint({"w": ms.Tensor([1.0, 2.0])}, "w.ckpt")    # doctest: +SKIP
    """
    path = _ckpt_path(ckpt_file_name)
    if parallel.data_parallel():
        if integrated_save and parallel.world().rank != 0:
            return
        if not integrated_save:
            path = f"{path[:-len('.ckpt')]}_rank{parallel.world().rank}.ckpt"
    tensors, strings = _collect(save_obj, append_dict, choice_func)
    entries, offset = [], 0
    for name, array in tensors.items():
        nbytes = array.size * array.itemsize
        entries.append({"name": name, "dtype": array.dtype.name, "shape": list(array.shape),
                        "offset": offset, "nbytes": nbytes})
        offset += nbytes
    index = json.dumps({"tensors": entries, "strings": strings, "payload_nbytes": offset},
                       ensure_ascii=True).encode("utf-8")

    def write(f):
        digest = hashlib.sha256()
        for chunk in _file_chunks(index, tensors.values()):
            f.write(chunk)
            digest.update(chunk)
        f.write(digest.digest())

    _atomic_write(path, write)


def _ckpt_path(ckpt_file_name):
    if not isinstance(ckpt_file_name, (str, os.PathLike)):
        raise TypeError(f"save_checkpoint: ckpt_file_name must be a str or path, "
                        f"got {type(ckpt_file_name).__name__}")
    path = os.path.abspath(os.fspath(ckpt_file_name))
    return path if path.endswith(".ckpt") else path + ".ckpt"


def _collect(save_obj, append_dict, choice_func):
    """(OrderedDict name -> little-endian numpy array, dict name -> str) to be saved."""
    if isinstance(save_obj, Cell):
        pairs = [(p.name, p) for _, p in save_obj.parameters_and_names()]
    elif isinstance(save_obj, dict):
        pairs = list(save_obj.items())
    elif isinstance(save_obj, (list, tuple)):
        pairs = []
        for item in save_obj:
            if not isinstance(item, dict) or set(item) != {"name", "data"}:
                raise TypeError(f"save_checkpoint: a list save_obj holds {{'name': str, "
                                f"'data': Tensor}} dicts, got {item!r:.80}")
            pairs.append((item["name"], item["data"]))
    else:
        raise TypeError(f"save_checkpoint: save_obj must be a Cell, a list of {{'name', 'data'}} "
                        f"dicts or a dict name -> Tensor, got {type(save_obj).__name__}")
    if choice_func is not None:
        pairs = [(n, v) for n, v in pairs if choice_func(n)]
    tensors, strings = OrderedDict(), {}
    for name, value in pairs:
        _add_entry(tensors, strings, name, value, allow_str=False)
    for name, value in (append_dict or {}).items():
        _add_entry(tensors, strings, name, value, allow_str=True)
    return tensors, strings


def _add_entry(tensors, strings, name, value, allow_str):
    if not isinstance(name, str):
        raise TypeError(f"save_checkpoint: names must be str, got {name!r} "
                        f"({type(name).__name__})")
    if name in tensors or name in strings:
        raise ValueError(f"save_checkpoint: the name {name!r} occurs twice; every saved "
                         f"parameter needs a unique name")
    if allow_str and isinstance(value, str):
        strings[name] = value
        return
    if isinstance(value, (bool, int, float)) and allow_str:
        value = Tensor(value)
    if isinstance(value, Tensor):
        array = np.asarray(value.asnumpy())
    elif isinstance(value, np.ndarray):
        array = value
    else:
        kinds = "int, float, bool, str or Tensor" if allow_str else "a Tensor or numpy array"
        raise TypeError(f"save_checkpoint: {name!r} must be {kinds}, got {type(value).__name__}")
    if array.dtype.name not in _DTYPES:
        raise TypeError(f"save_checkpoint: {name!r} has dtype {array.dtype}, which a checkpoint "
                        f"cannot hold; supported: {', '.join(_DTYPES)}")
    # not np.ascontiguousarray: it turns a 0-d array into a 1-d one
    tensors[name] = np.asarray(array, dtype=array.dtype.newbyteorder("<"), order="C")


def _file_chunks(index, arrays):
    """The file's bytes before the digest, in order (header, index, then each tensor)."""
    yield _HEADER.pack(MAGIC, VERSION, len(index))
    yield index
    for array in arrays:
        yield _array_bytes(array)


def _array_bytes(array):
    return array.reshape(-1).view(np.uint8)


def _atomic_write(path, write):
    directory = os.path.dirname(path)
    if not os.path.isdir(directory):
        raise FileNotFoundError(f"save_checkpoint: directory {directory!r} does not exist "
                                f"(writing {path!r})")
    fd, tmp = tempfile.mkstemp(prefix=f".{os.path.basename(path)}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(tmp, 0o644)  # mkstemp creates 0600; a checkpoint is an ordinary file
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise
    _fsync_directory(directory)


def _fsync_directory(directory):
    # makes the rename itself durable; not every platform can open a directory
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


# ----- loading -----

def load_checkpoint(ckpt_file_name: str, net: Optional[Cell] = None, strict_load: bool = False,
                    filter_prefix: Union[str, Sequence[str], None] = None,
                    specify_prefix: Union[str, Sequence[str], None] = None,
                    choice_func: Optional[Callable[[str], bool]] = None) -> dict[str, Any]:
    """Read a checkpoint file: dict name -> Parameter (strings saved by append_dict stay str).

    Args:
        ckpt_file_name: the file written by `save_checkpoint`.
        net: a Cell to load the parameters into as well (see `load_param_into_net`).
        strict_load: passed to `load_param_into_net`.
        filter_prefix: a str or a sequence of str; parameters whose names start with one of
            them are not loaded.
        specify_prefix: a str or a sequence of str; only parameters whose names start with one
            of them are loaded.
        choice_func: name -> bool; only the parameters it accepts are loaded.

    Raises:
        CheckpointError: the file is missing, truncated, corrupted or not a checkpoint.
        ValueError: `net` is given and parameters do not match it (nothing is changed).

    Example:
        >>> params = load_checkpoint("net.ckpt", filter_prefix="fc")   # doctest: +SKIP
    """
    filters = _prefixes(filter_prefix, "filter_prefix")
    specified = _prefixes(specify_prefix, "specify_prefix")
    path = os.fspath(ckpt_file_name)
    tensors, strings = _read(path)

    def wanted(name):
        return (not any(name.startswith(p) for p in filters)
                and (not specified or any(name.startswith(p) for p in specified))
                and (choice_func is None or choice_func(name)))

    params = OrderedDict()
    for name, array in tensors.items():
        if wanted(name):
            params[name] = Parameter(Tensor(array), name=name)
    for name, text in strings.items():
        if wanted(name):
            params[name] = text
    if net is not None:
        _load_into(net, params, strict_load, f"checkpoint {path!r}")
    return params


def _prefixes(value, arg):
    if value is None:
        return ()
    values = (value,) if isinstance(value, str) else tuple(value) if isinstance(
        value, (list, tuple)) else None
    if values is None or not all(isinstance(v, str) and v for v in values):
        raise TypeError(f"load_checkpoint: {arg} must be a non-empty str or a list/tuple of them, "
                        f"got {value!r}")
    return values


def _read(path):
    """Validate the whole file, then return (OrderedDict name -> array, dict name -> str)."""
    def corrupt(why):
        return CheckpointError(f"checkpoint {path!r} cannot be loaded: {why}")

    try:
        with open(path, "rb") as f:
            blob = f.read()
    except OSError as e:
        raise CheckpointError(f"checkpoint {path!r} cannot be read: {e.strerror or e}") from None
    if len(blob) < _HEADER.size + _DIGEST_SIZE:
        raise corrupt(f"the file is {len(blob)} bytes, too short for a checkpoint (truncated?)")
    magic, version, index_nbytes = _HEADER.unpack_from(blob)
    if magic != MAGIC:
        raise corrupt("not a minispore checkpoint (wrong magic bytes)")
    if version != VERSION:
        raise corrupt(f"format version {version}, this minispore reads version {VERSION}")
    body, digest = blob[:-_DIGEST_SIZE], blob[-_DIGEST_SIZE:]
    if hashlib.sha256(body).digest() != digest:
        raise corrupt("the SHA-256 checksum does not match: the file is truncated or corrupted")
    payload_start = _HEADER.size + index_nbytes
    if payload_start > len(body):
        raise corrupt("the index runs past the end of the file")
    try:
        index = json.loads(body[_HEADER.size:payload_start].decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise corrupt(f"the index is not valid JSON ({e})") from None
    except RecursionError:  # json recurses once per level of nesting: a hostile index
        raise corrupt("the index nests too deeply to be a checkpoint's") from None
    payload = memoryview(body)[payload_start:]
    try:
        return _parse_index(index, payload)
    except (KeyError, TypeError, ValueError) as e:
        raise corrupt(f"malformed index: {e}") from None


def _parse_index(index, payload):
    if index["payload_nbytes"] != len(payload):
        raise ValueError(f"payload is {len(payload)} bytes, the index says "
                         f"{index['payload_nbytes']}")
    tensors, expected_offset = OrderedDict(), 0
    for entry in index["tensors"]:
        name, dtype, shape = entry["name"], _DTYPES.get(entry["dtype"]), entry["shape"]
        if not isinstance(name, str) or name in tensors:
            raise ValueError(f"bad or repeated tensor name {name!r}")
        if dtype is None:
            raise ValueError(f"{name}: unsupported dtype {entry['dtype']!r}")
        if not all(isinstance(d, int) and d >= 0 for d in shape):
            raise ValueError(f"{name}: bad shape {shape!r}")
        nbytes = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        if entry["offset"] != expected_offset or entry["nbytes"] != nbytes:
            raise ValueError(f"{name}: offset/size do not match its shape {shape} and dtype")
        view = payload[expected_offset:expected_offset + nbytes]
        if len(view) != nbytes:
            raise ValueError(f"{name}: data runs past the end of the payload")
        little = np.frombuffer(view, dtype=dtype.newbyteorder("<")).reshape(shape)
        tensors[name] = little.astype(dtype)  # native byte order, and a copy owning its memory
        expected_offset += nbytes
    if expected_offset != len(payload):
        raise ValueError("the payload has bytes no tensor accounts for")
    strings = index["strings"]
    if not isinstance(strings, dict) or not all(isinstance(v, str) for v in strings.values()):
        raise ValueError("'strings' must map names to str")
    return tensors, strings


def load_param_into_net(net: Cell, parameter_dict: dict[str, Any],
                        strict_load: bool = False) -> tuple[list[str], list[str]]:
    """Copy values from `parameter_dict` (name -> Parameter/Tensor) into `net`'s Parameters.

    Every match is checked first (shape; dtype, which non-strict loading may convert between
    float types), so a mismatch raises with the names of all offending parameters and changes
    nothing. With ``strict_load=False`` a checkpoint whose names carry an extra prefix (saved
    from a wrapper such as TrainOneStepCell) still loads: net name ``w`` matches ``prefix.w``.

    Returns:
        (param_not_load, ckpt_not_load): names of the net's parameters that got no value, and
        names in `parameter_dict` that were not used.

    Example:
        >>> param_not_load, ckpt_not_load = load_param_into_net(net, params)   # doctest: +SKIP
    """
    return _load_into(net, parameter_dict, strict_load, "parameter_dict")


def _load_into(net, parameter_dict, strict_load, source):
    if not isinstance(net, Cell):
        raise TypeError(f"load_param_into_net: net must be a Cell, got {type(net).__name__}")
    if not isinstance(parameter_dict, dict):
        raise TypeError(f"load_param_into_net: parameter_dict must be a dict, "
                        f"got {type(parameter_dict).__name__}")
    net_params = [p for _, p in net.parameters_and_names()]
    matches = _match_names(net_params, parameter_dict, strict_load)
    updates, problems = [], []
    for param, key in matches:
        value = parameter_dict[key]
        if not isinstance(value, (Tensor, np.ndarray)):
            problems.append(f"{key}: checkpoint value is a {type(value).__name__}, not a tensor")
            continue
        array = np.asarray(value.asnumpy() if isinstance(value, Tensor) else value)
        target = param.dtype.np
        if tuple(array.shape) != param.shape:
            problems.append(f"{param.name}: checkpoint shape {tuple(array.shape)}, "
                            f"network shape {param.shape}")
        elif array.dtype != target and (strict_load or not is_float_np(array.dtype)
                                        or not is_float_np(target)):
            problems.append(f"{param.name}: checkpoint dtype {array.dtype}, network dtype {target}")
        else:
            updates.append((param, array.astype(target, copy=False)))
    if problems:
        raise ValueError(f"load_param_into_net: {len(problems)} parameter(s) from {source} do not "
                         f"fit the network, so no parameter was changed:\n  "
                         + "\n  ".join(problems))
    for param, array in updates:
        param.set_data(Tensor(array))
    used = {key for _, key in matches}
    param_not_load = [p.name for p in net_params if all(p is not q for q, _ in matches)]
    ckpt_not_load = [key for key in parameter_dict if key not in used]
    return param_not_load, ckpt_not_load


def _match_names(net_params, parameter_dict, strict_load):
    """[(net Parameter, parameter_dict key)]: exact names, then (non-strict) one common prefix."""
    matches = [(p, p.name) for p in net_params if p.name in parameter_dict]
    unmatched = [p for p in net_params if p.name not in parameter_dict]
    if strict_load or not unmatched:
        return matches
    for key in parameter_dict:
        # the first checkpoint name ending in ".<net name>" fixes the prefix for all the rest
        for p in unmatched:
            if key.endswith("." + p.name):
                prefix = key[:-len(p.name)]
                return matches + [(q, prefix + q.name) for q in unmatched
                                  if prefix + q.name in parameter_dict]
    return matches
