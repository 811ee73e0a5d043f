"""GraphCell: a Cell around a loaded inference graph (MindSpore's `nn.GraphCell`)."""
from .cell import Cell


class GraphCell(Cell):
    """Runs a graph from `ms.load` as a Cell (inference only: it has no parameters to train).

        >>> net = nn.GraphCell(ms.load("net.onnx"))
        >>> out = net(ms.Tensor(np.ones((1, 4), np.float32)))
    """

    def __init__(self, graph, params_init=None, obf_random_seed=None):
        super().__init__()
        if not callable(getattr(graph, "run", None)):
            raise TypeError(f"GraphCell: expects a graph from ms.load, got {type(graph).__name__}")
        self.graph = graph

    def __call__(self, *inputs):
        # the loaded graph runs in its own runtime in either mode: nothing here to trace
        return self.graph.run(*inputs)

    def construct(self, *inputs):
        return self.graph.run(*inputs)
