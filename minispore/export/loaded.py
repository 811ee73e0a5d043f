"""An exported ONNX file read back for inference (`ms.load`), run by onnxruntime."""
from typing import Any

import numpy as np

from ..core.tensor import Tensor


class LoadedGraph:
    """An inference graph loaded from a file; call it, or wrap it in `nn.GraphCell`."""

    def __init__(self, path):
        import onnxruntime  # the optional runtime for exported files
        self.path = path
        self.session = onnxruntime.InferenceSession(path, providers=["CPUExecutionProvider"])
        self.input_names = [i.name for i in self.session.get_inputs()]

    def run(self, *inputs):
        """Outputs (Tensors) for `inputs` (Tensors or arrays), one per graph output."""
        if len(inputs) != len(self.input_names):
            raise TypeError(f"{self.path}: the graph takes {len(self.input_names)} inputs, "
                            f"got {len(inputs)}")
        feed = {name: np.asarray(x.asnumpy() if isinstance(x, Tensor) else x)
                for name, x in zip(self.input_names, inputs)}
        outs = [Tensor(o) for o in self.session.run(None, feed)]
        return outs[0] if len(outs) == 1 else tuple(outs)

    __call__ = run


def load(file_name: str, **kwargs: Any) -> LoadedGraph:  # MindSpore's options, unused
    """Read an exported graph (MindSpore's `ms.load`): ONNX files, run with onnxruntime.

        >>> graph = ms.load("net.onnx"); out = ms.nn.GraphCell(graph)(x)
    """
    if not file_name.endswith(".onnx"):
        raise ValueError(f"ms.load: {file_name!r} is not an ONNX file; minispore loads the "
                         f"ONNX files ms.export writes (MINDIR is MindSpore's own format)")
    return LoadedGraph(file_name)
