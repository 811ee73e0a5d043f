"""set_context / get_context: execution mode, device, graph dumps, JIT syntax level.

    >>> import minispore as ms
    >>> ms.set_context(mode=ms.PYNATIVE_MODE, device_target="CPU")
    >>> ms.get_context("mode") == ms.PYNATIVE_MODE
    True
"""
from typing import Any, Optional

import os

from . import device, threads

GRAPH_MODE = 0
PYNATIVE_MODE = 1
STRICT = 0     # jit_syntax_level: a graph break raises
COMPATIBLE = 1
LAX = 2        # default: unsupported syntax falls back to the interpreter and is reported

_DEVICES = ("CPU", "GPU")

_context = {
    "mode": PYNATIVE_MODE,
    "device_target": "CPU",
    "device_id": 0,
    "save_graphs": False,
    "save_graphs_path": ".",
    "jit_syntax_level": LAX,
    # MINISPORE_JIT_ENABLE=0 runs every @jit / Graph-mode Cell eagerly, for a debugger
    "jit_enable": os.environ.get("MINISPORE_JIT_ENABLE", "1") != "0",
    # threads of BLAS and numba's parallel loops (context.threads); None: the libraries' own
    "num_threads": threads.from_environment(),
}
if _context["num_threads"] is not None:
    threads.apply(_context["num_threads"])


def _check_mode(value):
    if value not in (GRAPH_MODE, PYNATIVE_MODE):
        raise ValueError(f"set_context: mode must be ms.GRAPH_MODE (0) or ms.PYNATIVE_MODE (1), got {value!r}")


def _check_device(value):
    if value not in _DEVICES:
        raise ValueError(f"set_context: device_target must be one of {_DEVICES}, got {value!r}")
    device.select(value)


def _check_level(value):
    if value not in (STRICT, COMPATIBLE, LAX):
        raise ValueError(f"set_context: jit_syntax_level must be ms.STRICT, ms.COMPATIBLE or ms.LAX, got {value!r}")


def _check_threads(value):
    threads.check(value)
    threads.apply(value)


_VALIDATORS = {"mode": _check_mode, "device_target": _check_device, "jit_syntax_level": _check_level,
               "num_threads": _check_threads}


def set_context(**kwargs: Any) -> None:
    """Set global execution options: mode, device_target, save_graphs, save_graphs_path,
    jit_syntax_level, jit_enable (False runs every @jit / Graph-mode Cell eagerly),
    num_threads (threads of BLAS and of parallel kernels; None: the libraries' defaults)."""
    for key, value in kwargs.items():
        if key not in _context:
            raise ValueError(f"set_context: unknown option {key!r}; known: {sorted(_context)}")
        if key in _VALIDATORS:
            _VALIDATORS[key](value)
        if key == "save_graphs":
            value = bool(value)
        _context[key] = value


def set_device(device_target: str, device_id: Optional[int] = None) -> None:
    """Run on "CPU" or "GPU" (MindSpore 2.5's spelling of set_context(device_target=...)).

        >>> ms.set_device("CPU")
    """
    set_context(device_target=device_target)
    if device_id is not None:
        if isinstance(device_id, bool) or not isinstance(device_id, int) or device_id < 0:
            raise ValueError(f"set_device: device_id must be a non-negative int, got {device_id!r}")
        set_context(device_id=device_id)


def get_current_device() -> tuple:
    """(device_target, device_id) of the context (MindSpore's DeviceInfo, as a tuple).

        >>> ms.get_current_device()
        ('CPU', 0)
    """
    return _context["device_target"], _context["device_id"]


def get_context(key: str) -> Any:
    """Value of one context option (see set_context)."""
    if key not in _context:
        raise ValueError(f"get_context: unknown option {key!r}; known: {sorted(_context)}")
    return _context[key]


def context_key():
    """The part of the context a compiled executable depends on (part of its cache key)."""
    return (_context["device_target"], _context["jit_syntax_level"])
