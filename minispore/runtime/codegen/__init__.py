"""Codegen: lower an optimised graph to a Program. On CPU, fused elementwise groups become
numba kernels (numba_cpu); everything else runs its primitive impl (BLAS for matmul)."""
import os

from .. import device
from ..executor import Program, interpreted_steps
from ..fuse import FusedGroup, partition


def fusion_enabled():
    return os.environ.get("MINISPORE_FUSION", "1") != "0" and device.xp().__name__ == "numpy"


def lower(graph):
    """(Program, generated kernel source or None) for an optimised graph."""
    if not fusion_enabled():
        return Program(graph, interpreted_steps), None
    from . import numba_cpu
    background = os.environ.get("MINISPORE_SYNC_COMPILE", "0") != "1"
    sources = []

    def steps(g):
        for item in partition(g):
            if isinstance(item, FusedGroup):
                step = numba_cpu.lower_group(item, background)
                sources.append(step.source)
                yield (step, item.inputs, item.outputs, {}, True, f"fused kernel ({len(item.nodes)} ops: "
                       + ", ".join(n.prim.name for n in item.nodes) + ")", item.nodes[0].loc)
            else:
                yield (item.prim.impl, item.inputs, item.outputs, item.attrs,
                       item.prim.multiple_results, f"ops.{item.prim.name}", item.loc)

    program = Program(graph, steps)
    return program, "\n\n".join(sources) or None
