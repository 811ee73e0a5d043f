"""Graph mode driver (trace -> passes -> codegen -> cache)."""


def run_cell_graph(cell, args, kwargs):
    raise NotImplementedError("GRAPH_MODE is not implemented yet: use ms.PYNATIVE_MODE")
