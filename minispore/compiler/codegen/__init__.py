"""Codegen: lower an optimised, partitioned graph to a Program for the current device.

A `Backend` says how: fused elementwise groups become numba kernels on the CPU (numba_cpu)
and CUDA kernels on the GPU (cuda_gpu); a node whose primitive has a hand-written kernel
(cpu_kernels) runs that; every other node runs its primitive's impl (BLAS / cuBLAS for
products). Adding a backend is adding a `Backend`.

Environment: MINISPORE_FUSION=0 runs every node's impl (no kernels);
MINISPORE_SYNC_COMPILE=1 compiles numba kernels before a program's first call returns
(otherwise they compile on a background thread while the first calls run through numpy).
"""
import os
from typing import Callable, NamedTuple, Optional

from ...context import device
from ..executor import Program
from ..fuse import FusedGroup
from . import cuda_gpu, numba_cpu
from .cuda_graph import ReplayedProgram


class Backend(NamedTuple):
    """How a device runs a partitioned graph (see the module docstring)."""
    fuse_reductions: bool          # its group kernels also accumulate reductions (fuse.partition)
    half_precision: bool           # its group kernels read and write float16 / bfloat16
    lower_group: Callable          # lower_group(FusedGroup) -> a step with a `.source`
    lower_node: Callable           # lower_node(Node) -> a step with a `.source`, or None
    start: Callable                # start(the lowered steps of a planned program): compile
    program_class: type            # Program, or a subclass (the GPU's replays CUDA graphs)
    in_place_kernel: Optional[Callable]  # fused kernels' in-place twins -> their writer


def _cpu():
    background = os.environ.get("MINISPORE_SYNC_COMPILE", "0") != "1"
    return Backend(True, True, lambda group: numba_cpu.lower_group(group, background),
                   lambda node: numba_cpu.lower_primitive(node, background), numba_cpu.start,
                   Program, numba_cpu.in_place_kernel)


_GPU = Backend(False, False, cuda_gpu.lower_group_cuda, lambda node: None, lambda steps: None,
               ReplayedProgram, None)


def backend():
    """The Backend of the current device, or None when fusion is off (every node runs its
    primitive's impl)."""
    if os.environ.get("MINISPORE_FUSION", "1") == "0":
        return None
    name = device.xp().__name__
    if name == "numpy":
        return _cpu()
    return _GPU if name == "cupy" else None


def lower(graph, items, target, donations=()):
    """(Program, the generated kernels' source or None) for `graph` partitioned into `items`
    (graph nodes and FusedGroups, fuse.partition) on Backend `target` (None: every node runs
    its impl); donations: see executor.Program."""
    sources, lowered = [], []

    def steps(g):
        for item in items:
            if isinstance(item, FusedGroup):
                step = target.lower_group(item)
                sources.append(step.source)
                lowered.append(step)
                label = (f"fused kernel ({len(item.nodes)} ops: "
                         + ", ".join(n.prim.name for n in item.nodes) + ")")
                yield (step, item.inputs, item.outputs, {}, True, label, tuple(item.nodes))
                continue
            step = None if target is None else target.lower_node(item)
            if step is not None:
                sources.append(step.source)
                lowered.append(step)
            yield (item.prim.impl if step is None else step, item.inputs, item.outputs,
                   item.attrs, item.prim.multiple_results, f"ops.{item.prim.name}", (item,))

    program_class = Program if target is None else target.program_class
    program = program_class(graph, steps, donations,
                            target.in_place_kernel if target is not None else None)
    if target is not None:
        target.start(lowered)  # once the program is planned: it may defer some kernels
    return program, "\n\n".join(sources) or None
