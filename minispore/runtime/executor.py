"""Programs: an optimised Graph lowered to a flat list of steps over a register file.

A step is a primitive impl, or a compiled fused kernel (codegen). `Program.run` is the whole
runtime of Graph mode: a loop over steps, each reading and writing slots, releasing values
after their last use. A failing step reports the node's user source line.
"""
import numpy as np

from . import device


class Step:
    __slots__ = ("fn", "ins", "outs", "attrs", "multiple", "release", "label", "loc")

    def __init__(self, fn, ins, outs, attrs, multiple, label, loc):
        self.fn, self.ins, self.outs, self.attrs = fn, ins, outs, attrs
        self.multiple, self.label, self.loc = multiple, label, loc
        self.release = ()


class Program:
    """Runs a graph's steps. `steps` come from codegen; constants are preloaded slots."""

    def __init__(self, graph, steps_for):
        slots = {}

        def slot(var):
            if var.id not in slots:
                slots[var.id] = len(slots)
            return slots[var.id]

        self.input_slots = [slot(v) for v in graph.inputs]
        consts = {}
        self.steps = []
        for item in steps_for(graph):
            fn, in_vars, out_vars, attrs, multiple, label, loc = item
            for v in in_vars:
                if v.const is not None:
                    consts[slot(v)] = device.to_device(v.const)
            self.steps.append(Step(fn, [slot(v) for v in in_vars], [slot(v) for v in out_vars],
                                   attrs, multiple, label, loc))
        for v in graph.outputs:
            if v.const is not None:
                consts[slot(v)] = device.to_device(v.const)
        self.output_slots = [slot(v) for v in graph.outputs]
        self.n_slots = len(slots)
        self.consts = list(consts.items())
        self._plan_release()

    def _plan_release(self):
        keep = set(self.output_slots) | {s for s, _ in self.consts}
        last_use = {}
        for i, step in enumerate(self.steps):
            for s in step.ins:
                last_use[s] = i
        per_step = {}
        for s, i in last_use.items():
            if s not in keep:
                per_step.setdefault(i, []).append(s)
        for i, step in enumerate(self.steps):
            step.release = tuple(per_step.get(i, ()))

    def run(self, inputs):
        env = [None] * self.n_slots
        for s, value in self.consts:
            env[s] = value
        for s, value in zip(self.input_slots, inputs):
            env[s] = value
        xp = device.xp()
        for step in self.steps:
            try:
                result = step.fn(xp, *[env[i] for i in step.ins], **step.attrs)
            except Exception as e:
                raise RuntimeError(f"Graph mode: {step.label} failed at run time: {type(e).__name__}: {e}"
                                   + (f"\n  at {step.loc}" if step.loc else "")) from e
            if step.multiple:
                for s, r in zip(step.outs, result):
                    env[s] = r
            else:
                env[step.outs[0]] = result
            for s in step.release:
                env[s] = None
        outs = [env[s] for s in self.output_slots]
        # scalars (numpy reductions return them) become arrays of the run's namespace
        return [x if type(x) is np.ndarray else xp.asarray(x) for x in outs]


def interpreted_steps(graph):
    """One step per node, running the primitive's impl (the tier without fused kernels)."""
    for node in graph.nodes:
        yield (node.prim.impl, node.inputs, node.outputs, node.attrs, node.prim.multiple_results,
               f"ops.{node.prim.name}", node.loc)
