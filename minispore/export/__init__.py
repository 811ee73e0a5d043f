"""minispore.export: a trained network written for deployment, and read back.

    >>> ms.export(net, ms.Tensor(np.ones((1, 4), np.float32)), file_name="net",
    ...           file_format="ONNX")                      # writes net.onnx
    >>> graph = ms.load("net.onnx")                         # needs onnxruntime
    >>> out = ms.nn.GraphCell(graph)(ms.Tensor(np.ones((1, 4), np.float32)))

ONNX export needs the `onnx` package (`pip install 'minispore[onnx]'`); loading one back runs
it with `onnxruntime`. MindSpore's MINDIR and AIR formats are MindSpore's own: see `export`.
"""
import os
from typing import Any, Callable

from ..core.hints import TensorLike

from .loaded import LoadedGraph, load
from .onnx_export import ExportError, example_inputs, to_onnx

__all__ = ["export", "load", "LoadedGraph", "ExportError"]


def export(net: Callable[..., Any], *inputs: TensorLike, file_name: str,
           file_format: str = "ONNX", dynamic_batch: bool = False, **kwargs: Any) -> str:
    """Write `net`'s inference graph, traced on `inputs`, to `file_name` (MindSpore's
    `ms.export`; the suffix is added when missing). Returns the path written.

    `dynamic_batch=True` leaves the first axis of inputs and outputs free (ONNX dim "batch").
    Only "ONNX" is supported: MINDIR and AIR are MindSpore-internal formats.

        >>> ms.export(nn.Dense(4, 2), ms.Tensor(np.ones((1, 4), np.float32)),
        ...           file_name="dense", file_format="ONNX")
        '.../dense.onnx'
    """
    fmt = file_format.upper()
    if fmt in ("MINDIR", "AIR"):
        raise ExportError(f"ms.export: file_format={file_format!r} is MindSpore's internal "
                          f"format, which minispore cannot write; use file_format='ONNX'")
    if fmt != "ONNX":
        raise ExportError(f"ms.export: unknown file_format {file_format!r} (use 'ONNX')")
    if not inputs:
        raise ExportError("ms.export: give example inputs to trace the network with")
    model = to_onnx(net, example_inputs(inputs), dynamic_batch=dynamic_batch)
    path = file_name if file_name.endswith(".onnx") else f"{file_name}.onnx"
    tmp = f"{path}.tmp{os.getpid()}"   # written whole, then renamed: never half a file
    with open(tmp, "wb") as f:
        f.write(model.SerializeToString())
    os.replace(tmp, path)
    return os.path.abspath(path)
