"""GraphCell: a Cell around a loaded inference graph (MindSpore's `nn.GraphCell`)."""
from __future__ import annotations
from typing import Any
from .cell import Cell
from ..core.hints import Tensor


class GraphCell(Cell):
    """Runs a graph from `ms.load` as a Cell (inference only: it has no parameters to train).

        >>> net = nn.GraphCell(ms.load("net.onnx"))
        >>> out = net(ms.Tensor(np.ones((1, 4), np.float32)))
    """

    def __init__(self, graph: Any, params_init: Any = None, obf_random_seed: Any = None) -> None:
        super().__init__()
        if not callable(getattr(graph, "run", None)):
            raise TypeError(f"GraphCell: expects a graph from ms.load, got {type(graph).__name__}")
        self.graph = graph

    def __call__(self, *inputs):
        # the loaded graph runs in its own runtime in either mode: nothing here to trace
        return self.graph.run(*inputs)

    def construct(self, *inputs: Any) -> Tensor:
        return self.graph.run(*inputs)
