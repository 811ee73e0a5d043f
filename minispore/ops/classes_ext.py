"""More MindSpore Primitive classes (`ops.TopK(sorted=True)(x, k)`, `ops.CumProd()(x, 0)`...):
each configures its attributes in __init__ and calls an `ops` function in __call__.

    >>> ops.ArgMaxWithValue(axis=1)(ms.Tensor([[1.0, 3.0], [4.0, 2.0]]))[0]
    Tensor(shape=[2], dtype=Int64, value= [1, 0])

Classes without attributes are rows of SIMPLE (name -> function of the inputs); the others
are rows of CONFIGURED: (the __init__ parameters with their defaults, the call as a function
of the instance and the inputs).
"""
from typing import Any, Callable

import numpy as np

from ..core.dtype import to_np
from . import assorted, layout
from . import functional as F
from .classes import PrimitiveClass, simple_class

SIMPLE: dict[str, Callable[..., Any]] = {
    "ACos": F.acos, "Acosh": F.acosh, "Asin": F.asin, "Asinh": F.asinh, "Atan": F.atan,
    "Atan2": F.atan2, "Atanh": F.atanh, "Cosh": F.cosh, "Sinh": F.sinh, "Sinc": F.sinc,
    "AddN": F.addn, "AccumulateNV2": F.addn, "Addcdiv": F.addcdiv, "Addcmul": F.addcmul,
    "Angle": F.angle, "BitwiseAnd": F.bitwise_and, "BitwiseOr": F.bitwise_or,
    "BitwiseXor": F.bitwise_xor, "LeftShift": F.bitwise_left_shift,
    "RightShift": F.bitwise_right_shift, "Conj": F.conj, "Real": F.real, "Imag": F.imag,
    "Diag": F.diag, "DiagPart": lambda x: _diag_part(x),
    "Digamma": F.digamma, "Erfc": F.erfc, "Erfinv": F.erfinv, "Eps": F.eps, "Fmax": F.fmax,
    "Fmin": F.fmin, "Gcd": F.gcd, "Lcm": F.lcm, "Ger": F.ger, "Heaviside": F.heaviside,
    "Hypot": F.hypot, "Inv": F.inv, "Invert": F.invert, "IsFinite": F.isfinite,
    "IsInf": F.isinf, "IsNan": F.isnan, "Lerp": F.lerp, "LerpScalar": F.lerp,
    "Lgamma": F.lgamma, "LinSpace": F.linspace, "LogMatrixDeterminant": F.slogdet,
    "LogicalXor": F.logical_xor, "MaskedFill": F.masked_fill, "MaskedSelect": F.masked_select,
    "MatrixBandPart": F.matrix_band_part, "MatrixDeterminant": F.det, "Mod": F.fmod,
    "NonZero": F.nonzero, "Polygamma": F.polygamma, "Rank": F.rank, "ReLU6": F.relu6,
    "Reciprocal": F.reciprocal, "Rint": F.round, "ScatterNd": F.scatter_nd,
    "Size": F.size, "Slice": assorted.slice, "Softplus": F.softplus, "Trace": F.trace,
    "Trunc": F.trunc, "TruncateDiv": F.truncate_div, "TruncateMod": F.truncate_mod,
    "Unique": F.unique, "UniqueWithPad": F.unique_with_pad,
    "UnsortedSegmentSum": F.unsorted_segment_sum, "Xdivy": F.xdivy, "Xlogy": F.xlogy,
    "GatherNd": F.gather_nd, "GatherV2": F.gather, "TensorScatterAdd": F.tensor_scatter_add,
    "TensorScatterSub": F.tensor_scatter_sub, "TensorScatterUpdate": F.tensor_scatter_update,
    "Fills": F.fills, "Expand": F.expand, "Dense": F.dense, "Cholesky": F.cholesky,
    "Fill": F.fill, "Ones": lambda shape, type=None: F.ones(shape, type),
    "Zeros": lambda shape, type=None: F.zeros(shape, type),
    "Eye": lambda n, m, t=None: F.eye(n, m, t), "DType": F.dtype,
    "SquaredDifference": lambda x, y: F.square(F.sub(x, y)),
    "SquareSumAll": lambda x, y: (F.sum(F.square(x)), F.sum(F.square(y))),
    "DivNoNan": lambda x, y: F.where(F.equal(y, 0), F.zeros((), F.promote(x, y)[0].dtype),
                                     F.div(x, F.where(F.equal(y, 0), F.ones_like(y), y))),
    "MulNoNan": lambda x, y: F.where(F.equal(y, 0), F.zeros((), F.promote(x, y)[0].dtype),
                                     F.mul(x, y)),
    "L2Loss": lambda x: F.div(F.sum(F.square(x)), 2.0),
    "Lstsq": F.lstsq, "IndexFill": F.index_fill, "InplaceUpdate": F.inplace_update,
    "Unstack": F.unstack,
    # activations
    "FastGeLU": F.fast_gelu, "FastGelu": F.fast_gelu, "HSigmoid": F.hardsigmoid,
    "HSwish": F.hardswish, "Mish": F.mish, "PReLU": F.prelu, "SeLU": F.selu,
    "Softsign": F.softsign,
}


def _diag_part(x):
    """The inverse of Diag: input of shape S + S gives the (S-shaped) diagonal."""
    half = x.shape[:x.ndim // 2]
    n = int(np.prod(half, dtype=np.int64))
    return F.reshape(F.diagonal(F.reshape(x, (n, n))), half)


def _unravel_index(indices, dims):
    """The coordinates in a tensor of shape dims of each flat index (one row per axis)."""
    strides = [int(np.prod(dims[k + 1:], dtype=np.int64)) for k in range(len(dims))]
    return F.stack([F.remainder(F.floor_divide(indices, s), d) for s, d in zip(strides, dims)])


SIMPLE["UnravelIndex"] = _unravel_index


def _seeded_draw(draw):
    return lambda self, *inputs: draw(*inputs, seed=self.seed or None)


CONFIGURED: dict[str, tuple[dict[str, Any], Callable[..., Any]]] = {
    "ArgMaxWithValue": ({"axis": 0, "keep_dims": False}, lambda self, x: (
        F.argmax(x, self.axis, self.keep_dims), F.amax(x, self.axis, self.keep_dims))),
    "ArgMinWithValue": ({"axis": 0, "keep_dims": False}, lambda self, x: (
        F.argmin(x, self.axis, self.keep_dims), F.amin(x, self.axis, self.keep_dims))),
    "TopK": ({"sorted": True}, lambda self, x, k: F.topk(x, k, sorted=self.sorted)),
    "Sort": ({"axis": -1, "descending": False},
             lambda self, x: F.sort(x, self.axis, self.descending)),
    "CumSum": ({"exclusive": False, "reverse": False},
               lambda self, x, axis: _scan(F.cumsum, 0, self, x, axis)),
    "CumProd": ({"exclusive": False, "reverse": False},
                lambda self, x, axis: _scan(F.cumprod, 1, self, x, axis)),
    "Cummax": ({"axis": 0}, lambda self, x: F.cummax(x, self.axis)),
    "Cummin": ({"axis": 0}, lambda self, x: F.cummin(x, self.axis)),
    "CumulativeLogsumexp": ({"exclusive": False, "reverse": False},
                            lambda self, x, axis: _scan(F.logcumsumexp, -np.inf, self, x,
                                                                axis)),
    "Einsum": ({"equation": ""}, lambda self, *xs: F.einsum(self.equation, *xs)),
    "Cdist": ({"p": 2.0}, lambda self, x1, x2: F.cdist(x1, x2, self.p)),
    "Pdist": ({"p": 2.0}, lambda self, x: F.pdist(x, self.p)),
    "Cross": ({"dim": -65530}, lambda self, x, y: F.cross(x, y, None if self.dim == -65530
                                                          else self.dim)),
    "CholeskyInverse": ({"upper": False}, lambda self, x: F.cholesky_inverse(x, self.upper)),
    "CholeskySolve": ({"upper": False}, lambda self, x1, x2: F.cholesky_solve(x1, x2,
                                                                              self.upper)),
    "MatrixInverse": ({"adjoint": False}, lambda self, x: F.inverse(
        F.swap_last_axes(x) if self.adjoint else x)),
    "MatrixPower": ({"n": 1}, lambda self, x: F.matrix_power(x, self.n)),
    "MatrixSolve": ({"adjoint": False}, lambda self, m, rhs: F.matrix_solve(m, rhs,
                                                                          self.adjoint)),
    "Qr": ({"full_matrices": False}, lambda self, x: F.qr(
        x, "complete" if self.full_matrices else "reduced")),
    "Svd": ({"full_matrices": False, "compute_uv": True},
            lambda self, x: F.svd(x, self.full_matrices, self.compute_uv)),
    "IsClose": ({"rtol": 1e-05, "atol": 1e-08, "equal_nan": True},
                lambda self, x, y: F.isclose(x, y, self.rtol, self.atol, self.equal_nan)),
    "ApproximateEqual": ({"tolerance": 1e-05},
                         lambda self, x, y: F.approximate_equal(x, y, self.tolerance)),
    "Logit": ({"eps": -1.0}, lambda self, x: F.logit(x, None if self.eps < 0 else self.eps)),
    "NanToNum": ({"nan": 0.0, "posinf": None, "neginf": None},
                 lambda self, x: F.nan_to_num(x, self.nan, self.posinf, self.neginf)),
    "Median": ({"global_median": False, "axis": 0, "keep_dims": False},
               lambda self, x: F.median(F.reshape(x, (-1,)) if self.global_median else x,
                                        0 if self.global_median else self.axis,
                                        self.keep_dims)),
    "Meshgrid": ({"indexing": "xy"}, lambda self, inputs: F.meshgrid(*inputs,
                                                                      indexing=self.indexing)),
    "ReverseV2": ({"axis": ()}, lambda self, x: F.flip(x, self.axis)),
    "Roll": ({"shift": 0, "axis": 0}, lambda self, x: F.roll(x, self.shift, self.axis)),
    "Squeeze": ({"axis": ()}, lambda self, x: F.squeeze(x, self.axis if self.axis != ()
                                                        else None)),
    "StridedSlice": ({"begin_mask": 0, "end_mask": 0, "ellipsis_mask": 0, "new_axis_mask": 0,
                      "shrink_axis_mask": 0}, lambda self, x, begin, end, strides:
                     F.strided_slice(x, begin, end, strides, self.begin_mask, self.end_mask,
                                     self.ellipsis_mask, self.new_axis_mask,
                                     self.shrink_axis_mask)),
    "Tril": ({"diagonal": 0}, lambda self, x: F.tril(x, self.diagonal)),
    "Triu": ({"diagonal": 0}, lambda self, x: F.triu(x, self.diagonal)),
    "TrilIndices": ({"row": 1, "col": 1, "offset": 0, "dtype": np.int32},
                    lambda self: F.tril_indices(self.row, self.col, self.offset,
                                                dtype=self.dtype)),
    "TriuIndices": ({"row": 1, "col": 1, "offset": 0, "dtype": np.int32},
                    lambda self: F.triu_indices(self.row, self.col, self.offset,
                                                dtype=self.dtype)),
    "UniqueConsecutive": ({"return_idx": False, "return_counts": False, "axis": None},
                          lambda self, x: F.unique_consecutive(x, self.return_idx,
                                                               self.return_counts, self.axis)),
    "Unpack": ({"axis": 0, "num": None}, lambda self, x: F.unstack(x, self.axis)),
    "Pack": ({"axis": 0}, lambda self, xs: F.stack(xs, self.axis)),
    "SearchSorted": ({"dtype": np.int64, "right": False}, lambda self, seq, v: F.searchsorted(
        seq, v, out_int32=np.dtype(to_np(self.dtype)) == np.int32, right=self.right)),
    "Bucketize": ({"boundaries": ()}, lambda self, x: F.bucketize(x, list(self.boundaries))),
    "IndexAdd": ({"axis": 0, "use_lock": True, "check_index_bound": True},
                 lambda self, x, indices, y: F.index_add(x, indices, y, self.axis)),
    "TensorScatterElements": ({"axis": 0, "reduction": "none"},
                              lambda self, x, indices, updates: F.tensor_scatter_elements(
                                  x, indices, updates, self.axis, self.reduction)),
    "ScatterAdd": ({"use_locking": False}, lambda self, x, i, u: F.scatter_add(x, i, u)),
    "ScatterSub": ({"use_locking": False}, lambda self, x, i, u: F.scatter_sub(x, i, u)),
    "ScatterUpdate": ({"use_locking": True}, lambda self, x, i, u: F.scatter_update(x, i, u)),
    "ScatterNdAdd": ({"use_locking": False}, lambda self, x, i, u: F.scatter_nd_add(x, i, u)),
    "ScatterNdSub": ({"use_locking": False}, lambda self, x, i, u: F.scatter_nd_sub(x, i, u)),
    "ScatterNdUpdate": ({"use_locking": True},
                        lambda self, x, i, u: F.scatter_nd_update(x, i, u)),
    "InplaceAdd": ({"indices": ()}, lambda self, x, v: F.inplace_add(x, v, self.indices)),
    "InplaceSub": ({"indices": ()}, lambda self, x, v: F.inplace_sub(x, v, self.indices)),
    "BiasAdd": ({"data_format": "NCHW"}, lambda self, x, b: F.bias_add(x, b, self.data_format)),
    "L2Normalize": ({"axis": 0, "epsilon": 1e-4}, lambda self, x: F.div(x, F.sqrt(F.maximum(
        F.sum(F.square(x), self.axis, True), self.epsilon)))),
    "Flatten": ({}, lambda self, x: F.reshape(x, (x.shape[0], -1)) if x.ndim else x),
    "Range": ({"maxlen": 1000000}, lambda self, start, limit, delta: layout.range(start, limit,
                                                                                  delta)),
    "Pad": ({"paddings": ()}, lambda self, x: F.pad(x, self.paddings)),
    "Dropout": ({"keep_prob": 0.5, "Seed0": 0, "Seed1": 0},
                lambda self, x: _dropout_with_mask(x, self.keep_prob)),
    "StandardNormal": ({"seed": 0, "seed2": 0}, _seeded_draw(F.standard_normal)),
    "StandardLaplace": ({"seed": 0, "seed2": 0}, _seeded_draw(F.standard_laplace)),
    "UniformReal": ({"seed": 0, "seed2": 0}, lambda self, shape: F.rand(
        *shape, seed=self.seed or None)),
    "UniformInt": ({"seed": 0, "seed2": 0}, lambda self, shape, low, high: F.randint(
        int(low), int(high), shape, self.seed or None, dtype=np.int32)),
    "Gamma": ({"seed": 0, "seed2": 0}, _seeded_draw(F.gamma)),
    "Poisson": ({"seed": 0, "seed2": 0}, _seeded_draw(F.poisson)),
    "RandomGamma": ({"seed": 0, "seed2": 0}, _seeded_draw(F.random_gamma)),
    "RandomPoisson": ({"seed": 0, "seed2": 0, "dtype": np.int64},
                      lambda self, shape, rate: F.random_poisson(shape, rate, self.seed or None,
                                                                 self.dtype)),
    "RandomShuffle": ({"seed": 0, "seed2": 0}, _seeded_draw(F.shuffle)),
    "Multinomial": ({"seed": 0, "seed2": 0, "dtype": np.int32},
                    lambda self, x, num: F.cast(F.multinomial(x, num, True, self.seed or None),
                                                self.dtype)),
    "Randperm": ({"max_length": 1, "pad": -1, "dtype": np.int32},
                 lambda self, n: _randperm_padded(self, n)),
    "Bernoulli": ({"seed": -1, "offset": 0}, lambda self, x, p: F.bernoulli(
        x, p, None if self.seed < 0 else self.seed)),
    "Conv2D": ({"out_channel": 1, "kernel_size": 1, "mode": 1, "pad_mode": "valid", "pad": 0,
                "stride": 1, "dilation": 1, "group": 1, "data_format": "NCHW"},
               lambda self, x, w: F.conv2d(x, w, None, self.stride, self.pad_mode, self.pad,
                                           self.dilation, self.group)),
    "MaxPool": ({"kernel_size": 1, "strides": 1, "pad_mode": "valid", "data_format": "NCHW"},
                lambda self, x: F.max_pool2d(x, self.kernel_size, self.strides,
                                             pad_mode=self.pad_mode)),
    "AvgPool": ({"kernel_size": 1, "strides": 1, "pad_mode": "valid", "data_format": "NCHW"},
                lambda self, x: F.avg_pool2d(x, self.kernel_size, self.strides,
                                             pad_mode=self.pad_mode)),
    "LayerNorm": ({"begin_norm_axis": 1, "begin_params_axis": 1, "epsilon": 1e-7},
                  lambda self, x, gamma, beta: _layer_norm(self, x, gamma, beta)),
    "BatchNorm": ({"is_training": False, "epsilon": 1e-5, "momentum": 0.1,
                   "data_format": "NCHW"},
                  lambda self, x, scale, bias, mean, variance: _batch_norm(
                      self, x, scale, bias, mean, variance)),
    # losses (MindSpore's primitive forms: per-example losses, or the gradient with is_grad)
    "SoftmaxCrossEntropyWithLogits": ({}, lambda self, logits, labels: (
        F.neg(F.sum(F.mul(labels, F.log_softmax(logits, -1)), -1)),
        F.sub(F.softmax(logits, -1), labels))),
    "SparseSoftmaxCrossEntropyWithLogits": ({"is_grad": False},
                                            lambda self, logits, labels:
                                            _sparse_softmax_cross_entropy(self, logits, labels)),
    "SigmoidCrossEntropyWithLogits": ({}, lambda self, x, z: F.add(
        F.sub(F.maximum(x, 0.0), F.mul(x, z)), F.log1p(F.exp(F.neg(F.abs(x)))))),
    "BinaryCrossEntropy": ({"reduction": "mean"}, lambda self, x, y, weight=None:
                           F.binary_cross_entropy(x, y, weight, self.reduction)),
    # layout of images (NCHW)
    "DepthToSpace": ({"block_size": 2}, lambda self, x: _depth_to_space(x, self.block_size)),
    "SpaceToDepth": ({"block_size": 2}, lambda self, x: _space_to_depth(x, self.block_size)),
    "ResizeNearestNeighbor": ({"size": (1, 1), "align_corners": False},
                              lambda self, x: F.interpolate(
                                  x, tuple(self.size), mode="nearest")),
    "ReduceStd": ({"axis": (), "unbiased": True, "keep_dims": False},
                  lambda self, x: _reduce_std(self, x)),
    # optimizer updates on Parameters (written in place with ops.assign, as MindSpore does)
    "ApplyGradientDescent": ({}, lambda self, var, alpha, delta: F.assign(
        var, F.sub(var, F.mul(alpha, delta)))),
    "ApplyMomentum": ({"use_locking": False, "use_nesterov": False, "gradient_scale": 1.0},
                      lambda self, var, accum, lr, grad, momentum: _apply_momentum(
                          self, var, accum, lr, grad, momentum)),
    # activations
    "CeLU": ({"alpha": 1.0}, lambda self, x: F.celu(x, self.alpha)),
    "Elu": ({"alpha": 1.0}, lambda self, x: F.elu(x, self.alpha)),
    "GLU": ({"axis": -1}, lambda self, x: F.glu(x, self.axis)),
    "HShrink": ({"lambd": 0.5}, lambda self, x: F.hardshrink(x, self.lambd)),
    "SoftShrink": ({"lambd": 0.5}, lambda self, x: F.softshrink(x, self.lambd)),
}


def _sparse_softmax_cross_entropy(self, logits, labels):
    """The mean cross-entropy of integer labels, or with is_grad its gradient in the logits,
    (softmax - one_hot) / batch, as MindSpore's primitive gives them."""
    if not self.is_grad:
        return F.cross_entropy(logits, labels)
    one_hot = F.one_hot(labels, logits.shape[-1], 1.0, 0.0).astype(logits.dtype)
    return F.div(F.sub(F.softmax(logits, -1), one_hot), float(logits.shape[0]))


def _depth_to_space(x, block):
    """(N, C * b * b, H, W) -> (N, C, H * b, W * b): channel (i * b + j) * C + c of a pixel
    moves to offset (i, j) of its b x b block (MindSpore's and TensorFlow's DCR order)."""
    n, c, h, w = x.shape
    blocks = F.reshape(x, (n, block, block, c // (block * block), h, w))
    return F.reshape(F.transpose(blocks, (0, 3, 4, 1, 5, 2)),
                     (n, c // (block * block), h * block, w * block))


def _space_to_depth(x, block):
    """The inverse of DepthToSpace: (N, C, H, W) -> (N, C * b * b, H / b, W / b)."""
    n, c, h, w = x.shape
    blocks = F.reshape(x, (n, c, h // block, block, w // block, block))
    return F.reshape(F.transpose(blocks, (0, 3, 5, 1, 2, 4)),
                     (n, c * block * block, h // block, w // block))


def _reduce_std(self, x):
    """(standard deviation, mean) over `axis` (every axis for ())."""
    axis = None if self.axis in ((), []) else self.axis
    ddof = 1 if self.unbiased else 0
    return F.std(x, axis, ddof, self.keep_dims), F.mean(x, axis, self.keep_dims)


def _apply_momentum(self, var, accum, lr, grad, momentum):
    """accum = momentum * accum + grad * gradient_scale; var -= lr * accum (Nesterov:
    var -= lr * (grad + momentum * accum)); returns var."""
    grad = F.mul(grad, self.gradient_scale) if self.gradient_scale != 1.0 else grad
    F.assign(accum, F.add(F.mul(accum, momentum), grad))
    step = F.add(grad, F.mul(accum, momentum)) if self.use_nesterov else accum
    return F.assign(var, F.sub(var, F.mul(lr, step)))


def _layer_norm(self, x, gamma, beta):
    """(output, mean, variance) of MindSpore's LayerNorm primitive: statistics over the axes
    from begin_norm_axis, gamma and beta shaped like the axes from begin_params_axis."""
    axes = tuple(range(self.begin_norm_axis % x.ndim, x.ndim))
    mean = F.mean(x, axes, True)
    variance = F.var(x, axes, 0, True)
    normed = F.mul(F.sub(x, mean), F.rsqrt(F.add(variance, self.epsilon)))
    return F.add(F.mul(normed, gamma), beta), mean, variance


def _batch_norm(self, x, scale, bias, mean, variance):
    """(y, batch_mean, batch_variance, reserve_space_1, reserve_space_2) of MindSpore's
    BatchNorm primitive; in training the moving mean and variance (Parameters) take
    (1 - momentum) * moving + momentum * batch statistic."""
    y = F.batch_norm(x, mean, variance, scale, bias, self.is_training, self.momentum,
                     self.epsilon)
    if not self.is_training:
        return y, mean, variance, mean, variance
    axes = (0,) + tuple(range(2, x.ndim))
    batch_mean, batch_var = F.mean(x, axes), F.var(x, axes)
    return y, batch_mean, batch_var, batch_mean, batch_var


def _scan(scan, identity, self, x, axis):
    """A scan reversed and/or exclusive as MindSpore's CumSum/CumProd/CumulativeLogsumexp:
    exclusive shifts the running values one place, the identity of the scan first."""
    x = F.flip(x, axis) if self.reverse else x
    out = scan(x, axis)
    if self.exclusive:
        n = x.shape[axis]
        first = F.full_like(F.slice_axis(out, axis, 0, 1), identity)
        out = F.concat([first, F.slice_axis(out, axis, 0, n - 1)], axis)
    return F.flip(out, axis) if self.reverse else out


def _dropout_with_mask(x, keep_prob):
    """(output, mask) of MindSpore's Dropout primitive (mask: 1 where kept)."""
    if keep_prob >= 1.0:
        return x, F.ones_like(x)
    scaled = F.dropout(F.ones_like(x), 1.0 - keep_prob)
    return F.mul(x, scaled), F.cast(F.greater(scaled, 0), x.dtype)


def _randperm_padded(self, n):
    perm = F.randperm(int(n), dtype=self.dtype)
    return F.pad(perm, ((0, self.max_length - int(n)),), value=self.pad)


def _configured_class(name: str, defaults: dict[str, Any], call: Callable[..., Any]) -> type:
    def __init__(self: PrimitiveClass, *args: Any, **kwargs: Any) -> None:  # any attribute values
        values = dict(defaults)
        values.update(zip(defaults, args))
        unknown = set(kwargs) - set(defaults)
        if unknown:
            raise TypeError(f"ops.{name}: unknown arguments {sorted(unknown)}")
        values.update(kwargs)
        for key, value in values.items():
            setattr(self, key, value)
    return type(name, (PrimitiveClass,), {"__init__": __init__, "__call__": call,
                                          "__doc__": f"MindSpore's {name} primitive."})


__all__ = sorted(set(SIMPLE) | set(CONFIGURED))
for _name, _fn in SIMPLE.items():
    globals()[_name] = simple_class(_name, _fn)
for _name, (_defaults, _call) in CONFIGURED.items():
    globals()[_name] = _configured_class(_name, _defaults, _call)
