"""Plain numpy references of the convolution family (loops over kernel offsets, straight
from the definitions), shared by the conv, pooling and resize tests."""
import itertools

import numpy as np


def conv_ref(x, w, stride, pads, dilation, groups):
    """N-d cross-correlation: out[n, o, p] = sum_{c, k} x_pad[n, g c, p * s + k * d] w[o, c, k]."""
    rank = x.ndim - 2
    x = np.pad(x, ((0, 0), (0, 0)) + tuple(pads))
    kernel = w.shape[2:]
    out_sizes = [(x.shape[2 + i] - dilation[i] * (kernel[i] - 1) - 1) // stride[i] + 1
                 for i in range(rank)]
    o, cg = w.shape[:2]
    out = np.zeros((x.shape[0], o) + tuple(out_sizes))
    for oc in range(o):
        g = oc // (o // groups)
        for k in itertools.product(*[range(s) for s in kernel]):
            index = tuple(slice(k[i] * dilation[i], k[i] * dilation[i]
                                + stride[i] * (out_sizes[i] - 1) + 1, stride[i])
                          for i in range(rank))
            patch = x[(slice(None), slice(g * cg, (g + 1) * cg)) + index]
            out[:, oc] += np.tensordot(patch, w[(oc, slice(None)) + k], axes=([1], [0]))
    return out


def conv_transpose_ref(x, w, stride, pads, dilation, groups, out_sizes):
    """The adjoint of conv_ref in its input: each input cell scatters w times its value."""
    rank = x.ndim - 2
    c_in, og = w.shape[:2]
    kernel = w.shape[2:]
    full = [out_sizes[i] + pads[i][0] + pads[i][1] for i in range(rank)]
    out = np.zeros((x.shape[0], og * groups) + tuple(full))
    for ic in range(c_in):
        g = ic // (c_in // groups)
        for k in itertools.product(*[range(s) for s in kernel]):
            index = tuple(slice(k[i] * dilation[i], k[i] * dilation[i]
                                + stride[i] * (x.shape[2 + i] - 1) + 1, stride[i])
                          for i in range(rank))
            region = out[(slice(None), slice(g * og, (g + 1) * og)) + index]
            region += x[:, ic][:, None] * w[(ic, slice(None)) + k].reshape(
                (1, og) + (1,) * rank)
    crop = tuple(slice(pads[i][0], pads[i][0] + out_sizes[i]) for i in range(rank))
    # windows past the padded extent (output_padding) are zeros already
    return out[(slice(None), slice(None)) + crop]


def pool_ref(x, kernel, stride, reduce, pads=None, fill=0.0):
    """N-d window reduction (np.max / np.sum / ...) over the last len(kernel) axes."""
    rank = len(kernel)
    if pads:
        x = np.pad(x, ((0, 0),) * (x.ndim - rank) + tuple(pads), constant_values=fill)
    sizes = [(x.shape[x.ndim - rank + i] - kernel[i]) // stride[i] + 1 for i in range(rank)]
    out = np.zeros(x.shape[:x.ndim - rank] + tuple(sizes))
    for pos in itertools.product(*[range(s) for s in sizes]):
        window = x[(Ellipsis,) + tuple(slice(p * s, p * s + k) for p, s, k in
                                       zip(pos, stride, kernel))]
        out[(Ellipsis,) + pos] = reduce(window.reshape(window.shape[:x.ndim - rank] + (-1,)),
                                        axis=-1)
    return out


def adaptive_ref(x, sizes, reduce):
    """Adaptive pooling over the last len(sizes) axes: bin i of an axis of length L spans
    floor(i L / out) to ceil((i + 1) L / out)."""
    rank = len(sizes)
    spatial = x.shape[x.ndim - rank:]
    out = np.zeros(x.shape[:x.ndim - rank] + tuple(sizes))
    for pos in itertools.product(*[range(s) for s in sizes]):
        index = tuple(slice((p * n) // o, -(-((p + 1) * n) // o))
                      for p, n, o in zip(pos, spatial, sizes))
        window = x[(Ellipsis,) + index]
        out[(Ellipsis,) + pos] = reduce(window.reshape(window.shape[:x.ndim - rank] + (-1,)),
                                        axis=-1)
    return out
