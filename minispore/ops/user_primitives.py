"""Primitives users define: a subclass of `ops.PrimitiveWithInfer` (or `ops.Primitive`) with a
shape/dtype rule and an implementation, its gradient registered with `bprop_getters`.

    >>> class Cube(ops.PrimitiveWithInfer):
    ...     @prim_attr_register
    ...     def __init__(self, scale=1.0):
    ...         self.init_prim_io_names(inputs=["x"], outputs=["y"])
    ...     def infer_shape(self, x_shape):
    ...         return x_shape
    ...     def infer_dtype(self, x_dtype):
    ...         return x_dtype
    ...     def impl(self, x):                       # numpy (CuPy on GPU) arrays in and out
    ...         return self.scale * x ** 3
    >>> @bprop_getters.register(Cube)
    ... def get_bprop_cube(self):
    ...     def bprop(x, out, dout):                 # written with ops: any order, any mode
    ...         return (dout * 3.0 * self.scale * x * x,)
    ...     return bprop
    >>> Cube(scale=2.0)(ms.Tensor([1.0, 2.0]))
    Tensor(shape=[2], dtype=Float32, value= [ 2.00000000e+00,  1.60000000e+01])

Each subclass becomes one row of the primitive table (`ops.primitive`), named after the class:
eager, traced into Graph mode (its node names the user's line), differentiated by its bprop,
run once per lane under vmap (or batched by a `batch` method), listed in graph dumps. The
instance's public attributes (set in `__init__`; `prim_attr_register` records the arguments)
are the row's attributes, so instances configured alike share compiled programs.

The rule is MindSpore's: `infer_shape(*shapes)` (lists) and `infer_dtype(*dtypes)`
(minispore dtypes), or `__infer__(*inputs)` taking and returning dicts with "shape" and
"dtype". A tuple of shapes means several outputs. The implementation is `impl(*arrays)`.
A wrong implementation or bprop (another shape or dtype than the rule says, a wrong number
of gradients) raises an OpError naming the primitive and the user's line, in both modes.
"""
import functools
import inspect
from typing import Any, Callable

import numpy as np

from ..core.dtype import from_np, to_np
from ..core.errors import OpShapeError, OpTypeError, with_context
from ..core.ir import Aval
from ..core.source import user_frame_summary
from .classes import PrimitiveClass
from .primitive import REGISTRY, Primitive, aval_of, bind


class _BpropGetters:
    """MindSpore's `bprop_getters`: `@bprop_getters.register(PrimClass)` on a function
    `get(prim) -> bprop(*inputs, out, dout)`. Registering for a built-in class (ops.Sin)
    replaces that op's derivative everywhere, as in MindSpore."""

    def __init__(self):
        self._getters = {}

    def register(self, prim_class):
        def decorate(getter):
            self._getters[prim_class] = getter
            row = getattr(prim_class, "_row", None) or _builtin_row(prim_class)
            row.bprop = _checked_bprop(row.name, prim_class, getter)
            row.bprop_takes_needed = False
            return getter
        return decorate

    def get(self, prim_class):
        return self._getters.get(prim_class)


bprop_getters = _BpropGetters()


def prim_attr_register(init: Callable[..., None]) -> Callable[..., None]:
    """Decorate a primitive's `__init__`: its arguments (defaults included) become the
    primitive's attributes, as MindSpore's decorator of the same name does."""
    signature = inspect.signature(init)

    @functools.wraps(init)
    def wrapper(self: PrimitiveClass, *args: Any, **kwargs: Any) -> None:
        bound = signature.bind(self, *args, **kwargs)  # (a user's primitive: see add_prim_attr)
        bound.apply_defaults()
        for name, value in list(bound.arguments.items())[1:]:
            if signature.parameters[name].kind not in (inspect.Parameter.VAR_POSITIONAL,
                                                        inspect.Parameter.VAR_KEYWORD):
                self.add_prim_attr(name, value)
        return init(self, *args, **kwargs)
    return wrapper


def _call(self, *inputs):
    """A user's primitive called on tensors: its row, with its public attributes."""
    attrs = {k: v for k, v in vars(self).items() if not k.startswith("_")}
    row = type(self)._row
    if row.multiple_results is None:  # known from the rule's first answer: one or several
        found = row.infer(*[aval_of(x) for x in inputs], **attrs)
        row.multiple_results = not isinstance(found, Aval)
    return bind(row, *inputs, **attrs)


def _on_subclass(cls):
    """PrimitiveClass's subclass hook: a class defining a rule or an implementation is a
    user's primitive; it gets its row, and calling an instance binds it."""
    if _defines_a_rule(cls):
        cls._row = _register(cls)
        if "__call__" not in vars(cls):
            cls.__call__ = _call


PrimitiveClass.subclass_hook = _on_subclass
# MindSpore's names for the base of a primitive with a Python shape rule
PrimitiveWithInfer = PrimitiveWithCheck = PrimitiveClass


def _defines_a_rule(cls):
    return any(name in vars(cls) for name in ("infer_shape", "infer_dtype", "__infer__", "impl"))


def _register(cls):
    """The row of a user's primitive class."""
    name = free_name(cls.__name__, f"{cls.__module__}.{cls.__qualname__}")
    getter = getattr(cls, "bprop", None)
    infer = _infer_rule(cls)
    row = Primitive(name, infer=infer,
                    impl=checked_impl(name, infer, lambda *arrays, **attrs:
                                      _view(cls, attrs).impl(*arrays)),
                    bprop=None, multiple_results=None,
                    batch=_batch_rule(cls) if "batch" in vars(cls) else None,
                    doc=cls.__doc__)
    row.user_defined = True
    if getter is not None:  # a `bprop(self, *inputs, out, dout)` method: the simpler form
        row.bprop = _checked_bprop(name, cls, lambda prim: functools.partial(getter, prim))
    return row


def free_name(name, qualified):
    """`name`, or where a row has it already (a built-in, a class defined again in a
    notebook) the qualified name, numbered if needed."""
    if name not in REGISTRY:
        return name
    name, n = qualified, 1
    while name in REGISTRY:
        n += 1
        name = f"{qualified}#{n}"
    return name


@functools.lru_cache(maxsize=256)
def _instance(cls, attrs):
    """An instance of `cls` with the attributes `attrs` (rows carry attributes, not objects)."""
    prim = cls.__new__(cls)
    prim.__dict__.update(attrs)
    return prim


def _view(cls, attrs):
    return _instance(cls, tuple(sorted(attrs.items())))


def _infer_rule(cls):
    def infer(*avals, **attrs):
        prim = _view(cls, attrs)
        if hasattr(cls, "__infer__"):
            found = prim.__infer__(*[{"shape": list(a.shape), "dtype": from_np(a.dtype),
                                      "value": None} for a in avals])
            shapes, dtypes = found["shape"], found["dtype"]
        else:
            shapes = prim.infer_shape(*[list(a.shape) for a in avals])
            dtypes = prim.infer_dtype(*[from_np(a.dtype) for a in avals])
        if several(shapes):
            dtypes = dtypes if isinstance(dtypes, (tuple, list)) else [dtypes] * len(shapes)
            return tuple(Aval(tuple(s), np.dtype(to_np(d))) for s, d in zip(shapes, dtypes))
        return Aval(tuple(shapes), np.dtype(to_np(dtypes)))
    return infer


def several(shapes):
    return isinstance(shapes, (tuple, list)) and len(shapes) > 0 and \
        all(isinstance(s, (tuple, list)) for s in shapes)


def checked_impl(name, infer, run):
    """A row's impl calling `run(*arrays, **attrs)`, whose output must be what `infer` says
    (a user's implementation is checked; minispore's own rows are trusted)."""
    def impl(xp, *arrays, **attrs):
        out = run(*arrays, **attrs)
        expected = infer(*[aval_of(a) for a in arrays], **attrs)
        several = not isinstance(expected, Aval)  # (an Aval is itself a tuple)
        outs = tuple(out) if several else (out,)
        wanted = expected if several else (expected,)
        if len(outs) != len(wanted):
            # plain errors: the interpreter running the row adds the op, inputs and user line
            raise TypeError(f"{name}'s implementation returned {len(outs)} outputs where "
                            f"its rule says {len(wanted)}")
        outs = tuple(xp.asarray(o) for o in outs)
        for k, (o, w) in enumerate(zip(outs, wanted)):
            if tuple(o.shape) != tuple(w.shape) or o.dtype != w.dtype:
                raise ValueError(f"{name}'s implementation returned output {k} as "
                                 f"{from_np(o.dtype)}{list(o.shape)} where its rule says "
                                 f"{from_np(w.dtype)}{list(w.shape)}")
        return outs if several else outs[0]
    return impl


def _checked_bprop(name, cls, getter):
    """The bprop of a primitive class's row: `getter(prim)`'s rule, checked."""
    def rule(*args, **attrs):
        prim = _view(cls, attrs) if hasattr(cls, "_row") else cls()
        return getter(prim)(*args)
    return checked_bprop(name, rule)


def checked_bprop(name, rule):
    """A row's bprop calling the user's `rule(*inputs, out, dout)`, checked for one gradient
    per input, each of its input's shape (when it runs: eagerly in PyNative, while tracing
    in Graph mode), so that a wrong rule names the op and the user's line."""
    def bprop(*args, **attrs):
        *inputs, out, dout = args
        grads = rule(*inputs, out, dout, **attrs)
        grads = grads if isinstance(grads, (tuple, list)) else (grads,)
        where = user_frame_summary()
        avals = [aval_of(x) for x in inputs]
        if len(grads) != len(inputs):
            raise OpTypeError(with_context(name, avals, attrs,
                                           f"its bprop returned {len(grads)} gradients for "
                                           f"{len(inputs)} inputs", where))
        for k, (g, x) in enumerate(zip(grads, avals)):
            if g is not None and tuple(aval_of(g).shape) != tuple(x.shape):
                raise OpShapeError(with_context(
                    name, avals, attrs, f"its bprop returned gradient {k} of shape "
                    f"{tuple(aval_of(g).shape)} for an input of shape {tuple(x.shape)}", where))
        return tuple(grads)
    return bprop


def _batch_rule(cls):
    def batch(prim_row, args, dims, axis_size, **attrs):
        return _view(cls, attrs).batch(args, dims, axis_size)
    return batch


def _builtin_row(prim_class):
    """The row behind a built-in class made by `classes.simple_class` (ops.Sin -> sin)."""
    fn = getattr(prim_class, "_function", None)
    row = REGISTRY.get(getattr(fn, "__name__", None)) if fn is not None else None
    if row is None:
        raise TypeError(f"bprop_getters.register: {prim_class.__name__} is not one primitive "
                        f"(register the bprop of a PrimitiveWithInfer subclass, or of a "
                        f"built-in class such as ops.Sin)")
    return row
