"""vmap: run a function written for one example on a whole batch, as one batched computation.

    >>> import minispore as ms
    >>> ms.vmap(lambda x, w: ms.ops.matmul(w, x), in_axes=(0, None))(
    ...     ms.ops.ones((5, 3)), ms.ops.ones((2, 3))).shape
    (5, 2)

How it works (JAX's batching interpreter). vmap pushes a `BatchInterpreter` on the
interpreter stack and calls fn with *batched tensors*: ordinary Tensors whose `_data` is a
`Batched` value, i.e. the whole batch (a Tensor of the interpreter below) and the position of
its batch axis. A batched tensor shows one lane's shape and dtype, so user code, the
functional API and Tensor methods see exactly what they would see for one example. Every op
reaches `BatchInterpreter.process`, which unwraps the batched inputs of its own level and
calls the primitive's `batch` rule with the interpreter below restored: the rule calls
ops on whole batches, which run eagerly, are traced (so `ms.jit(ms.vmap(f))` is one graph,
no Python loop at run time), or reach an outer vmap (nested vmap: one level per vmap, each
unwrapping only its own Batched values). Tensors that are not batched at this level
(Parameters, closed-over tensors, constants) pass through as they are.

Autodiff needs nothing special: `bind` records an op on the tape at the level where it was
called, after `process`. Under `grad(vmap(f))` the tracked tensors are the unbatched values
below vmap, so the batched computation the rules emit is what gets recorded and
differentiated. Under `vmap(grad(f))` grad watches batched tensors, so the tape holds
batch-level nodes whose bprops run, batched, through this interpreter again.
(Unbatched tracked tensors, such as Parameters, are tracked at both levels; the node at the
level that does not differentiate them is never walked.)

Random ops (dropout) draw independent values for every lane by default
(`randomness="different"`, as PyTorch's vmap offers); `randomness="same"` draws one lane's
values and shares them, MindSpore's documented behaviour.
"""
from typing import Any, Callable

import inspect

import numpy as np

from ..context.interpreter import STATE, Interpreter, using
from ..core.cell_base import CellBase
from ..core.tensor import Tensor
from ..ops import batching
from ..ops import functional as F
from ..ops.batching import VmapError
from ..ops.primitive import OpError, user_frame_summary
from . import tape

RANDOMNESS = ("different", "same")


class Batched:
    """The value of a tensor inside vmap: the whole batch `value` (a Tensor of the
    interpreter below) with its batch axis at `dim`, for the vmap level `level`. Shape and
    dtype are one lane's."""

    __slots__ = ("value", "dim", "level")

    def __init__(self, value, dim, level):
        self.value, self.dim, self.level = value, dim, level

    @property
    def shape(self):
        shape = self.value.shape
        return shape[:self.dim] + shape[self.dim + 1:]

    @property
    def dtype(self):
        return self.value._data.dtype

    def __array__(self, dtype=None, copy=None):
        raise VmapError("vmap: a tensor batched by vmap has one value per lane, so Python "
                        "cannot read it as one value (asnumpy(), float(), bool(), `if "
                        "tensor:`, print) inside the vmapped function; compute with ops "
                        "(ops.where for a branch, ops.print_values to print), or return it. "
                        "(Or the tensor escaped its vmap.)")


class BatchInterpreter(Interpreter):
    """One vmap level: applies each primitive's batching rule on the interpreter below."""

    inlines_jit = True  # a jitted function called inside vmap runs inline, batched op by op

    def __init__(self, parent, axis_size, randomness):
        self.parent = parent
        self.axis_size = axis_size
        self.randomness = randomness

    def process(self, prim, args, attrs):
        values, dims = [], []
        for a in args:
            data = getattr(a, "_data", None)
            if type(data) is Batched and data.level is self:
                values.append(data.value)
                dims.append(data.dim)
            else:
                values.append(a)
                dims.append(None)
        try:
            with using(self.parent):
                out, out_dims = self._apply(prim, values, dims, attrs)
        except OpError as e:
            # restate the failure with the shapes the user's code sees (one lane's)
            raise prim.explain_failure(args, attrs, e) from None
        if prim.multiple_results:
            return tuple(self.batched(o, d) for o, d in zip(out, out_dims))
        return self.batched(out, out_dims)

    def _apply(self, prim, values, dims, attrs):
        rule = prim.batch
        if rule is None and prim.expr is not None:
            rule = batching.elementwise  # elementwise rows share the broadcasting rule
        random = getattr(rule, "draws_random", False)
        if random and self.randomness == "same":
            values = [batching.lane(v, d, 0) for v, d in zip(values, dims)]
            dims = [None] * len(values)
        if all(d is None for d in dims) and not (random and self.randomness == "different"):
            out = prim(*values, **attrs)
            return out, ((None,) * len(out) if prim.multiple_results else None)
        if rule is None:
            return batching.loop(prim, values, dims, self.axis_size, **attrs)
        return rule(prim, values, dims, self.axis_size, **attrs)

    def batched(self, value, dim):
        """A tensor of this level holding `value` (batch axis at `dim`; None: unbatched)."""
        return value if dim is None else Tensor._wrap(Batched(value, dim, self))

    def unbatched(self, x, out_axis):
        """x (a tensor of this level) as a tensor below it, its batch axis at `out_axis`."""
        data = x._data
        if type(data) is Batched and data.level is self:
            return batching.move_axis(data.value, data.dim, out_axis % (data.value.ndim))
        shape = tuple(x.shape)
        out_axis %= len(shape) + 1
        expanded = F.reshape(x, shape[:out_axis] + (1,) + shape[out_axis:])
        return F.broadcast_to(expanded, shape[:out_axis] + (self.axis_size,) + shape[out_axis:])


def vmap(fn: Callable[..., Any], in_axes: Any = 0, out_axes: Any = 0, *,
         randomness: str = "different") -> Callable[..., Any]:
    """Vectorize fn over a batch axis of its inputs: the returned function takes inputs with an
    extra axis, runs fn on all lanes at once (each op batched, no Python loop) and returns
    outputs with the batch axis where out_axes says.

    Args:
        fn: function or Cell. Its Parameters (and any tensor it closes over) are the same for
            every lane.
        in_axes: int or None for every argument, or a tuple/list with one entry per positional
            argument; an entry may nest like the argument (tuples, lists, dicts). An int is
            the batch axis of every tensor in that argument, None means not batched. At least
            one tensor must be batched, and all batched tensors must agree on the batch size.
        out_axes: int, None, or nested like fn's outputs: where each output's batch axis
            goes. An output that does not depend on the batch is broadcast along it (None
            leaves it as it is; a batched output cannot have None).
        randomness: "different" (each lane draws its own random values, e.g. its own dropout
            mask) or "same" (one draw shared by every lane, MindSpore's behaviour).

    Keyword arguments of the returned function are passed to fn unbatched. Composes with
    grad/jvp/vjp (in either order) and with itself; ``ms.jit(ms.vmap(fn))`` compiles the
    batched function into one graph (a jitted function called inside vmap runs inline).

    >>> import minispore as ms
    >>> ms.vmap(ms.ops.sum, in_axes=1)(ms.ops.ones((2, 3)))
    Tensor(shape=[3], dtype=Float32, value= [ 2.00000000e+00,  2.00000000e+00,  2.00000000e+00])
    """
    _check_spec(in_axes, "in_axes")
    _check_spec(out_axes, "out_axes")
    if randomness not in RANDOMNESS:
        raise _error(f"randomness must be one of {RANDOMNESS}, got {randomness!r}")

    def vmapped(*args, **kwargs):
        return _call_batched(fn, in_axes, out_axes, randomness, args, kwargs)

    # a name for jit and reports; no __wrapped__, which would make inspect see fn's source
    vmapped.__name__ = vmapped.__qualname__ = f"vmap_{_name_of(fn)}"
    return vmapped


def _call_batched(fn, in_axes, out_axes, randomness, args, kwargs):
    inputs = _input_leaves(fn, in_axes, args)
    level = BatchInterpreter(STATE.interp, _axis_size(inputs), randomness)
    batched_args = _rebuild(args, iter([leaf if axis is None else
                                        level.batched(_as_tensor(leaf), axis)
                                        for _, leaf, axis in inputs]))
    with using(level):
        out = fn(*batched_args, **kwargs)
    if _is_leaf(out) and isinstance(out_axes, (tuple, list)) and len(out_axes) == 1:
        out_axes = out_axes[0]  # out_axes=(0,) for fn returning one tensor
    outputs = [_unbatched_output(level, leaf, axis, where)
               for where, leaf, axis in _walk(out_axes, out, "output", "out_axes")]
    result = _rebuild(out, iter(outputs))
    if STATE.recording == 0:
        tape.detach(result)  # nothing outside records: drop what grads inside fn recorded
    return result


# ***** in_axes / out_axes *****

def _check_spec(spec, name):
    if spec is None or (isinstance(spec, int) and not isinstance(spec, bool)):
        return
    if isinstance(spec, (tuple, list)):
        for s in spec:
            _check_spec(s, name)
        return
    if isinstance(spec, dict):
        for s in spec.values():
            _check_spec(s, name)
        return
    raise _error(f"{name} must be an int, None, or a tuple/list/dict of them, got "
                 f"{spec!r}")


def _is_leaf(x):
    return isinstance(x, (Tensor, np.ndarray))


def _walk(spec, tree, where, name):
    """(description, leaf, axis) for each tensor leaf of tree, in pytree order; spec is an
    axis for the whole subtree or nests like it."""
    if _is_leaf(tree):
        if isinstance(spec, (tuple, list, dict)):
            raise _error(f"{name} gives {spec!r} for {where}, which is a single tensor")
        yield where, tree, spec
    elif isinstance(tree, (tuple, list)):
        if isinstance(spec, (tuple, list)):
            if len(spec) != len(tree):
                raise _error(f"{name} has {len(spec)} entries for {where}, which has "
                             f"{len(tree)}")
            for i, (s, t) in enumerate(zip(spec, tree)):
                yield from _walk(s, t, f"{where}[{i}]", name)
        elif isinstance(spec, dict):
            raise _error(f"{name} gives a dict for {where}, which is a "
                         f"{type(tree).__name__}")
        else:
            for i, t in enumerate(tree):
                yield from _walk(spec, t, f"{where}[{i}]", name)
    elif isinstance(tree, dict):
        if isinstance(spec, dict) and set(spec) != set(tree):
            raise _error(f"{name} has keys {sorted(spec)} for {where}, which has keys "
                         f"{sorted(tree)}")
        if isinstance(spec, (tuple, list)):
            raise _error(f"{name} gives a {type(spec).__name__} for {where}, which is "
                         f"a dict")
        for k, t in tree.items():
            yield from _walk(spec[k] if isinstance(spec, dict) else spec, t, f"{where}[{k!r}]",
                             name)
    elif isinstance(tree, (bool, int, float, complex)) and spec is not None and name == "in_axes":
        raise _error(f"in_axes maps {where} along axis {spec}, but it is a Python "
                     f"{type(tree).__name__}, not a Tensor; give it in_axes None")


def _rebuild(tree, leaves):
    """tree with its tensor leaves replaced, in order, by the items of the iterator leaves."""
    if _is_leaf(tree):
        return next(leaves)
    if isinstance(tree, (tuple, list)):
        return type(tree)(_rebuild(t, leaves) for t in tree)
    if isinstance(tree, dict):
        return {k: _rebuild(t, leaves) for k, t in tree.items()}
    return tree


def _name_of(fn):
    return getattr(fn, "__name__", None) or type(fn).__name__


def _argument_names(fn):
    target = fn.construct if isinstance(fn, CellBase) else fn
    try:
        params = inspect.signature(target).parameters.values()
    except (TypeError, ValueError):
        return []
    return [p.name for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]


def _input_leaves(fn, in_axes, args):
    """(description, leaf, normalised axis or None) for every tensor leaf of args."""
    if isinstance(in_axes, (tuple, list)) and len(in_axes) != len(args):
        raise _error(f"in_axes has {len(in_axes)} entries but fn got {len(args)} positional "
                     f"argument(s)")
    if isinstance(in_axes, dict):
        raise _error("in_axes must be an int, None, or a tuple/list with one entry per "
                     "positional argument")
    names = _argument_names(fn)
    leaves = []
    for i, arg in enumerate(args):
        spec = in_axes[i] if isinstance(in_axes, (tuple, list)) else in_axes
        where = f"argument {i}" + (f" ({names[i]!r})" if i < len(names) else "")
        for desc, leaf, axis in _walk(spec, arg, where, "in_axes"):
            rank = len(leaf.shape)
            if axis is not None and rank == 0:
                raise _error(f"in_axes maps {desc} along axis {axis}, but it is 0-d: it has no "
                             f"axis to map; give it in_axes None")
            if axis is not None and not -rank <= axis < rank:
                raise _error(f"in_axes maps {desc} along axis {axis}, out of range for its "
                             f"shape {tuple(leaf.shape)} (valid: {-rank}..{rank - 1})")
            leaves.append((desc, leaf, None if axis is None else axis % rank))
    if all(axis is None for _, _, axis in leaves):
        raise _error("in_axes maps no tensor argument; at least one input must have a batch "
                     "axis")
    return leaves


def _axis_size(leaves):
    mapped = [(desc, leaf, axis) for desc, leaf, axis in leaves if axis is not None]
    sizes = {leaf.shape[axis] for _, leaf, axis in mapped}
    if len(sizes) > 1:
        listing = "; ".join(f"{desc} has size {leaf.shape[axis]} along axis {axis}"
                            for desc, leaf, axis in mapped)
        raise _error(f"inconsistent batch sizes along the mapped axes: {listing}")
    return sizes.pop()


def _as_tensor(leaf):
    return leaf if isinstance(leaf, Tensor) else Tensor(leaf)


def _unbatched_output(level, leaf, axis, where):
    leaf = _as_tensor(leaf)
    data = leaf._data
    batched = type(data) is Batched and data.level is level
    if axis is None:
        if batched:
            raise _error(f"{where} depends on the batch, but out_axes gives None for it")
        return leaf
    rank = len(leaf.shape) + 1
    if not -rank <= axis < rank:
        raise _error(f"out_axes puts the batch axis of {where} at {axis}, out of range for its "
                     f"batched rank {rank} (valid: {-rank}..{rank - 1})")
    with using(level.parent):
        return level.unbatched(leaf, axis)


def _error(message):
    where = user_frame_summary()
    return VmapError(f"vmap: {message}" + (f"\n  at {where}" if where else ""))
