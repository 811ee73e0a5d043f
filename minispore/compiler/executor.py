"""Programs: an optimised Graph lowered to a flat list of steps over a register file.

A step is a primitive impl, or a compiled fused kernel (codegen). `Program.run` is the whole
runtime of Graph mode: a loop over steps, each reading and writing slots, releasing values
after their last use. A failing step raises the error its op raises in PyNative (the same
OpError class, op, inputs and user line: `Primitive.explain_failure`), so `except ValueError`
works alike in both modes.

Donated buffers: a state update such as SGD's `w - lr * g` (an addmm after the passes) or
Adam's fused kernel may be computed into the buffer of w's current value instead of a new one,
when w's tensor is that buffer's only holder: nothing else can then observe the overwrite.
Such steps run last, after every step that can fail, so state still changes only when the
whole program succeeded.
"""
import sys

import numpy as np

from ..context import device, profiling
from ..core.errors import OpError, OpShapeError, OpTypeError, with_context
from ..ops.primitive import aval_of
from . import buckets


class Step:
    __slots__ = ("fn", "ins", "outs", "attrs", "multiple", "release", "label", "nodes",
                 "in_place", "donated")

    def __init__(self, fn, ins, outs, attrs, multiple, label, nodes):
        self.fn, self.ins, self.outs, self.attrs = fn, ins, outs, attrs
        self.multiple, self.label = multiple, label
        self.nodes = nodes  # the graph nodes it computes: one, or a fused group's
        self.release = ()
        # on a step that may reuse input buffers: in_place(xp, *inputs, **attrs) -> a write
        # (see Primitive.in_place) or None, and the positions of the inputs it overwrites
        self.in_place, self.donated = None, ()

    def calling(self, fn):
        """This step with `fn` in place of its function (a profiler's timed wrapper)."""
        step = Step(fn, self.ins, self.outs, self.attrs, self.multiple, self.label, self.nodes)
        step.release = self.release
        return step


# sys.getrefcount of a donated buffer held only by its state tensor, the caller's input list,
# its slot in Program.run, the local name in _solely_held and getrefcount's own argument: any
# other holder, a view, a user's asnumpy(), a returned value, a second slot, makes it larger
_SOLE_HOLDER_REFCOUNT = 5


class Program:
    """Runs a graph's steps. `steps` come from codegen; constants are preloaded slots.

    donations: (input Var, output Var) of state updates that may be computed into the
    input's buffer (see the module docstring); in_place_kernel(twins) compiles the in-place
    twins of fused kernels (codegen.numba_cpu.in_place_kernel; None: no fused kernel writes
    in place) and returns their writer: one twin's, or one call over several of one source
    (a multi-tensor update: each optimizer update of a parameter in one kernel call)."""

    merge_updates = True  # several updates of one source in one kernel call (or one each)

    def __init__(self, graph, steps_for, donations=(), in_place_kernel=None):
        slots = {}

        def slot(var):
            if var.id not in slots:
                slots[var.id] = len(slots)
            return slots[var.id]

        self.input_slots = [slot(v) for v in graph.inputs]
        consts = {}
        self.steps = []
        for item in steps_for(graph):
            fn, in_vars, out_vars, attrs, multiple, label, nodes = item
            for v in in_vars:
                if v.const is not None:
                    consts[slot(v)] = device.to_device(v.const)
            self.steps.append(Step(fn, [slot(v) for v in in_vars], [slot(v) for v in out_vars],
                                   attrs, multiple, label, nodes))
        for v in graph.outputs:
            if v.const is not None:
                consts[slot(v)] = device.to_device(v.const)
        self.output_slots = [slot(v) for v in graph.outputs]
        self.n_slots = len(slots)
        self.consts = list(consts.items())
        self.in_place_kernel = in_place_kernel
        self.donating = self._plan_donations([(slots.get(x.id), slots.get(y.id))
                                              for x, y in donations])
        if device.xp() is np:
            self.plain_steps = buckets.plan(self.plain_steps, lambda: self._new_slot(),
                                            lambda fn, ins, outs, label: Step(
                                                fn, ins, outs, {}, False, label, ()))
            self.steps = self.plain_steps + self.donating
        self._plan_release()

    def _new_slot(self):
        self.n_slots += 1
        return self.n_slots - 1

    def _plan_donations(self, donations):
        """Move each step that may reuse a donated buffer to the end; return those steps.
        A step qualifies if only graph outputs read its results (nothing can run after it),
        it can write there (a primitive's `in_place`, a fused kernel's `writing_into`), and
        neither a graph output nor another such step reads a buffer it overwrites."""
        producer = {s: step for step in self.steps for s in step.outs}
        read = {s for step in self.steps for s in step.ins}
        wanted = {}  # step -> {output position: input position}
        for s_in, s_out in donations:
            step = producer.get(s_out)
            if step is not None and s_in in step.ins and s_in not in self.output_slots:
                wanted.setdefault(step, {})[step.outs.index(s_out)] = step.ins.index(s_in)
        donating, twins = [], {}
        for step, pairs in wanted.items():
            if not any(s in read for s in step.outs):
                twin = _can_donate(step, pairs)
                if twin is True or twin is not None and self.in_place_kernel is not None:
                    donating.append(step)
                    twins[step] = twin
        overwritten = [{step.ins[j] for j in step.donated} for step in donating]
        donating = [step for step, mine in zip(donating, overwritten)
                    if not any(s in other.ins for other in donating if other is not step
                               for s in mine)]
        for step in self.steps:
            if step not in donating:
                step.in_place, step.donated = None, ()
        self.plain_steps = [step for step in self.steps if step not in donating]
        donating = self._with_in_place_kernels(donating, twins)
        self.steps = self.plain_steps + donating
        return donating

    def _with_in_place_kernels(self, donating, twins):
        """`donating` with each fused kernel's in-place writer compiled (those of one source,
        if merge_updates, as one step writing them all in one kernel call)."""
        by_source = {}
        for step in donating:
            if twins[step] is not True:
                by_source.setdefault(twins[step].source, []).append(step)
        for members in by_source.values():
            if len(members) == 1 or not self.merge_updates:
                for m in members:
                    m.in_place = self.in_place_kernel([twins[m]]).in_place
                continue
            merged = Step(_Members(members), [s for m in members for s in m.ins],
                          [s for m in members for s in m.outs], {}, True,
                          f"fused update of {len(members)} tensors ({members[0].label})",
                          tuple(node for m in members for node in m.nodes))
            merged.in_place = self.in_place_kernel([twins[m] for m in members]).in_place
            starts = np.cumsum([0] + [len(m.ins) for m in members]).tolist()
            merged.donated = tuple(start + j for m, start in zip(members, starts)
                                   for j in m.donated)
            first = donating.index(members[0])
            donating = [s for s in donating if s not in members]
            donating.insert(min(first, len(donating)), merged)
        return donating

    def _plan_release(self):
        keep = set(self.output_slots) | {s for s, _ in self.consts}
        last_use = {}
        for i, step in enumerate(self.plain_steps):
            for s in step.ins:
                last_use[s] = i
        for step in self.donating:  # they run apart (_run_donating): their inputs stay till then
            keep.update(step.ins)
        per_step = {}
        for s, i in last_use.items():
            if s not in keep:
                per_step.setdefault(i, []).append(s)
        for i, step in enumerate(self.plain_steps):
            step.release = tuple(per_step.get(i, ()))

    def run(self, inputs):
        if profiling.active is not None:
            return profiling.active.run_program(self, inputs)
        return self.run_steps(inputs, self.plain_steps)

    def run_steps(self, inputs, plain_steps):
        """Run with `plain_steps` (the program's own, or a profiler's timed copies of them)."""
        env = [None] * self.n_slots
        for s, value in self.consts:
            env[s] = value
        for s, value in zip(self.input_slots, inputs):
            env[s] = value
        value = None  # a reference left here would count as another holder of a donated buffer
        xp = device.xp()
        get = env.__getitem__  # map(get, ins) is cheaper than a list comprehension per step
        for step in plain_steps:
            try:
                result = step.fn(xp, *map(get, step.ins), **step.attrs)
            except Exception as e:
                raise _failure(step, [env[i] for i in step.ins], e) from None
            if step.multiple:
                for s, r in zip(step.outs, result):
                    env[s] = r
            else:
                env[step.outs[0]] = result
            for s in step.release:
                env[s] = None
        if self.donating:
            self._run_donating(env, xp)
        outs = [env[s] for s in self.output_slots]
        # scalars (numpy reductions return them) become arrays of the run's namespace
        return [x if type(x) is np.ndarray else xp.asarray(x) for x in outs]

    def _run_donating(self, env, xp):
        """The donating steps: each reuses its buffers only if the state tensor, the caller's
        input list and its slot are each buffer's sole holders, and each buffer owns its
        memory (a view's base could be seen elsewhere). Every write is prepared, and every
        step that allocates instead has run, before the first write: a failure leaves state
        untouched."""
        writes = []
        for step in self.donating:
            write = None
            if all(_solely_held(env, step.ins[j]) for j in step.donated):
                try:
                    write = step.in_place(xp, *[env[i] for i in step.ins], **step.attrs)
                except Exception as e:
                    raise _failure(step, [env[i] for i in step.ins], e) from None
            if write is not None:
                writes.append((step, write))
                continue
            try:
                _store(env, step, step.fn(xp, *[env[i] for i in step.ins], **step.attrs))
            except Exception as e:
                raise _failure(step, [env[i] for i in step.ins], e) from None
        for step, write in writes:
            _store(env, step, write())


def _can_donate(step, pairs):
    """Set step.in_place and step.donated for the donated {output: input} `pairs` it can write
    in place. A primitive writes output 0 into input 0 (returns True); a fused kernel
    (codegen's GroupStep) into the inputs its twin `writing_into(pairs)` takes (returns the
    twin, whose writer Program compiles). None where it can write none."""
    if not step.multiple:
        in_place = step.nodes[0].prim.in_place if pairs == {0: 0} else None
        step.in_place, step.donated = in_place, (0,)
        return True if in_place is not None else None
    writing_into = getattr(step.fn, "writing_into", None)
    twin = writing_into(pairs) if writing_into is not None else None
    if twin is not None:
        step.donated = tuple(twin.written_into.values())  # in_place: its compiled writer's
    return twin


class _Members:
    """A merged update step's function where it allocates: each member's own, in turn."""

    def __init__(self, members):
        self.members = members

    def __call__(self, xp, *inputs):
        results, start = [], 0
        for m in self.members:
            ins = inputs[start:start + len(m.ins)]
            start += len(m.ins)
            results.extend(m.fn(xp, *ins, **m.attrs))
        return tuple(results)


def _solely_held(env, s):
    """Whether the buffer in slot s is held only by its state tensor, the caller's input list
    and the slot, and owns its C-contiguous, writable memory."""
    buffer = env[s]
    return (type(buffer) is np.ndarray and sys.getrefcount(buffer) == _SOLE_HOLDER_REFCOUNT
            and buffer.base is None and buffer.flags.c_contiguous and buffer.flags.writeable)


def _store(env, step, result):
    if step.multiple:
        for s, r in zip(step.outs, result):
            env[s] = r
    else:
        env[step.outs[0]] = result


def _failure(step, inputs, error):
    """The error a step that failed on `inputs` raises: its op's, as PyNative raises it, at
    the user's line the node was traced from."""
    if isinstance(error, OpError) or not step.nodes:
        return error  # explained already (a graph loop's body, a fused group's node), or no op's
    if len(step.nodes) == 1:
        node = step.nodes[0]  # (inputs past its own: a bucket it writes into, compiler.buckets)
        return node.prim.explain_failure(inputs[:len(node.inputs)], node.attrs, error, node.loc)
    # a fused kernel (its numpy tier explains the node that failed: fuse.FusedGroup.run_nodes)
    cls = OpTypeError if isinstance(error, TypeError) else OpShapeError
    return cls(with_context(step.label, [aval_of(x) for x in inputs], {},
                            f"{type(error).__name__}: {error}", step.nodes[0].loc, namespace=""))
