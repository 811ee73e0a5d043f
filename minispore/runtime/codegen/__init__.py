"""Codegen: lower an optimised graph to a Program. Fused elementwise groups become numba
kernels on CPU (numba_cpu) and CUDA kernels on GPU (cuda_gpu); everything else runs its
primitive impl (BLAS / cuBLAS for matmul)."""
import os

from .. import device
from ..executor import Program, interpreted_steps
from ..fuse import FusedGroup, partition


def fusion_enabled():
    return (os.environ.get("MINISPORE_FUSION", "1") != "0"
            and device.xp().__name__ in ("numpy", "cupy"))


def lower(graph, donations=()):
    """(Program, generated kernel source or None) for an optimised graph; donations: see
    executor.Program."""
    if not fusion_enabled():
        return Program(graph, interpreted_steps, donations), None
    if device.xp().__name__ == "cupy":
        from . import cuda_gpu
        return cuda_gpu.lower(graph)
    from . import numba_cpu
    background = os.environ.get("MINISPORE_SYNC_COMPILE", "0") != "1"
    return lower_groups(graph, lambda group: numba_cpu.lower_group(group, background),
                        fuse_reductions=True,
                        lower_node=lambda node: numba_cpu.lower_primitive(node, background),
                        donations=donations)


def lower_groups(graph, lower_group, fuse_reductions=False, lower_node=None, donations=(),
                 program_class=Program):
    """(Program, kernel sources or None): each fused group runs as `lower_group(group)` (a step
    with a `.source`), every other node as its primitive impl, or as `lower_node(node)` where
    that gives a step (primitives with a CpuKernel). fuse_reductions: the backend's kernels
    also accumulate reductions (fuse.partition); program_class: Program or a subclass (the
    GPU's replays CUDA graphs)."""
    sources = []

    def steps(g):
        for item in partition(g, fuse_reductions):
            if isinstance(item, FusedGroup):
                step = lower_group(item)
                sources.append(step.source)
                label = (f"fused kernel ({len(item.nodes)} ops: "
                         + ", ".join(n.prim.name for n in item.nodes) + ")")
                yield (step, item.inputs, item.outputs, {}, True, label, item.nodes[0].loc)
            else:
                step = None
                if lower_node is not None and item.prim.kernel is not None:
                    step = lower_node(item)
                if step is not None:
                    sources.append(step.source)
                yield (item.prim.impl if step is None else step, item.inputs, item.outputs,
                       item.attrs, item.prim.multiple_results, f"ops.{item.prim.name}", item.loc)

    program = program_class(graph, steps, donations)
    return program, "\n\n".join(sources) or None
