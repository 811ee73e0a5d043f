"""Executables: a compiled function run on concrete tensors.

`Executable` runs a forward Program and writes the state updates back (only once the whole
program succeeded: nothing is lost when a run raises). `VjpExecutable` runs a compiled
forward that also returns the residuals, and records one node on the eager tape whose rule
runs the compiled backward: how gradients flow through a jitted call in PyNative.
"""
from ..core.dtype import is_float_np
from ..core.pytree import unflatten
from ..core.tensor import Tensor
from ..grad import tape


class Executable:
    """A compiled forward: run it on concrete inputs, write back state, rebuild outputs."""

    def __init__(self, traced, program):
        self.traced = traced
        self.program = program

    def __call__(self, leaves):
        t = self.traced
        outs = self.program.run([x._data for x in leaves] + [c._data for c in t.captured])
        write_back(t.updated, outs[t.n_outputs:])
        return unflatten(t.out_structure, [Tensor._wrap(a) for a in outs[:t.n_outputs]])


class VjpExecutable:
    """A compiled forward (returning residuals) and backward, joined by one tape node."""

    def __init__(self, traced, forward, backward):
        self.traced = traced
        self.forward, self.backward = forward, backward
        self.float_outputs = [is_float_np(v.dtype)
                              for v in traced.graph.outputs[:traced.n_outputs]]

    def __call__(self, leaves):
        t = self.traced
        inputs = list(leaves) + list(t.captured)
        outs = self.forward.run([x._data for x in inputs])
        n_explicit, n_state = t.n_outputs, len(t.updated)
        residuals = outs[n_explicit + n_state:]
        write_back(t.updated, outs[n_explicit:n_explicit + n_state])
        out_tensors = [Tensor._wrap(a) for a in outs[:n_explicit]]
        backward_program, float_outputs = self.backward, self.float_outputs

        def rule(*saved):
            dout = saved[-1] if len(out_tensors) > 1 else (saved[-1],)
            douts = [d._data for d, is_float in zip(dout, float_outputs) if is_float]
            grads = backward_program.run(list(residuals) + douts)
            return tuple(Tensor._wrap(g) if x.dtype.is_float else None for g, x in zip(grads, inputs))

        tape.record_custom(t.graph.name, rule, inputs, out_tensors, len(out_tensors) > 1)
        return unflatten(t.out_structure, out_tensors)


def write_back(tensors, arrays):
    """State updates land only after the whole program succeeded."""
    for tensor, array in zip(tensors, arrays):
        tensor._data = array
