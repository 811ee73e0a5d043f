"""Walks the primitive table: every primitive is checked here, so none escapes its tests.

For each primitive in `minispore.ops.primitive.REGISTRY`:
(a) it has an entry in SAMPLES below, and infer/impl/bprop callables;
(b) `infer` agrees with `impl` (output shapes and dtypes) on its samples;
(c) its bprop passes a float64 central finite-difference check (the vjp with a random
    cotangent against the FD gradient of sum(out * cotangent)) for every float input;
    primitives without a derivative are listed in NO_GRADIENT and must return None;
(d) elementwise primitives (those with `expr`) also pass a second-order check: the grad of
    their vjp against finite differences of the vjp;
(e) forward values and gradients agree in both modes (`mode` fixture, helpers.run_in_mode).

HOW TO ADD AN ENTRY (one per new primitive; a primitive without one fails CI):

    SAMPLES["my_op"] = lambda rng: sample(normal(rng, (2, 3)), positive(rng, (3,)), axis=1)

A recipe takes a seeded `numpy.random.Generator` and returns a `Sample` or a list of them.
`sample(*inputs, **attrs)` builds one: inputs are numpy arrays, passed positionally to the
primitive as Tensors; attrs are its keyword attributes exactly as `bind` receives them
(tuples, not lists; numpy dtypes for dtype attributes). Rules:
* float inputs are float64 (the finite-difference check needs the precision); integer and
  bool inputs (indices, masks) are never differentiated;
* respect the domain and stay away from kinks, where the FD check is meaningless: use
  `positive` for log/sqrt, `away_from_zero` for abs/relu, no ties for max/sort;
* binary elementwise ops take `broadcast_pair(rng)` shapes, so broadcasting is checked;
* a sample needing a looser check (e.g. a float32 output) says so:
  `sample(...)._replace(step=1e-3, rtol=1e-4)`;
* a primitive with no derivative (its bprop returns None for every input) goes into
  NO_GRADIENT as well.
"""
import sys
import zlib
from typing import NamedTuple

import numpy as np
import pytest
from helpers import assert_close, numeric_grad, run_in_mode, to_numpy
from ops import collective_samples, ctc_samples, recurrence_samples, surface_samples  # tests/ is on sys.path (the conftest's folder)

import minispore as ms
from minispore.ops.indexing import parse_index
from minispore.ops.primitive import REGISTRY, Aval, OpError, aval_of


class Sample(NamedTuple):
    """Inputs and attributes for one call of a primitive, and its FD check's tolerances."""
    inputs: tuple        # numpy arrays
    attrs: dict          # keyword attributes for the primitive
    step: float = 1e-6   # finite-difference step
    rtol: float = 1e-5
    atol: float = 1e-6


def sample(*inputs, **attrs):
    return Sample(tuple(np.asarray(a) for a in inputs), attrs)


# ***** input builders (all float64) *****

def normal(rng, shape, scale=1.0):
    return np.asarray(rng.standard_normal(shape) * scale, np.float64)


def uniform(rng, shape, low, high):
    return np.asarray(rng.uniform(low, high, shape), np.float64)


def positive(rng, shape, low=0.5, high=2.0):
    return uniform(rng, shape, low, high)


def away_from_zero(rng, shape, low=0.3, high=2.0):
    """|x| in [low, high] with random signs: clear of the kink at 0 of abs/relu/sign."""
    return uniform(rng, shape, low, high) * rng.choice([-1.0, 1.0], shape)


def ints(rng, shape, high, low=0):
    return np.asarray(rng.integers(low, high, shape), np.int64)


def bools(rng, shape):
    return np.asarray(rng.random(shape) < 0.5)


def distinct(rng, shape, spacing=0.1):
    """Values at least `spacing` apart: no ties, so a max/argmax is stable under FD steps."""
    return np.asarray(rng.permutation(int(np.prod(shape))).reshape(shape) * spacing - 1.0, np.float64)


def broadcast_pair(rng):
    """Two random shapes of rank <= 3 that broadcast against each other, never equal."""
    full = tuple(int(d) for d in rng.integers(2, 5, rng.integers(1, 4)))
    short = list(full[rng.integers(0, len(full) + 1):])
    if short:
        short[rng.integers(0, len(short))] = 1
    pair = (full, tuple(short))
    return pair if rng.random() < 0.5 else pair[::-1]


def unary(build):
    """Recipe for a unary op whose input is build(rng, shape) on a random shape."""
    return lambda rng: sample(build(rng, random_shape(rng)))


def random_shape(rng):
    """A shape of rank 0 to 3 with sizes 1 to 4."""
    return tuple(int(d) for d in rng.integers(1, 5, rng.integers(0, 4)))


def binary(build_x, build_y=None):
    """Recipe for a broadcasting binary op: inputs build_x(rng, shape), build_y(rng, shape)."""
    def recipe(rng):
        sx, sy = broadcast_pair(rng)
        return sample(build_x(rng, sx), (build_y or build_x)(rng, sy))
    return recipe


def with_index(x, index, *more_inputs):
    """Sample for getitem-style primitives: x, more inputs, then the index tensors."""
    spec, tensors = parse_index(index)
    return sample(x, *more_inputs, *(t.asnumpy() for t in tensors), index=spec)


F32 = np.dtype(np.float32)
F64 = np.dtype(np.float64)
I64 = np.dtype(np.int64)
CONV = dict(stride=(2, 1), padding=(1, 0, 2, 1), dilation=(1, 2), groups=2)
POOL = dict(kernel_size=(2, 3), stride=(2, 1), padding=(1, 0, 1, 1), dilation=(1, 1))
TILE = dict(kernel_size=(2, 2), stride=(2, 2), padding=(0, 0, 0, 0), dilation=(1, 1))

SAMPLES = {
    # ----- elementwise unary -----
    "neg": unary(normal),
    "abs": unary(away_from_zero),
    "exp": unary(normal),
    "log": unary(positive),
    "log1p": unary(lambda rng, s: uniform(rng, s, -0.5, 2.0)),
    "expm1": unary(normal),
    "sqrt": unary(positive),
    "rsqrt": unary(positive),
    "sin": unary(normal),
    "cos": unary(normal),
    "tan": unary(lambda rng, s: uniform(rng, s, -1.2, 1.2)),
    "tanh": unary(normal),
    "sigmoid": unary(lambda rng, s: normal(rng, s, 3.0)),
    "relu": unary(away_from_zero),
    "erf": unary(normal),
    "sign": unary(away_from_zero),
    "floor": unary(lambda rng, s: normal(rng, s, 3.0)),
    "ceil": unary(lambda rng, s: normal(rng, s, 3.0)),
    "round": unary(lambda rng, s: normal(rng, s, 3.0)),
    "logical_not": unary(bools),
    "bitwise_not": unary(lambda rng, s: ints(rng, s, 100, -100)),
    "identity": unary(normal),
    "stop_gradient": unary(normal),
    "cast": lambda rng: [
        # float64 -> float32 output: the FD sees float32 rounding, hence the larger step
        sample(normal(rng, (2, 3)), dtype=F32)._replace(step=1e-2, rtol=1e-4, atol=1e-5),
        sample(normal(rng, (3,)).astype(np.float32), dtype=np.dtype(np.float64))
        ._replace(step=1e-2, rtol=1e-4, atol=1e-5),
        sample(ints(rng, (4,), 10), dtype=np.dtype(np.float64)),
    ],
    # ----- elementwise binary -----
    "add": binary(normal),
    "sub": binary(normal),
    "mul": binary(normal),
    "div": binary(normal, away_from_zero),
    "floor_div": binary(lambda rng, s: normal(rng, s, 3.0), positive),
    "floor_mod": binary(lambda rng, s: normal(rng, s, 3.0), positive),
    "pow": binary(positive, normal),
    "maximum": binary(normal),
    "minimum": binary(normal),
    # small integers as floats: equal elements do occur
    "equal": lambda rng: sample(ints(rng, (3, 4), 3).astype(np.float64),
                                ints(rng, (4,), 3).astype(np.float64)),
    "not_equal": binary(lambda rng, s: ints(rng, s, 3).astype(np.float64)),
    "less": binary(normal),
    "less_equal": binary(normal),
    "greater": binary(normal),
    "greater_equal": binary(normal),
    "logical_and": binary(bools),
    "logical_or": binary(bools),
    "logical_xor": binary(bools),
    "select": lambda rng: [sample(bools(rng, (3, 1)), normal(rng, (1, 4)), normal(rng, (4,))),
                           sample(bools(rng, (2, 3)), normal(rng, (2, 3)), normal(rng, ()))],
    # ----- shapes -----
    "reshape": lambda rng: [sample(normal(rng, (2, 3, 4)), shape=(4, 6)),
                            sample(normal(rng, (1, 3)), shape=(3,))],
    "transpose": lambda rng: sample(normal(rng, (2, 3, 4)), perm=(2, 0, 1)),
    "broadcast_to": lambda rng: [sample(normal(rng, (3, 1)), shape=(2, 3, 4)),
                                 sample(normal(rng, ()), shape=(2,))],
    "concat": lambda rng: [sample(normal(rng, (2, 1)), normal(rng, (2, 3)), normal(rng, (2, 2)),
                                  axis=1),
                           sample(normal(rng, (2, 2)), normal(rng, (1, 2)), axis=0)],
    "split_v": lambda rng: [sample(normal(rng, (2, 6)), axis=1, sections=(1, 3, 2)),
                            sample(normal(rng, (3, 2, 2)), axis=0, sections=(1, 1, 1))],
    "pad": lambda rng: sample(normal(rng, (2, 3)), paddings=((1, 0), (2, 1)), value=0.5),
    # ----- indexing -----
    "getitem": lambda rng: [
        with_index(normal(rng, (4, 5, 3)), (slice(1, None, 2), Ellipsis, -1)),
        with_index(normal(rng, (4, 5, 3)), (None, ms.Tensor([0, 2, 2]), slice(None, None, -2))),
        with_index(normal(rng, (3, 4)), (ms.Tensor([[0, 1], [2, 0]]), ms.Tensor([3, 3]))),
    ],
    "index_add": lambda rng: [
        with_index(normal(rng, (4, 5)), (ms.Tensor([0, 2, 0]),), normal(rng, (3, 5))),
        with_index(normal(rng, (4, 5)), (slice(None), 1), normal(rng, (4,))),
    ],
    "index_add_many": lambda rng: [
        # a scalar base; an int row and a block that overlaps it
        sample(normal(rng, ()), normal(rng, (5,)), normal(rng, (2, 2)),
               index=((("int", 1),), (("slice", 1, 3, None), ("slice", 1, 3, None))),
               shape=(4, 5)),
        # a full-size base; a repeated index tensor, then a strided slice
        sample(normal(rng, (4, 5)), normal(rng, (3, 5)), normal(rng, (4, 2)),
               np.array([0, 2, 0]),
               index=((("tensor", 0),), (("ellipsis",), ("slice", None, None, 3))),
               shape=(4, 5)),
    ],
    "setitem": lambda rng: [
        with_index(normal(rng, (4, 5)), (slice(1, 3),), normal(rng, (5,))),
        with_index(normal(rng, (4, 5)), (ms.Tensor([3, 1]), slice(None, None, 2)),
                   normal(rng, (2, 3))),
    ],
    "take_along_axis": lambda rng: sample(normal(rng, (3, 4)), ints(rng, (3, 6), 4), axis=1),
    "scatter_add_along_axis": lambda rng: sample(normal(rng, (3, 4)), ints(rng, (2, 4), 3),
                                                 normal(rng, (2, 4)), axis=0),
    "sort": lambda rng: [sample(normal(rng, (3, 5)), axis=1, descending=False),
                         sample(normal(rng, (4, 2)), axis=0, descending=True)],
    # ----- linear algebra -----
    "matmul": lambda rng: [sample(normal(rng, (2, 3, 4)), normal(rng, (4, 5))),
                           sample(normal(rng, (2, 1, 3, 4)), normal(rng, (5, 4, 2))),
                           sample(normal(rng, (4, 3)), normal(rng, (4, 5)), transpose_a=True),
                           sample(normal(rng, (2, 3, 4)), normal(rng, (5, 4)), transpose_b=True),
                           sample(normal(rng, (4, 3)), normal(rng, (2, 5, 4)), transpose_a=True,
                                  transpose_b=True)],
    "addmm": lambda rng: [sample(normal(rng, (3, 5)), normal(rng, (3, 4)), normal(rng, (4, 5)),
                                 normal(rng, ())),
                          sample(normal(rng, (5,)), normal(rng, (2, 3)), normal(rng, (3, 5)),
                                 np.asarray(-0.5)),
                          sample(normal(rng, (3, 5)), normal(rng, (4, 3)), normal(rng, (5, 4)),
                                 normal(rng, ()), transpose_a=True, transpose_b=True),
                          sample(normal(rng, (3, 1)), normal(rng, (3, 4)), normal(rng, (5, 4)),
                                 normal(rng, ()), transpose_b=True)],
    # ----- reductions -----
    "reduce_sum": lambda rng: [sample(normal(rng, (2, 3, 4)), axis=(0, 2), keep_dims=False),
                               sample(normal(rng, (2, 3)), axis=None, keep_dims=True),
                               sample(bools(rng, (2, 3)), axis=(1,), keep_dims=False)],
    "reduce_max": lambda rng: [sample(normal(rng, (2, 3, 4)), axis=(1,), keep_dims=False),
                               sample(normal(rng, (3, 2)), axis=None, keep_dims=True)],
    "reduce_min": lambda rng: [sample(normal(rng, (2, 3, 4)), axis=(0, 2), keep_dims=True),
                               sample(normal(rng, (3, 2)), axis=None, keep_dims=False)],
    "reduce_prod": lambda rng: [sample(away_from_zero(rng, (2, 3, 4), 0.5, 1.5), axis=(1,),
                                       keep_dims=False),
                                sample(away_from_zero(rng, (3, 2), 0.5, 1.5), axis=None,
                                       keep_dims=True),
                                # exact zeros: one in a row, two in a row (prod is multilinear,
                                # so the FD check is exact there too)
                                sample(normal(rng, (3, 3)) * [[0, 1, 1], [0, 1, 0], [1, 1, 1]],
                                       axis=(1,), keep_dims=False)],
    "reduce_all": lambda rng: sample(bools(rng, (2, 3)), axis=(1,), keep_dims=False),
    "reduce_any": lambda rng: sample(bools(rng, (2, 3)), axis=None, keep_dims=True),
    "argmax": lambda rng: [sample(normal(rng, (3, 4)), axis=1, keep_dims=False, dtype=I64),
                           sample(normal(rng, (3, 4)), axis=None, keep_dims=True,
                                  dtype=np.dtype(np.int32))],
    "argmin": lambda rng: sample(normal(rng, (3, 4)), axis=0, keep_dims=True, dtype=I64),
    "cumsum": lambda rng: [sample(normal(rng, (3, 4)), axis=1, reverse=False),
                           sample(normal(rng, (3, 4)), axis=0, reverse=True)],
    # ----- state -----
    "assign": lambda rng: [sample(normal(rng, (2, 3)), normal(rng, (2, 3))),
                           sample(normal(rng, (2, 3)), normal(rng, (3,)))],
    "print": lambda rng: sample(normal(rng, (2,)), template=("x =", None), sep=" ", end="\n"),
    "all_finite": lambda rng: [sample(normal(rng, (2, 3)), normal(rng, (4,))),
                               sample(normal(rng, (3,)), np.array([1.0, np.inf]),
                                      np.array([[np.nan]]))],
    # ----- neural network; CONV/POOL attrs below give a (2, 6, 2, 7) conv output
    #       of a (2, 4, 5, 6) input and (6, 2, 3, 2) weight, a (2, 2, 3, 6) pool of (2, 2, 5, 6) -----
    "conv2d": lambda rng: [sample(normal(rng, (2, 4, 5, 6)), normal(rng, (6, 2, 3, 2)), **CONV),
                           sample(normal(rng, (1, 2, 4, 4)), normal(rng, (3, 2, 2, 2)), stride=(1, 1),
                                  padding=(0, 0, 0, 0), dilation=(1, 1), groups=1)],
    "conv2d_input_grad": lambda rng: sample(normal(rng, (2, 6, 2, 7)), normal(rng, (6, 2, 3, 2)),
                                            input_size=(5, 6), **CONV),
    "conv2d_filter_grad": lambda rng: sample(normal(rng, (2, 4, 5, 6)), normal(rng, (2, 6, 2, 7)),
                                             kernel_size=(3, 2), **CONV),
    "max_pool2d": lambda rng: [sample(distinct(rng, (2, 2, 5, 6)), **POOL),
                               sample(distinct(rng, (1, 2, 5, 5)), kernel_size=(2, 2), stride=(1, 1),
                                      padding=(0, 0, 0, 0), dilation=(2, 1)),
                               sample(distinct(rng, (1, 2, 4, 6)), **TILE)],
    # index: kernel offsets of the (2, 3) window; TILE: windows that tile the input (fast path)
    "max_pool2d_grad": lambda rng: [sample(ints(rng, (2, 2, 3, 6), 6), normal(rng, (2, 2, 3, 6)),
                                           input_size=(5, 6), **POOL),
                                    sample(ints(rng, (1, 2, 2, 3), 4), normal(rng, (1, 2, 2, 3)),
                                           input_size=(4, 6), **TILE)],
    "max_pool2d_gather": lambda rng: [sample(ints(rng, (2, 2, 3, 6), 6), normal(rng, (2, 2, 5, 6)),
                                             **POOL),
                                      sample(ints(rng, (1, 2, 2, 3), 4), normal(rng, (1, 2, 4, 6)),
                                             **TILE)],
    # random: p=0 keeps every element, the one draw whose value is reproducible across runs
    "dropout_mask": lambda rng: sample(normal(rng, (3, 4)), p=0.0, seed=None),
    "softmax": lambda rng: [sample(normal(rng, (3, 4), 3.0), axis=(1,)),
                            sample(normal(rng, (2, 3, 2)), axis=(0, 2)),
                            sample(normal(rng, ()), axis=())],
    # a mask-like bias broadcast along some axes; bias -1e30 (a masked key) included
    "biased_softmax": lambda rng: [
        sample(normal(rng, (2, 3, 4), 3.0), normal(rng, (1, 3, 4)), scale=0.5),
        sample(normal(rng, (2, 3, 4)), np.where(rng.random((2, 1, 4)) > 0.7, -1e30, 0.0),
               scale=1.0)],
    "log_softmax": lambda rng: [sample(normal(rng, (3, 4), 3.0), axis=(1,)),
                                sample(normal(rng, (2, 3, 2)), axis=(0, 2)),
                                sample(normal(rng, ()), axis=())],
    # label 1 is ignored in the first sample; ignore_index None counts every label
    "sparse_softmax_cross_entropy": lambda rng: [
        sample(normal(rng, (5, 4), 3.0), np.array([2, 1, 0, 3, 1]), ignore_index=1,
               reduction=reduction) for reduction in ("mean", "sum", "none")] + [
        sample(normal(rng, (3, 2)), ints(rng, (3,), 2), ignore_index=None, reduction="mean")],
    "sparse_softmax_cross_entropy_and_grad": lambda rng: [
        sample(normal(rng, (5, 4), 3.0), np.array([2, 1, 0, 3, 1]),
               normal(rng, (5,) if reduction == "none" else ()), ignore_index=1,
               reduction=reduction) for reduction in ("mean", "none")] + [
        sample(normal(rng, (3, 2)), ints(rng, (3,), 2), normal(rng, ()), ignore_index=None,
               reduction="sum")],
    "sparse_softmax_cross_entropy_grad": lambda rng: [
        sample(normal(rng, (5, 4), 3.0), np.array([2, 1, 0, 3, 1]),
               normal(rng, (5,) if reduction == "none" else ()), ignore_index=1,
               reduction=reduction) for reduction in ("mean", "sum", "none")] + [
        sample(normal(rng, (3, 2)), ints(rng, (3,), 2), normal(rng, ()), ignore_index=None,
               reduction="mean")],
}



# ----- control flow (ops/control_flow.py): inputs are the carried values, then the invariants
#       (and, for the vjp, one cotangent per carried value); the loops are traced at import -----

def loop_spec(cond, body, carried, invariants=()):
    """A LoopSpec (the while_loop attribute) for cond/body of (*carried, *invariants)."""
    from minispore.compiler.loop_spec import trace_loop
    avals = [[Aval(shape, np.dtype(dtype)) for shape, dtype in group]
             for group in (carried, invariants)]
    spec, read_outside = trace_loop(cond, body, *avals, where="test_registry.py")
    assert not read_outside
    return spec


# three steps of x <- sin(x) * w + x, counted by an integer carried value; w an invariant
COUNTED_LOOP = loop_spec(lambda x, i, w: i < 3, lambda x, i, w: (ms.ops.sin(x) * w + x, i + 1),
                         [((3,), F64), ((), I64)], [((3,), F64)])
# a trip count decided by the values (x <- 1.5 x while sum(x) < 6)
VALUE_LOOP = loop_spec(lambda x: x.sum() < 6, lambda x: (x * 1.5,), [((2, 2), F64)])
SAMPLES["while_loop"] = lambda rng: [
    sample(normal(rng, (3,)), np.int64(0), normal(rng, (3,)), loop=COUNTED_LOOP),
    sample(positive(rng, (2, 2)), loop=VALUE_LOOP)]
SAMPLES["while_loop_vjp"] = lambda rng: sample(normal(rng, (3,)), np.int64(0), normal(rng, (3,)),
                                               normal(rng, (3,)), np.int64(0), loop=COUNTED_LOOP)

# Primitives whose bprop returns None for every input by design: piecewise constant
# (comparisons, rounding, arg-reductions), boolean/integer-only, or a gradient barrier.
NO_GRADIENT = {
    "sign", "floor", "ceil", "round", "logical_not", "bitwise_not", "floor_div",
    "equal", "not_equal", "less", "less_equal", "greater", "greater_equal",
    "logical_and", "logical_or", "logical_xor", "stop_gradient",
    "reduce_all", "reduce_any", "argmax", "argmin", "print", "dropout_mask", "all_finite",
}

# The wider op surface (math, scans, scatter, search, random, linear algebra) has its
# samples in a module of its own.
SAMPLES.update(surface_samples.recipes(sys.modules[__name__]))
NO_GRADIENT |= surface_samples.NO_GRADIENT

# Primitives whose own bprop raises a clear OpError by design (no second-order rule).
FIRST_ORDER_ONLY = {
    "while_loop_vjp": "the backward of a graph loop: a second-order rule would need every "
                      "iteration's values inside the graph, whose shapes are static",
}

# The collectives (ops.collective) keep their samples in a module of their own.
SAMPLES.update(collective_samples.recipes(sys.modules[__name__]))

# The CTC loss's primitives (ops.ctc) keep their samples in a module of their own.
SAMPLES.update(ctc_samples.recipes(sys.modules[__name__]))
NO_GRADIENT |= ctc_samples.NO_GRADIENT
FIRST_ORDER_ONLY.update(ctc_samples.FIRST_ORDER_ONLY)

# nn.LSTM's recurrence (ops.recurrence) likewise.
SAMPLES.update(recurrence_samples.recipes(sys.modules[__name__]))
FIRST_ORDER_ONLY.update(recurrence_samples.FIRST_ORDER_ONLY)


# ***** machinery *****

def samples_of(name):
    """The samples of primitive `name`, from a generator seeded by its name."""
    if name not in SAMPLES:
        pytest.skip(f"no SAMPLES entry for {name!r} (test_every_primitive_has_a_sample fails)")
    made = SAMPLES[name](np.random.default_rng(zlib.crc32(name.encode())))
    return made if isinstance(made, list) else [made]


def is_float(a):
    return np.asarray(a).dtype.kind == "f"


def as_tuple(out):
    return tuple(out) if isinstance(out, (tuple, list)) else (out,)


def results(prim, out):
    """A primitive's output(s) (arrays, Tensors or Avals) as a tuple."""
    return tuple(out) if prim.multiple_results else (out,)


def float_outputs(prim, sample_):
    """Positions of the float outputs (the differentiable ones) of prim on sample_ (from its
    shape/dtype rule: runs on no device)."""
    avals = [Aval(np.shape(a), np.asarray(a).dtype) for a in sample_.inputs]
    outs = results(prim, prim.infer(*avals, **sample_.attrs))
    return [k for k, o in enumerate(outs) if np.dtype(o.dtype).kind == "f"]


def call_with_floats(prim, sample_):
    """(f, float positions): f(*float_tensors) applies prim with the other inputs fixed,
    returning its float outputs (a tuple)."""
    positions = [i for i, a in enumerate(sample_.inputs) if is_float(a)]
    fixed = [ms.Tensor(a) for a in sample_.inputs]
    out_positions = float_outputs(prim, sample_)

    def f(*float_tensors):
        args = list(fixed)
        for p, t in zip(positions, float_tensors):
            args[p] = t
        outs = results(prim, prim(*args, **sample_.attrs))
        return tuple(outs[k] for k in out_positions)

    return f, positions


def cotangents(rng, outs):
    return tuple(normal(rng, o.shape).astype(to_numpy(o).dtype) for o in outs)


def objective(f, cots):
    """arrays -> sum_k sum(f(arrays)_k * cots_k), in float64."""
    def value(arrays):
        outs = as_tuple(f(*(ms.Tensor(a) for a in arrays)))
        return float(sum(np.sum(to_numpy(o).astype(np.float64) * c) for o, c in zip(outs, cots)))
    return value


def vjp_grads(f, arrays, cots):
    """Reverse-mode gradients of f at arrays for cotangents cots, as numpy arrays."""
    _, vjp_fn = ms.vjp(f, *(ms.Tensor(a) for a in arrays))
    return [to_numpy(g) for g in as_tuple(vjp_fn(*(ms.Tensor(c) for c in cots)))]


# minispore's own rows (users' primitives, defined by other test modules, have their own tests)
ALL = sorted(n for n, p in REGISTRY.items() if not p.user_defined)
DIFFERENTIABLE = [n for n in ALL if n not in NO_GRADIENT and n not in FIRST_ORDER_ONLY]
ELEMENTWISE = [n for n in DIFFERENTIABLE if REGISTRY[n].expr is not None]


# ***** (a) the table is complete *****

def test_every_primitive_has_a_sample():
    missing = [n for n in ALL if n not in SAMPLES]
    assert not missing, f"primitives without a SAMPLES entry in {__file__}: {missing}"
    assert not set(SAMPLES) - set(ALL), f"SAMPLES for unknown primitives: {set(SAMPLES) - set(ALL)}"
    unknown = (NO_GRADIENT | set(FIRST_ORDER_ONLY)) - set(ALL)
    assert not unknown, f"NO_GRADIENT / FIRST_ORDER_ONLY list unknown primitives: {unknown}"


@pytest.mark.parametrize("name", ALL)
def test_primitive_row_is_complete(name):
    prim = REGISTRY[name]
    assert prim.name == name
    for rule in ("infer", "impl", "bprop"):
        assert callable(getattr(prim, rule)), f"{name}.{rule} is not callable"
    for s in samples_of(name):
        for key, value in s.attrs.items():
            hash(value)  # attributes are graph cache keys: they must be hashable


# ***** (b) infer agrees with impl *****

def check_infer_matches_impl(prim, inputs, attrs):
    avals = [aval_of(ms.Tensor(a)) for a in inputs]
    out = results(prim, prim.impl(np, *inputs, **attrs))
    inferred = results(prim, prim.infer(*avals, **attrs))
    assert len(inferred) == len(out), \
        f"{prim.name}: infer gives {len(inferred)} outputs, impl {len(out)}"
    for aval, o in zip(inferred, out):
        o = np.asarray(o)
        assert isinstance(aval, Aval), f"{prim.name}: infer returned {aval!r}"
        assert tuple(aval.shape) == o.shape, \
            f"{prim.name}: infer says shape {aval.shape}, impl gives {o.shape} for {avals} {attrs}"
        assert np.dtype(aval.dtype) == o.dtype, \
            f"{prim.name}: infer says {aval.dtype}, impl gives {o.dtype} for {avals} {attrs}"


@pytest.mark.parametrize("name", ALL)
def test_infer_matches_impl(name):
    for s in samples_of(name):
        check_infer_matches_impl(REGISTRY[name], s.inputs, s.attrs)


SWEEP_DTYPES = [np.float32, np.float16, np.int32, np.int64, np.uint8, np.bool_]


@pytest.mark.parametrize("dtype", SWEEP_DTYPES, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("name", [n for n in ALL if REGISTRY[n].expr is not None and n != "select"])
def test_elementwise_infer_matches_impl_for_every_dtype(name, dtype):
    """Either impl and infer agree on the result type, or both reject the dtype (an OpError:
    Graph mode must not accept what PyNative refuses)."""
    prim = REGISTRY[name]
    s = samples_of(name)[0]
    # small positive values: integer pow, floor_div and mod stay well defined
    inputs = [(np.abs(a) * 3 + 1).astype(dtype) for a in s.inputs]
    avals = [aval_of(ms.Tensor(a)) for a in inputs]
    try:
        with np.errstate(all="ignore"):
            prim.impl(np, *inputs, **s.attrs)
    except Exception:
        with pytest.raises(OpError):
            prim.infer(*avals, **s.attrs)
        with pytest.raises(OpError, match=name):
            prim(*(ms.Tensor(a) for a in inputs), **s.attrs)
        return
    check_infer_matches_impl(prim, inputs, s.attrs)


# ***** (c) first derivatives against finite differences *****

def differentiable_samples(name, seed):
    """(sample, f of its float inputs, their positions, those inputs, random cotangents) for
    each sample of a primitive that has float inputs."""
    rng = np.random.default_rng(seed)
    for s in samples_of(name):
        f, positions = call_with_floats(REGISTRY[name], s)
        if positions:
            arrays = [s.inputs[p] for p in positions]
            yield s, f, positions, arrays, cotangents(rng, f(*(ms.Tensor(a) for a in arrays)))


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_bprop_matches_finite_differences(name):
    for s, f, positions, arrays, cots in differentiable_samples(name, seed=1):
        got = vjp_grads(f, arrays, cots)
        for k, g in enumerate(got):
            want = numeric_grad(objective(f, cots), arrays, k, s.step)
            assert g.shape == want.shape, \
                f"{name}: gradient of input {positions[k]} has shape {g.shape}"
            np.testing.assert_allclose(g, want, rtol=s.rtol, atol=s.atol,
                                       err_msg=f"{name}: d/d(input {positions[k]}) with {s.attrs}")


@pytest.mark.parametrize("name", ALL)
def test_index_and_mask_inputs_get_no_gradient(name):
    """Integer/bool inputs of an op with float outputs (indices, masks) get None."""
    prim = REGISTRY[name]
    for s in samples_of(name):
        if not float_outputs(prim, s) or name in FIRST_ORDER_ONLY:
            continue
        grads = call_bprop(prim, s)
        for i, (a, g) in enumerate(zip(s.inputs, grads)):
            if not is_float(a) or name in NO_GRADIENT:
                assert g is None, \
                    f"{name}: bprop gives a gradient for input {i} ({np.asarray(a).dtype})"


def call_bprop(prim, s):
    args = [ms.Tensor(a) for a in s.inputs]
    out = prim(*args, **s.attrs)
    dout = tuple(ms.ops.ones_like(o) for o in out) if prim.multiple_results else ms.ops.ones_like(out)
    grads = prim.bprop(*args, out, dout, **s.attrs)
    assert len(grads) == len(args), \
        f"{prim.name}: bprop returned {len(grads)} gradients for {len(args)} inputs"
    return grads


def test_no_gradient_list_is_what_the_rules_say():
    for name in NO_GRADIENT:
        for s in samples_of(name):
            assert all(g is None for g in call_bprop(REGISTRY[name], s)), name


@pytest.mark.parametrize("name", sorted(FIRST_ORDER_ONLY))
def test_first_order_only_primitives_refuse_a_derivative_clearly(name):
    for s in samples_of(name):
        with pytest.raises(OpError, match="not supported"):
            call_bprop(REGISTRY[name], s)


# ***** (d) second derivatives of elementwise primitives *****

@pytest.mark.parametrize("name", ELEMENTWISE)
def test_second_order_matches_finite_differences(name):
    prim = REGISTRY[name]
    rng = np.random.default_rng(2)
    s = samples_of(name)[0]
    f, positions = call_with_floats(prim, s)
    if not positions:
        pytest.skip(f"{name}: no float input in its first sample")
    arrays = [s.inputs[p] for p in positions]
    cots = cotangents(rng, f(*(ms.Tensor(a) for a in arrays)))

    def first_grad(*xs):
        _, vjp_fn = ms.vjp(f, *xs)
        return vjp_fn(*(ms.Tensor(c) for c in cots))

    cots2 = tuple(normal(rng, a.shape) for a in arrays)
    got = vjp_grads(first_grad, arrays, cots2)
    for k, g in enumerate(got):
        want = numeric_grad(objective(first_grad, cots2), arrays, k, 1e-5)
        np.testing.assert_allclose(g, want, rtol=1e-5, atol=1e-6,
                                   err_msg=f"{name}: second derivative, input {positions[k]}")


# ***** (e) both modes give the same values and gradients *****

@pytest.mark.parametrize("name", ALL)
def test_values_agree_in_both_modes(name, mode):
    prim = REGISTRY[name]
    for s in samples_of(name):
        want = results(prim, prim.impl(np, *s.inputs, **s.attrs))
        got = results(prim, run_in_mode(lambda *xs: prim(*xs, **s.attrs), mode,
                                        *(ms.Tensor(a) for a in s.inputs)))
        assert len(got) == len(want)
        for g, w in zip(got, want):
            w = np.asarray(w)
            # compiled kernels may use their own few-ulp approximations of exp, tanh...
            tol = 64 * np.finfo(w.dtype).eps if w.dtype.kind == "f" else 0
            assert_close(g, w, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_gradients_agree_in_both_modes(name, mode):
    for _, f, _, arrays, cots in differentiable_samples(name, seed=3):

        def loss(*xs):
            terms = [ms.ops.sum(o * ms.Tensor(c)) for o, c in zip(f(*xs), cots)]
            return sum(terms[1:], terms[0])

        grad_fn = ms.grad(loss, grad_position=tuple(range(len(arrays))))
        got = run_in_mode(grad_fn, mode, *(ms.Tensor(a) for a in arrays))
        # the reference: the primitive's vjp itself, without the loss around it
        assert_close(got, tuple(vjp_grads(f, arrays, cots)), rtol=1e-10, atol=1e-12)
