"""Random sampling ops (rand, randn, randint, uniform, normal, bernoulli, multinomial,
randperm, shuffle, gamma, poisson, laplace...), drawn from the generator `ms.set_seed` seeds.

One primitive, `random`, draws from a standard distribution (uniform on [0, 1), the standard
normal, integers, gamma, poisson, laplace, a permutation, categorical indices); the functions
scale and shift its draws with ops, so `normal(shape, mean, stddev)` has gradients for mean
and stddev. Like dropout's mask, a draw is a graph step with `effect` (never folded, merged or
dropped) and `host_io` (never replayed from a CUDA graph): a compiled function draws anew on
every call, from the same generator in the same order as PyNative, so one seed gives the same
numbers in both modes and on every run. An op-level `seed` draws from a stream of its own.

    >>> ms.set_seed(1); a = ops.rand(3)
    >>> ms.set_seed(1); bool((ops.rand(3) == a).all())
    True
"""
from __future__ import annotations
from typing import Any, Optional, Sequence
import numpy as np

from ..context import device
from ..core import seed as random_state
from ..core.dtype import to_np
from ..core.tensor import Tensor
from . import batching as B
from . import functional as F
from .arguments import as_tensor, op_error
from .primitive import Aval, OpTypeError, Primitive
from ..core.hints import TensorLike, ShapeLike, DTypeLike

__all__ = ["rand", "rand_like", "randn", "randn_like", "standard_normal", "randint",
           "randint_like", "uniform", "normal", "bernoulli", "multinomial", "randperm",
           "shuffle", "standard_laplace", "laplace", "gamma", "random_gamma", "poisson",
           "random_poisson", "exponential"]


def _categorical(generator, shape, probs, num_samples, replacement):
    """Row-wise draws of indices with probabilities proportional to the rows of probs."""
    rows = probs.reshape(-1, probs.shape[-1]).astype(np.float64)
    if replacement:  # inverse CDF of uniform draws
        cdf = np.cumsum(rows, -1)
        u = generator.random((rows.shape[0], num_samples)) * cdf[:, -1:]
        picks = np.stack([np.searchsorted(c, v, side="right") for c, v in zip(cdf, u)])
        picks = np.minimum(picks, rows.shape[-1] - 1)
    else:  # Gumbel top-k: the k largest of log p + Gumbel noise, a sample without replacement
        with np.errstate(divide="ignore"):
            keys = np.log(rows) - np.log(-np.log(generator.random(rows.shape)))
        picks = np.argsort(-keys, -1, kind="stable")[:, :num_samples]
    return picks.reshape(probs.shape[:-1] + (num_samples,))


_DRAWS = {
    "uniform": lambda g, shape, params, extra: g.random(shape),
    "normal": lambda g, shape, params, extra: g.standard_normal(shape),
    "laplace": lambda g, shape, params, extra: g.laplace(0.0, 1.0, shape),
    "integers": lambda g, shape, params, extra: g.integers(extra[0], extra[1], shape),
    "gamma": lambda g, shape, params, extra: g.standard_gamma(params[0], shape),
    "poisson": lambda g, shape, params, extra: g.poisson(params[0], shape),
    "permutation": lambda g, shape, params, extra: g.permutation(shape[0]),
    "categorical": lambda g, shape, params, extra: _categorical(g, shape, params[0], *extra),
}


def _random_infer(*params, distribution, shape, dtype, seed, extra):
    return Aval(tuple(shape), np.dtype(dtype))


def _random_impl(xp, *params, distribution, shape, dtype, seed, extra):
    host_params = [device.to_host(p) for p in params]
    draws = _DRAWS[distribution](random_state.get_generator(seed), tuple(shape), host_params, extra)
    return xp.asarray(np.asarray(draws).astype(dtype, copy=False))


@B.draws_random
def _random_batch(prim, args, dims, axis_size, distribution, shape, dtype, seed, extra):
    """Every lane draws its own values: one draw of the whole batch's shape (a parameter
    tensor batched along with it); a permutation per lane needs one draw per lane."""
    if distribution == "permutation":
        return F.stack([prim(distribution=distribution, shape=shape, dtype=dtype, seed=seed,
                             extra=extra) for _ in range(axis_size)]), 0
    params = [B.batched_front(p, d, axis_size) for p, d in zip(args, dims)]
    if distribution != "categorical":
        params = [B.with_lane_rank(p, len(shape)) for p in params]
    return prim(*params, distribution=distribution, shape=(axis_size,) + tuple(shape),
                dtype=dtype, seed=seed, extra=extra), 0


random_p = Primitive(
    "random", infer=_random_infer, impl=_random_impl, effect=True, host_io=True,
    bprop=lambda *args, **attrs: (None,) * (len(args) - 2),  # draws have no input gradient
    batch=_random_batch,
    doc="a draw of `shape` from a standard distribution (parameters as inputs)")


def _draw(distribution, shape, dtype, seed, *params, extra=()):
    return random_p(*params, distribution=distribution, shape=tuple(int(s) for s in shape),
                    dtype=np.dtype(to_np(dtype)), seed=None if seed is None else int(seed),
                    extra=extra)


def _size(size):
    """`rand(2, 3)` and `rand((2, 3))` alike."""
    return tuple(size[0]) if len(size) == 1 and isinstance(size[0], (tuple, list)) else size


def _float_dtype(dtype):
    return to_np(dtype) if dtype is not None else np.float32


def rand(*size: Any, dtype: Optional[DTypeLike] = None, seed: Optional[int] = None) -> Tensor:
    """Uniform samples on [0, 1) of shape `size` (Float32 by default)."""
    return _draw("uniform", _size(size), _float_dtype(dtype), seed)


def rand_like(input: Tensor, seed: Optional[int] = None, *, dtype: Optional[DTypeLike] = None) -> Tensor:
    x = as_tensor(input)
    return _draw("uniform", x.shape, dtype or x.dtype, seed)


def randn(*size: Any, dtype: Optional[DTypeLike] = None, seed: Optional[int] = None) -> Tensor:
    """Standard normal samples of shape `size`."""
    return _draw("normal", _size(size), _float_dtype(dtype), seed)


def randn_like(input: Tensor, seed: Optional[int] = None, *, dtype: Optional[DTypeLike] = None) -> Tensor:
    x = as_tensor(input)
    return _draw("normal", x.shape, dtype or x.dtype, seed)


def standard_normal(shape: ShapeLike, seed: Optional[int] = None) -> Tensor:
    return _draw("normal", shape, np.float32, seed)


def randint(low: int, high: int, size: ShapeLike, seed: Optional[int] = None, *, dtype: Optional[DTypeLike] = None) -> Tensor:
    """Integers drawn uniformly from [low, high) (Int64 by default)."""
    if int(low) >= int(high):
        raise ValueError(f"ops.randint: low ({low}) must be below high ({high})")
    return _draw("integers", size, dtype or np.int64, seed, extra=(int(low), int(high)))


def randint_like(input: Tensor, low: int, high: int, seed: Optional[int] = None, *, dtype: Optional[DTypeLike] = None) -> Tensor:
    x = as_tensor(input)
    return randint(low, high, x.shape, seed, dtype=dtype or x.dtype)


def uniform(shape: ShapeLike, minval: Any, maxval: Any, seed: Optional[int] = None, dtype: Optional[DTypeLike] = None) -> Tensor:
    """Samples uniform on [minval, maxval) (integers for an integer dtype)."""
    dtype = to_np(dtype) if dtype is not None else np.float32
    if np.dtype(dtype).kind in "iu":
        return randint(int(minval), int(maxval), shape, seed, dtype=dtype)
    u = _draw("uniform", shape, dtype, seed)
    return F.add(F.mul(u, F.sub(maxval, minval)), minval)


def _broadcast_shape(shape, *params):
    """`shape` broadcast with the shapes of the parameters (tensors or numbers)."""
    shapes = [p.shape if isinstance(p, Tensor) else np.shape(p) for p in params]
    return tuple(np.broadcast_shapes(tuple(shape), *shapes))


def normal(shape: ShapeLike, mean: TensorLike, stddev: Any, seed: Optional[int] = None) -> Tensor:
    """mean + stddev * z for standard normal z, of `shape` broadcast with mean and stddev's
    (differentiable in mean and stddev)."""
    shape = _broadcast_shape(shape, mean, stddev)
    dtype = mean.dtype if isinstance(mean, Tensor) and mean.dtype.is_float else np.float32
    return F.add(F.mul(_draw("normal", shape, dtype, seed), stddev), mean)


def standard_laplace(shape: ShapeLike, seed: Optional[int] = None) -> Tensor:
    return _draw("laplace", shape, np.float32, seed)


def laplace(shape: ShapeLike, mean: TensorLike, lambda_param: Any, seed: Optional[int] = None) -> Tensor:
    """mean + lambda_param * (a standard Laplace sample)."""
    shape = _broadcast_shape(shape, mean, lambda_param)
    return F.add(F.mul(_draw("laplace", shape, np.float32, seed), lambda_param), mean)


def exponential(shape: ShapeLike, lambd: float = 1.0, seed: Optional[int] = None) -> Tensor:
    """Exponential samples of rate `lambd`: -log(1 - u) / lambd."""
    u = _draw("uniform", shape, np.float32, seed)
    return F.div(F.neg(F.log1p(F.neg(u))), lambd)


def bernoulli(input: Tensor, p: TensorLike = 0.5, seed: Optional[int] = None) -> Tensor:
    """1 with probability p (a number or a tensor broadcasting to input), else 0, in
    input's shape and dtype."""
    x = as_tensor(input)
    hit = F.less(_draw("uniform", x.shape, np.float64, seed), p)
    return F.cast(hit, x.dtype)


def multinomial(input: Tensor, num_samples: int, replacement: bool = True, seed: Optional[int] = None) -> Tensor:
    """num_samples category indices per row of input (unnormalised probabilities), with or
    without replacement; Int32."""
    probs = as_tensor(input)
    if probs.ndim not in (1, 2):
        raise op_error("multinomial", (probs,), "input must be 1-D or 2-D", ValueError)
    if not replacement and num_samples > probs.shape[-1]:
        raise op_error("multinomial", (probs,), f"cannot draw {num_samples} samples without "
                       f"replacement from {probs.shape[-1]} categories", ValueError)
    shape = probs.shape[:-1] + (int(num_samples),)
    return _draw("categorical", shape, np.int32, seed, probs,
                 extra=(int(num_samples), bool(replacement)))


def randperm(n: int, seed: int = 0, offset: int = 0, dtype: Optional[DTypeLike] = None) -> Tensor:
    """A random permutation of 0..n-1 (Int64 by default); seed 0 draws from the global
    generator."""
    return _draw("permutation", (int(n),), dtype or np.int64, seed or None)


def shuffle(x: Tensor, seed: Optional[int] = None) -> Tensor:
    """x with its first axis randomly permuted."""
    x = as_tensor(x)
    if x.ndim == 0:
        return x
    return F.gather(x, _draw("permutation", (x.shape[0],), np.int64, seed), 0)


def _parameter(value, op):
    t = as_tensor(value)
    if not t.dtype.is_float:
        raise op_error(op, (t,), "the distribution's parameters must be float tensors",
                       OpTypeError)
    return t


def random_gamma(shape: Sequence[int], alpha: Tensor, seed: Optional[int] = None) -> Tensor:
    """Gamma(alpha, 1) samples of shape `shape` + alpha's shape."""
    alpha = _parameter(alpha, "random_gamma")
    out_shape = tuple(shape) + alpha.shape
    return _draw("gamma", out_shape, alpha.dtype, seed, F.broadcast_to(alpha, out_shape))


def gamma(shape: Sequence[int], alpha: Tensor, beta: Tensor, seed: Optional[int] = None) -> Tensor:
    """Gamma samples with shape alpha and rate beta, of `shape` broadcast with theirs."""
    alpha = _parameter(alpha, "gamma")
    out_shape = _broadcast_shape(shape, alpha, beta)
    draws = _draw("gamma", out_shape, alpha.dtype, seed, F.broadcast_to(alpha, out_shape))
    return F.div(draws, beta)


def random_poisson(shape: Sequence[int], rate: Tensor, seed: Optional[int] = None, dtype: Optional[DTypeLike] = None) -> Tensor:
    """Poisson samples of rate `rate`, of shape `shape` + rate's shape."""
    rate = _parameter(rate, "random_poisson")
    out_shape = tuple(shape) + rate.shape
    return _draw("poisson", out_shape, dtype or np.float32, seed, F.broadcast_to(rate, out_shape))


def poisson(shape: ShapeLike, mean: TensorLike, seed: Optional[int] = None) -> Tensor:
    """Poisson samples of mean `mean`, of `shape` broadcast with mean's."""
    rate = _parameter(mean, "poisson")
    out_shape = _broadcast_shape(shape, rate)
    return _draw("poisson", out_shape, np.float32, seed, F.broadcast_to(rate, out_shape))
