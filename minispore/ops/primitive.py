"""The primitive table: every computation in minispore is a row here.

A row is `Primitive(name, infer=..., impl=..., bprop=..., [expr=..., batch=..., ...])`:

* ``infer(*avals, **attrs) -> Aval | tuple[Aval]`` — the shape/dtype rule on abstract values
  (`Aval(shape, dtype)`, dtype a numpy dtype). Used by the tracer (Graph mode) and to explain
  a failing eager op. Raise `OpError` subclasses with a message naming what is wrong.
* ``impl(xp, *arrays, **attrs) -> array | tuple`` — the computation, written against the array
  namespace `xp` (numpy on CPU, CuPy on GPU) so one line serves both devices.
* ``bprop(*inputs, out, dout, **attrs) -> tuple`` — the backward rule in MindSpore's argument
  order, written only with `minispore.ops` calls, one gradient per input (`None`: no gradient).
  Because it is made of ops, the same rule runs eagerly (PyNative), is traced into the graph
  (Graph mode), and is recorded again for higher-order gradients (forward mode, jvp and
  jacfwd, derives from it: the double-vjp trick). A rule that declares a keyword-only
  ``needed`` receives one bool per input saying whether that input's gradient is wanted
  (False for a data batch, labels, a frozen weight), so it can skip the work, like PyTorch's
  ``ctx.needs_input_grad``; its default, `ALL`, says every gradient is wanted (a rule called
  directly).
* ``expr`` (elementwise ops) — a scalar template such as ``"tanh({0})"`` for fused kernels.
* ``batch`` (optional) — the vmap rule ``batch(prim, args, dims, axis_size, **attrs) ->
  (out, out_dims)``: args carry the batch axis, at ``dims[i]`` (None: same for every lane);
  written with ops, like bprop (see ``ops.batching``). Elementwise rows (with ``expr``) use
  the shared broadcasting rule unless they give one; another row without one runs once per
  lane.
* ``in_place`` (optional) — ``in_place(xp, *arrays, **attrs)``: a function of no arguments
  that writes the result into the first input's buffer (which has the result's shape and
  dtype) and returns it, or None where that cannot be done. Preparing it may allocate and
  fail; the write must not. Graph mode uses it for a state update (SGD's ``w - lr * g``)
  when nothing else can see the old value: no new buffer, no copy (see `compiler.executor`).
* ``into`` (optional) — ``into(xp, out, *arrays, **attrs)``: the result written into `out`, a
  C-contiguous array of its shape and dtype (returned), or None where that cannot be done.
  Graph mode uses it to compute a gradient straight into its slice of an all-reduce bucket.
* ``multiple_results`` — impl returns a tuple; ``dout`` in bprop is then a tuple too.
* ``effect`` — writes state (assign): never removed or reordered by graph passes.
* ``host_io`` — impl exchanges data with the host on every run (draws from numpy's generator,
  prints, tests a loop condition in Python): a recorded replay of the device work alone would
  repeat the first run's values, so a program with such a step is never replayed as a CUDA graph.

Array data is positional, static attributes are keywords (hashable: they are part of graph
cache keys). Calling a primitive binds it to the current interpreter: `prim(x, y, axis=0)`.
"""
import inspect
from types import MappingProxyType

import numpy as np

from ..context.interpreter import STATE
from ..core.dtype import default_np_dtype
from ..core.errors import OpError, OpShapeError, OpTypeError, with_context  # noqa: F401
from ..core.ir import Aval
from ..core.source import user_frame_summary  # noqa: F401  (rows name the user's line)

REGISTRY = {}


class _All:
    """`needed` of a bprop called outside the backward engine: every input's gradient."""

    def __getitem__(self, index):
        return True


ALL = _All()


class Primitive:
    """One row of the primitive table (see the module docstring)."""

    def __init__(self, name, *, infer, impl, bprop, expr=None, batch=None, in_place=None,
                 into=None, multiple_results=False, effect=False, host_io=False, doc=None):
        if name in REGISTRY:
            raise ValueError(f"primitive {name!r} is defined twice")
        self.name = self.__name__ = name
        self.infer = infer
        self.impl = impl
        self.bprop = bprop
        # whether the backward engine passes `needed` (see the module docstring)
        self.bprop_takes_needed = bprop is not None and \
            "needed" in inspect.signature(bprop).parameters
        self.expr = expr
        self.batch = batch
        self.in_place = in_place
        self.into = into
        self.multiple_results = multiple_results
        self.effect = effect
        self.host_io = host_io
        self.user_defined = False  # a user's primitive (ops.user_primitives, ops.Custom)
        self.__doc__ = doc
        REGISTRY[name] = self

    def __call__(self, *args, **attrs):
        return bind(self, *args, **attrs)

    def __repr__(self):
        return f"<primitive {self.name}>"

    def explain_failure(self, args, attrs, error, where=None):
        """The OpError to raise when this primitive failed on `args` (arrays, Tensors or
        avals): the shape/dtype rule's complaint if it has one, otherwise `error` restated
        with the inputs. Every mode raises this one (eager ops, tracing, compiled steps), so
        the class, the op, the inputs and the user's line (`where`, see with_context) agree."""
        if any(a is None for a in args):  # an impl may read None as nan: say so first
            shown = ["None" if a is None else aval_of(a) for a in args]
            position = next(i for i, a in enumerate(args) if a is None)
            return OpTypeError(with_context(self.name, shown, attrs, f"input {position} is "
                                            f"None; expected a Tensor", where))
        avals = [aval_of(a) for a in args]
        try:
            inspect.signature(self.infer).bind(*avals, **attrs)
        except TypeError as e:  # wrong number of inputs, unknown attribute
            message = _wrong_arguments(self.infer, len(avals), attrs, e)
            return OpTypeError(with_context(self.name, avals, attrs, message, where))
        try:
            self.infer(*avals, **attrs)
        except OpError as e:
            return type(e)(with_context(self.name, avals, attrs, str(e), where))
        except Exception:  # the rule itself choked on bad input: report the original error
            pass
        cls = OpTypeError if isinstance(error, TypeError) else OpShapeError
        return cls(with_context(self.name, avals, attrs, f"{type(error).__name__}: {error}",
                                where))


def _wrong_arguments(infer, given, attrs, error):
    """What is wrong with a call that the rule's signature rejects: the number of inputs when
    that is it, else the signature's complaint (an unknown or missing attribute)."""
    params = inspect.signature(infer).parameters.values()
    if any(p.kind is p.VAR_POSITIONAL for p in params):
        return f"wrong arguments: {error}"
    # the inputs: positional parameters that are not attributes (attributes come as keywords)
    takes = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) and p.name not in attrs
                and p.default is p.empty for p in params)
    if given != takes:
        return f"takes {takes} input(s), got {given}"
    return f"wrong arguments: {error}"


def bind(prim, *args, **attrs):
    """Run `prim` in the current interpreter; record it on the tape if gradients are wanted
    (a differentiation transform installs the recorder: see context.interpreter)."""
    state = STATE
    out = state.interp.process(prim, args, attrs)
    if state.recording:
        state.record(prim, args, attrs, out)
    return out


_NO_ATTRS = MappingProxyType({})


def bind_positional(prim, *args):
    """`bind` for a call without attributes: the eager hot path (elementwise ops) skips
    building a keyword dict for every op."""
    state = STATE
    out = state.interp.process(prim, args, _NO_ATTRS)
    if state.recording:
        state.record(prim, args, _NO_ATTRS, out)
    return out


def aval_of(x):
    """Abstract value of a Tensor, array or Python scalar."""
    data = getattr(x, "_data", x)
    if isinstance(data, (bool, int, float)):
        return Aval((), default_np_dtype(data))
    if data is None:
        return Aval((), np.dtype(np.float32))
    return Aval(tuple(data.shape), np.dtype(data.dtype))

