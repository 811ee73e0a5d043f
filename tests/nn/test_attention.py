"""MultiheadAttention and the Transformer layers: values against a numpy reference of the
attention formula and against PyTorch's modules with copied weights (where torch is
installed), masks of every kind, gradients by finite differences, both modes, MindSpore's
parameter names and order."""
import numpy as np
import pytest
from helpers import run_in_mode
from nn_checks import T, check_cell_grads

import minispore as ms
from minispore import nn, ops


def _rng(seed):
    return np.random.default_rng(seed)


def _softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def numpy_mha(q, k, v, w_in, b_in, w_out, b_out, heads, bias=None):
    """The formula: per head softmax(q_h k_h^T / sqrt(d) + bias) v_h, joined, projected.
    q (L, N, E), k and v (S, N, E); bias broadcasts to (N, H, L, S)."""
    E = q.shape[-1]
    d = E // heads
    wq, wk, wv = np.split(w_in, 3)
    bq, bk, bv = np.split(b_in, 3)
    Q, K, V = q @ wq.T + bq, k @ wk.T + bk, v @ wv.T + bv

    def split(t):   # (L, N, E) -> (N, H, L, d)
        return t.reshape(t.shape[0], t.shape[1], heads, d).transpose(1, 2, 0, 3)

    scores = split(Q) @ split(K).transpose(0, 1, 3, 2) / np.sqrt(d)
    if bias is not None:
        scores = scores + bias
    weights = _softmax(scores)
    out = (weights @ split(V)).transpose(2, 0, 1, 3).reshape(q.shape[0], q.shape[1], E)
    return out @ w_out.T + b_out, weights


def _mha64(embed_dim=8, heads=2, **kwargs):
    return nn.MultiheadAttention(embed_dim, heads, dtype=ms.float64, **kwargs)


def _params(mha):
    return (mha.in_proj_weight.asnumpy(), mha.in_proj_bias.asnumpy(),
            mha.out_proj.weight.asnumpy(), mha.out_proj.bias.asnumpy())


def test_parameter_names_and_order_are_mindspores():
    mha = nn.MultiheadAttention(8, 2)
    assert [p.name for p in mha.get_parameters()] == [
        "in_proj_weight", "in_proj_bias", "out_proj.weight", "out_proj.bias"]
    assert mha.in_proj_weight.shape == (24, 8)
    separate = nn.MultiheadAttention(8, 2, kdim=5, vdim=3, add_bias_kv=True)
    assert [(p.name, p.shape) for p in separate.get_parameters()] == [
        ("q_proj_weight", (8, 8)), ("k_proj_weight", (8, 5)), ("v_proj_weight", (8, 3)),
        ("in_proj_bias", (24,)), ("bias_k", (1, 1, 8)), ("bias_v", (1, 1, 8)),
        ("out_proj.weight", (8, 8)), ("out_proj.bias", (8,))]   # a Cell's own, then its cells'

    layer = nn.TransformerEncoderLayer(8, 2, 16)
    assert [p.name for p in layer.get_parameters()] == [
        "self_attn.in_proj_weight", "self_attn.in_proj_bias", "self_attn.out_proj.weight",
        "self_attn.out_proj.bias", "dense1.weight", "dense1.bias", "dense2.weight",
        "dense2.bias", "norm1.gamma", "norm1.beta", "norm2.gamma", "norm2.beta"]
    decoder = nn.TransformerDecoderLayer(8, 2, 16)
    assert [p.name for p in decoder.get_parameters()][4:8] == [
        "multihead_attn.in_proj_weight", "multihead_attn.in_proj_bias",
        "multihead_attn.out_proj.weight", "multihead_attn.out_proj.bias"]
    model = nn.Transformer(8, 2, 2, 1, 16)
    names = [p.name for p in model.get_parameters()]
    assert names[0] == "encoder.layers.0.self_attn.in_proj_weight"
    assert "encoder.layers.1.norm2.beta" in names and "encoder.norm.gamma" in names
    assert names[-2:] == ["decoder.norm.gamma", "decoder.norm.beta"]
    # independent layers: separate parameters, different initial values
    enc = model.encoder.layers
    assert not np.array_equal(enc[0].dense1.weight.asnumpy(), enc[1].dense1.weight.asnumpy())


MASKS = ["none", "bool-attn", "float-attn", "3d-attn", "key-padding", "both"]


def _masks(kind, L, S, N, H, rng):
    """(attn_mask, key_padding_mask, the additive bias they mean, (N, H, L, S))."""
    bias = np.zeros((N, H, L, S))
    attn = padding = None
    if kind in ("bool-attn", "both"):
        attn = np.triu(np.ones((L, S), bool), 1)
        bias = bias + np.where(attn, -1e30, 0)
    if kind == "float-attn":
        attn = rng.standard_normal((L, S))
        bias = bias + attn
    if kind == "3d-attn":
        attn = rng.standard_normal((N * H, L, S))
        bias = bias + attn.reshape(N, H, L, S)
    if kind in ("key-padding", "both"):
        padding = np.zeros((N, S), bool)
        padding[0, -2:] = True
        padding[1, -1] = True
        bias = bias + np.where(padding, -1e30, 0)[:, None, None, :]
    return attn, padding, bias


@pytest.mark.parametrize("kind", MASKS)
def test_values_match_the_formula_with_masks_in_both_modes(kind, mode):
    rng = _rng(0)
    L, S, N, E, H = 4, 5, 2, 8, 2
    mha = _mha64(E, H)
    q, k = rng.standard_normal((L, N, E)), rng.standard_normal((S, N, E))
    v = rng.standard_normal((S, N, E))
    attn, padding, bias = _masks(kind, L, S, N, H, rng)
    want, weights = numpy_mha(q, k, v, *_params(mha), H, bias)

    def run(q, k, v):
        return mha(q, k, v, key_padding_mask=None if padding is None else T(padding),
                   attn_mask=None if attn is None else T(attn), average_attn_weights=False)

    out, got_weights = run_in_mode(run, mode, T(q), T(k), T(v))
    np.testing.assert_allclose(out.asnumpy(), want, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got_weights.asnumpy(), weights, rtol=1e-10, atol=1e-12)


def test_need_weights_average_unbatched_and_batch_first():
    rng = _rng(1)
    mha = _mha64(8, 4)
    x = rng.standard_normal((5, 3, 8))
    out, weights = mha(T(x), T(x), T(x))
    assert weights.shape == (3, 5, 5)
    _, per_head = mha(T(x), T(x), T(x), average_attn_weights=False)
    np.testing.assert_allclose(weights.asnumpy(), per_head.asnumpy().mean(1), rtol=1e-12)
    only = mha(T(x), T(x), T(x), need_weights=False)
    assert isinstance(only, tuple) and len(only) == 1
    np.testing.assert_allclose(only[0].asnumpy(), out.asnumpy(), rtol=1e-12)
    # unbatched (L, E) is batch element 0 alone
    single, single_weights = mha(T(x[:, 0]), T(x[:, 0]), T(x[:, 0]))
    np.testing.assert_allclose(single.asnumpy(), out.asnumpy()[:, 0], rtol=1e-10, atol=1e-12)
    assert single_weights.shape == (5, 5)
    # batch_first: the same layer on (N, L, E)
    first = _mha64(8, 4, batch_first=True)
    for a, b in zip(first.get_parameters(), mha.get_parameters()):
        a.set_data(T(b.asnumpy()))
    out_first, _ = first(T(x.transpose(1, 0, 2)), T(x.transpose(1, 0, 2)),
                         T(x.transpose(1, 0, 2)))
    np.testing.assert_allclose(out_first.asnumpy(), out.asnumpy().transpose(1, 0, 2),
                               rtol=1e-10, atol=1e-12)


def test_gradients_match_finite_differences():
    rng = _rng(2)
    mha = _mha64(4, 2, kdim=3, vdim=5)

    class Loss(nn.Cell):
        def __init__(self):
            super().__init__()
            self.mha = mha

        def construct(self, q, k, v):
            mask = ms.Tensor(np.array([[False, False, True]] * 2))
            return self.mha(q, k, v, key_padding_mask=mask)[0]

    check_cell_grads(Loss(), rng.standard_normal((2, 2, 4)), rng.standard_normal((3, 2, 3)),
                     rng.standard_normal((3, 2, 5)), atol=1e-6, rtol=1e-5)


def test_encoder_layer_gradients_match_finite_differences():
    rng = _rng(3)
    layer = nn.TransformerEncoderLayer(4, 2, 6, dropout=0.0, dtype=ms.float64, norm_first=True)
    check_cell_grads(layer, rng.standard_normal((3, 2, 4)), atol=1e-6, rtol=1e-5)


# ***** against PyTorch, weights copied *****

def _torch():
    return pytest.importorskip("torch", reason="reference values from torch.nn's modules")


def _copy_mha(ours, theirs, torch):
    with torch.no_grad():
        if ours.in_proj_weight is not None:
            theirs.in_proj_weight.copy_(torch.tensor(ours.in_proj_weight.asnumpy()))
        else:
            for name in ("q_proj_weight", "k_proj_weight", "v_proj_weight"):
                getattr(theirs, name).copy_(torch.tensor(getattr(ours, name).asnumpy()))
        theirs.in_proj_bias.copy_(torch.tensor(ours.in_proj_bias.asnumpy()))
        theirs.out_proj.weight.copy_(torch.tensor(ours.out_proj.weight.asnumpy()))
        theirs.out_proj.bias.copy_(torch.tensor(ours.out_proj.bias.asnumpy()))
        if ours.bias_k is not None:
            theirs.bias_k.copy_(torch.tensor(ours.bias_k.asnumpy()))
            theirs.bias_v.copy_(torch.tensor(ours.bias_v.asnumpy()))


def _copy_layer(ours, theirs, torch):
    _copy_mha(ours.self_attn, theirs.self_attn, torch)
    if hasattr(ours, "multihead_attn"):
        _copy_mha(ours.multihead_attn, theirs.multihead_attn, torch)
    pairs = [(ours.dense1.weight, theirs.linear1.weight), (ours.dense1.bias, theirs.linear1.bias),
             (ours.dense2.weight, theirs.linear2.weight), (ours.dense2.bias, theirs.linear2.bias)]
    for k in (1, 2, 3):
        if hasattr(ours, f"norm{k}"):
            pairs += [(getattr(ours, f"norm{k}").gamma, getattr(theirs, f"norm{k}").weight),
                      (getattr(ours, f"norm{k}").beta, getattr(theirs, f"norm{k}").bias)]
    with torch.no_grad():
        for a, b in pairs:
            b.copy_(torch.tensor(a.asnumpy()))


@pytest.mark.parametrize("options", [
    {}, {"kdim": 3, "vdim": 5}, {"add_bias_kv": True}, {"add_zero_attn": True},
    {"batch_first": True}], ids=["self", "kdim-vdim", "bias-kv", "zero-attn", "batch-first"])
@pytest.mark.parametrize("kind", ["none", "bool-attn", "float-attn", "key-padding", "both"])
def test_multihead_attention_matches_pytorch(options, kind, mode):
    torch = _torch()
    rng = _rng(4)
    L, S, N, E, H = 4, 5, 2, 8, 2
    ours = _mha64(E, H, **options)
    theirs = torch.nn.MultiheadAttention(E, H, **options).double()
    _copy_mha(ours, theirs, torch)
    kdim, vdim = options.get("kdim", E), options.get("vdim", E)
    q, k, v = (rng.standard_normal((L, N, E)), rng.standard_normal((S, N, kdim)),
               rng.standard_normal((S, N, vdim)))
    if options.get("batch_first"):
        q, k, v = (a.transpose(1, 0, 2) for a in (q, k, v))
    attn, padding, _ = _masks(kind, L, S, N, H, rng)
    want, want_w = theirs(*(torch.tensor(a) for a in (q, k, v)),
                          key_padding_mask=None if padding is None else torch.tensor(padding),
                          attn_mask=None if attn is None else torch.tensor(attn))

    def run(q, k, v):
        return ours(q, k, v, key_padding_mask=None if padding is None else T(padding),
                    attn_mask=None if attn is None else T(attn))

    out, weights = run_in_mode(run, mode, T(q), T(k), T(v))
    np.testing.assert_allclose(out.asnumpy(), want.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(weights.asnumpy(), want_w.detach().numpy(), rtol=1e-10,
                               atol=1e-12)


@pytest.mark.parametrize("norm_first", [False, True], ids=["post-norm", "pre-norm"])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_encoder_and_decoder_layers_match_pytorch(norm_first, activation, mode):
    torch = _torch()
    rng = _rng(5)
    E, H, F_ = 8, 2, 16
    enc = nn.TransformerEncoderLayer(E, H, F_, 0.0, activation, norm_first=norm_first,
                                     dtype=ms.float64)
    t_enc = torch.nn.TransformerEncoderLayer(E, H, F_, 0.0, activation,
                                             norm_first=norm_first).double().eval()
    _copy_layer(enc, t_enc, torch)
    dec = nn.TransformerDecoderLayer(E, H, F_, 0.0, activation, norm_first=norm_first,
                                     dtype=ms.float64)
    t_dec = torch.nn.TransformerDecoderLayer(E, H, F_, 0.0, activation,
                                             norm_first=norm_first).double().eval()
    _copy_layer(dec, t_dec, torch)
    src, tgt = rng.standard_normal((5, 2, E)), rng.standard_normal((4, 2, E))
    causal = np.triu(np.ones((4, 4), bool), 1)
    padding = np.array([[False] * 4 + [True], [False] * 5])
    memory = t_enc(torch.tensor(src), src_key_padding_mask=torch.tensor(padding))
    want = t_dec(torch.tensor(tgt), memory, tgt_mask=torch.tensor(causal),
                 memory_key_padding_mask=torch.tensor(padding)).detach().numpy()

    def run(src, tgt):
        memory = enc(src, src_key_padding_mask=T(padding))
        return memory, dec(tgt, memory, tgt_mask=T(causal), memory_key_padding_mask=T(padding))

    got_memory, got = run_in_mode(run, mode, T(src), T(tgt))
    np.testing.assert_allclose(got_memory.asnumpy(), memory.detach().numpy(), rtol=1e-9,
                               atol=1e-10)
    np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-9, atol=1e-10)


@pytest.mark.filterwarnings("ignore:enable_nested_tensor")
def test_transformer_matches_pytorch():
    torch = _torch()
    rng = _rng(6)
    ours = nn.Transformer(8, 2, 2, 2, 16, 0.0, dtype=ms.float64)
    theirs = torch.nn.Transformer(8, 2, 2, 2, 16, 0.0).double().eval()
    for a, b in zip(ours.encoder.layers, theirs.encoder.layers):
        _copy_layer(a, b, torch)
    for a, b in zip(ours.decoder.layers, theirs.decoder.layers):
        _copy_layer(a, b, torch)
    with torch.no_grad():
        for a, b in ((ours.encoder.norm, theirs.encoder.norm),
                     (ours.decoder.norm, theirs.decoder.norm)):
            b.weight.copy_(torch.tensor(a.gamma.asnumpy()))
            b.bias.copy_(torch.tensor(a.beta.asnumpy()))
    src, tgt = rng.standard_normal((5, 3, 8)), rng.standard_normal((4, 3, 8))
    mask = theirs.generate_square_subsequent_mask(4).double()   # float, -inf above the diagonal
    want = theirs(torch.tensor(src), torch.tensor(tgt), tgt_mask=mask).detach().numpy()
    for mode in (ms.PYNATIVE_MODE, ms.GRAPH_MODE):
        ms.set_context(mode=mode)
        try:
            got = ours(T(src), T(tgt), tgt_mask=T(mask.numpy()))
        finally:
            ms.set_context(mode=ms.PYNATIVE_MODE)
        np.testing.assert_allclose(got.asnumpy(), want, rtol=1e-9, atol=1e-10)


# ***** arguments and errors *****

def test_activation_argument():
    layer = nn.TransformerEncoderLayer(8, 2, 16, activation=ops.gelu)
    assert layer.activation is ops.gelu
    assert isinstance(nn.TransformerEncoderLayer(8, 2, 16, activation=nn.GELU()).activation,
                      nn.GELU)
    assert isinstance(nn.TransformerDecoderLayer(8, 2, 16, activation="gelu").activation,
                      nn.GELU)
    with pytest.raises(ValueError, match="activation"):
        nn.TransformerEncoderLayer(8, 2, 16, activation="tanhh")
    with pytest.raises(ValueError, match="activation"):
        nn.TransformerEncoderLayer(8, 2, 16, activation=3)


def test_bad_inputs_raise_the_same_error_in_both_modes(mode):
    mha = nn.MultiheadAttention(8, 2)
    x = T(np.ones((4, 2, 8), np.float32))
    with pytest.raises(ValueError, match="divisible"):
        nn.MultiheadAttention(8, 3)
    with pytest.raises(ValueError, match="attn_mask"):
        run_in_mode(lambda x: mha(x, x, x, attn_mask=T(np.zeros((3, 3), np.float32))), mode, x)
    with pytest.raises(TypeError, match="key_padding_mask"):
        run_in_mode(lambda x: mha(x, x, x, key_padding_mask=T(np.zeros((2, 4), np.int32))),
                    mode, x)
    with pytest.raises(ValueError, match="embed_dim"):
        run_in_mode(lambda y: mha(y, y, y), mode, T(np.ones((4, 2, 6), np.float32)))
    model = nn.Transformer(8, 2, 1, 1, 16)
    with pytest.raises(ValueError, match="batch"):
        model(T(np.ones((4, 2, 8), np.float32)), T(np.ones((4, 3, 8), np.float32)))


def test_dropout_acts_only_in_training():
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.5)
    x = T(_rng(7).standard_normal((4, 2, 8)).astype(np.float32))
    layer.set_train(False)
    np.testing.assert_array_equal(layer(x).asnumpy(), layer(x).asnumpy())
    layer.set_train(True)
    assert not np.array_equal(layer(x).asnumpy(), layer(x).asnumpy())


def test_scaled_dot_product_attention_causal():
    rng = _rng(8)
    q, k, v = (rng.standard_normal((2, 3, 4)) for _ in range(3))
    out, weights = ops.scaled_dot_product_attention(T(q), T(k), T(v), is_causal=True)
    bias = np.where(np.triu(np.ones((3, 3), bool), 1), -np.inf, 0)
    want_w = _softmax(q @ k.transpose(0, 2, 1) / 2 + bias)
    np.testing.assert_allclose(weights.asnumpy(), want_w, rtol=1e-12)
    np.testing.assert_allclose(out.asnumpy(), want_w @ v, rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_scaled_masked_softmax_is_one_kernel_in_graph_mode(dtype):
    """The scores' scaling, both masks and the softmax: one step (the biased_softmax
    kernel), with numpy's values, forward and backward."""
    rng = _rng(9)
    mha = nn.MultiheadAttention(16, 4, dtype=ms.float64 if dtype == np.float64 else ms.float32)
    causal = T(np.triu(np.ones((6, 6), bool), 1))
    padding = np.zeros((2, 6), bool)
    padding[1, -2:] = True

    def attend(x):
        return mha(x, x, x, attn_mask=causal, key_padding_mask=T(padding),
                   average_attn_weights=False)

    x = T(rng.standard_normal((6, 2, 16)).astype(dtype))
    f = ms.jit(attend)
    (out, weights), (want_out, want_weights) = f(x), attend(x)
    (executable,) = f.cache.values()
    labels = [s.label for s in executable.program.steps]
    assert "ops.biased_softmax" in labels and not any("softmax" in s and s != "ops.biased_softmax"
                                                      for s in labels), labels
    kernel_step = executable.program.steps[labels.index("ops.biased_softmax")]
    assert getattr(kernel_step.fn, "kernel", None) is not None   # the hand-written kernel ran
    tol = {"rtol": 2e-5, "atol": 1e-6} if dtype == np.float32 else {"rtol": 1e-12, "atol": 1e-14}
    np.testing.assert_allclose(weights.asnumpy(), want_weights.asnumpy(), **tol)
    np.testing.assert_allclose(out.asnumpy(), want_out.asnumpy(), **tol)
    assert (weights.asnumpy()[1, :, :, -2:] == 0).all()

    def loss(x):
        return ops.sum(attend(x)[0] ** 2)

    np.testing.assert_allclose(ms.jit(ms.grad(loss))(x).asnumpy(), ms.grad(loss)(x).asnumpy(),
                               **tol)
