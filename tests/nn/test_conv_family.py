"""Conv1d, Conv3d and the transposed convolutions: values against numpy references of the
definitions (and PyTorch with the same weights when it is installed), gradients against
finite differences, the same values compiled, MindSpore's shapes and parameter layout."""
import numpy as np
import pytest
from conv_refs import conv_ref, conv_transpose_ref
from nn_checks import T, check_cell_grads, check_fn_grads

import minispore as ms
from minispore import nn, ops

RNG = np.random.default_rng(0)


def randn(*shape):
    return RNG.standard_normal(shape)


CONV = [  # (rank, x shape, w shape, stride, pads, dilation, groups)
    (1, (2, 4, 9), (6, 2, 3), (2,), ((1, 2),), (2,), 2),
    (1, (1, 3, 7), (2, 3, 4), (1,), ((0, 0),), (1,), 1),
    (3, (2, 4, 5, 4, 6), (6, 2, 2, 3, 2), (2, 1, 2), ((1, 0), (1, 1), (0, 1)), (1, 1, 2), 2),
    (3, (1, 2, 3, 3, 3), (3, 2, 3, 1, 2), (1, 1, 1), ((1, 1), (0, 0), (0, 0)), (1, 1, 1), 1),
]


def _conv(rank):
    return ops.conv1d if rank == 1 else ops.conv3d


@pytest.mark.parametrize("rank, xs, ws, stride, pads, dilation, groups", CONV)
def test_conv_matches_the_definition_eager_and_compiled(rank, xs, ws, stride, pads, dilation,
                                                        groups):
    x, w = randn(*xs), randn(*ws)
    flat = tuple(v for p in pads for v in p)
    fn = _conv(rank)
    want = conv_ref(x, w, stride, pads, dilation, groups)
    got = fn(T(x), T(w), None, stride, "pad", flat, dilation, groups)
    np.testing.assert_allclose(got.asnumpy(), want, atol=1e-10)
    jitted = ms.jit(lambda a, b: fn(a, b, None, stride, "pad", flat, dilation, groups))
    np.testing.assert_allclose(jitted(T(x), T(w)).asnumpy(), want, atol=1e-10)


@pytest.mark.parametrize("rank, xs, ws, stride, pads, dilation, groups", CONV[::2])
def test_conv_gradients_match_finite_differences(rank, xs, ws, stride, pads, dilation, groups):
    flat = tuple(v for p in pads for v in p)
    check_fn_grads(lambda a, b: _conv(rank)(a, b, None, stride, "pad", flat, dilation, groups),
                   randn(*xs), randn(*ws))


TRANSPOSED = [  # (rank, x shape, w shape, stride, padding (flat), output_padding, dilation, g)
    (1, (2, 4, 5), (4, 3, 3), (3,), (1, 1), (2,), (1,), 2),
    (2, (2, 4, 4, 3), (4, 3, 3, 2), (2, 1), (1, 0, 0, 1), (1, 0), (1, 2), 2),
    (3, (1, 2, 3, 2, 3), (2, 2, 2, 3, 2), (2, 2, 1), (1, 1, 0, 1, 0, 0), (1, 0, 0),
     (2, 1, 1), 1),
]


def _transposed(rank):
    return {1: ops.conv_transpose1d, 2: ops.conv_transpose2d, 3: ops.conv_transpose3d}[rank]


@pytest.mark.parametrize("rank, xs, ws, stride, padding, out_pad, dilation, groups", TRANSPOSED)
def test_transposed_conv_is_the_adjoint_of_conv(rank, xs, ws, stride, padding, out_pad,
                                                dilation, groups):
    x, w = randn(*xs), randn(*ws)
    pads = tuple((padding[2 * i], padding[2 * i + 1]) for i in range(rank))
    sizes = [(xs[2 + i] - 1) * stride[i] - sum(pads[i]) + dilation[i] * (ws[2 + i] - 1) + 1
             + out_pad[i] for i in range(rank)]
    want = conv_transpose_ref(x, w, stride, pads, dilation, groups, sizes)
    fn = _transposed(rank)
    got = fn(T(x), T(w), None, stride, "pad", padding, out_pad, dilation, groups)
    np.testing.assert_allclose(got.asnumpy(), want, atol=1e-10)
    # <conv_transpose(x), y> == <x, conv(y)>: the transposed op is conv's adjoint
    y = randn(*want.shape)
    back = conv_ref(y, w, stride, pads, dilation, groups)  # w read as a conv weight
    assert back.shape == x.shape
    np.testing.assert_allclose((want * y).sum(), (x * back).sum(), rtol=1e-9)
    jitted = ms.jit(lambda a, b: fn(a, b, None, stride, "pad", padding, out_pad, dilation,
                                    groups))
    np.testing.assert_allclose(jitted(T(x), T(w)).asnumpy(), want, atol=1e-10)


@pytest.mark.parametrize("rank", [1, 2, 3])
def test_transposed_conv_gradients_match_finite_differences(rank):
    _, xs, ws, stride, padding, out_pad, dilation, groups = TRANSPOSED[rank - 1]
    check_fn_grads(lambda a, b: _transposed(rank)(a, b, None, stride, "pad", padding, out_pad,
                                                  dilation, groups), randn(*xs), randn(*ws))


@pytest.mark.parametrize("pad_mode, size", [("same", 10), ("valid", 11)])
def test_transposed_output_sizes_follow_mindspore(pad_mode, size):
    out = nn.Conv2dTranspose(2, 3, 3, stride=2, pad_mode=pad_mode)(ops.ones((1, 2, 5, 5)))
    assert out.shape == (1, 3, size, size)
    out = nn.Conv1dTranspose(2, 3, 1, stride=3, pad_mode="valid")(ops.ones((1, 2, 4)))
    assert out.shape == (1, 3, 12)  # span < stride: size * stride


def test_layers_hold_mindspore_parameters():
    conv = nn.Conv1d(4, 6, 3, group=2, has_bias=True)
    assert [p.name for p in conv.trainable_params()] == ["weight", "bias"]
    assert conv.weight.shape == (6, 2, 3)
    assert nn.Conv3d(4, 6, (1, 2, 3), group=2).weight.shape == (6, 2, 1, 2, 3)
    assert nn.Conv2dTranspose(4, 6, 3, group=2).weight.shape == (4, 3, 3, 3)
    assert nn.Conv3dTranspose(4, 6, 2).weight.shape == (4, 6, 2, 2, 2)
    assert nn.Conv1dTranspose(4, 2, 5).weight.shape == (4, 2, 5)
    with pytest.raises(ValueError, match="padding must be 0"):
        nn.Conv1d(2, 2, 3, padding=1)
    with pytest.raises(ValueError, match="divisible by group"):
        nn.Conv3d(3, 4, 3, group=2)


@pytest.mark.parametrize("make, shape", [
    (lambda: nn.Conv1d(2, 3, 3, pad_mode="pad", padding=(1, 0), has_bias=True,
                       dtype=ms.float64), (2, 2, 5)),
    (lambda: nn.Conv3d(2, 2, 2, stride=(1, 2, 1), has_bias=True, dtype=ms.float64),
     (1, 2, 3, 4, 3)),
    (lambda: nn.Conv2dTranspose(2, 2, 3, stride=2, pad_mode="pad", padding=1, output_padding=1,
                                has_bias=True, dtype=ms.float64), (1, 2, 3, 3)),
    (lambda: nn.Conv3dTranspose(2, 2, 2, stride=2, has_bias=True, dtype=ms.float64),
     (1, 2, 2, 2, 2)),
])
def test_layer_gradients_match_finite_differences(make, shape):
    ms.set_seed(1)
    cell = make()
    check_cell_grads(cell, randn(*shape))


def test_same_values_as_torch_with_the_same_weights():
    torch = pytest.importorskip("torch", reason="PyTorch is the second reference")
    conv = nn.Conv3dTranspose(4, 2, 3, stride=2, pad_mode="pad", padding=1, output_padding=1,
                              group=2, has_bias=True)
    ref = torch.nn.ConvTranspose3d(4, 2, 3, stride=2, padding=1, output_padding=1, groups=2)
    ref.weight.data = torch.tensor(conv.weight.asnumpy())
    ref.bias.data = torch.tensor(conv.bias.asnumpy())
    x = randn(1, 4, 3, 2, 3).astype(np.float32)
    np.testing.assert_allclose(conv(T(x)).asnumpy(), ref(torch.tensor(x)).detach().numpy(),
                               atol=1e-5)
    conv1 = nn.Conv1d(4, 6, 3, stride=2, pad_mode="pad", padding=1, dilation=2, group=2)
    ref1 = torch.nn.Conv1d(4, 6, 3, stride=2, padding=1, dilation=2, groups=2, bias=False)
    ref1.weight.data = torch.tensor(conv1.weight.asnumpy())
    x = randn(2, 4, 11).astype(np.float32)
    np.testing.assert_allclose(conv1(T(x)).asnumpy(), ref1(torch.tensor(x)).detach().numpy(),
                               atol=1e-5)


def test_bad_input_names_the_op():
    with pytest.raises(ms.ops.OpError, match="conv3d"):
        ops.conv3d(ops.ones((1, 2, 3, 3)), ops.ones((1, 2, 1, 1, 1)))
    with pytest.raises(ms.ops.OpError, match="conv_transpose2d"):
        ops.conv_transpose2d(ops.ones((1, 3, 3, 3)), ops.ones((2, 1, 1, 1)))
