"""ms.export to ONNX: onnx.checker passes and onnxruntime answers as minispore does."""
import numpy as np
import pytest

import minispore as ms
from minispore import nn, ops
from minispore.examples.digits import DigitsCNN
from minispore.export import ExportError

onnx = pytest.importorskip("onnx", reason="onnx not installed (pip install 'minispore[onnx]')")
pytest.importorskip("onnxruntime", reason="onnxruntime not installed (minispore[onnx] extra)")


def rand(*shape, seed=0):
    return ms.Tensor(np.random.default_rng(seed).standard_normal(shape).astype(np.float32))


def round_trip(net, x, tmp_path, **kwargs):
    """(minispore's output, onnxruntime's output of the exported file) for `x`."""
    net.set_train(False)
    path = ms.export(net, x, file_name=str(tmp_path / "net"), file_format="ONNX", **kwargs)
    onnx.checker.check_model(onnx.load(path))
    loaded = nn.GraphCell(ms.load(path))
    return net(x).asnumpy(), loaded(x).asnumpy(), loaded


class EncoderBlock(nn.Cell):
    """A pre-LN Transformer encoder block written with Dense, LayerNorm and ops."""

    def __init__(self, d=16, heads=2, ffn=32):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm((d,)), nn.LayerNorm((d,))
        self.qkv, self.proj = nn.Dense(d, 3 * d), nn.Dense(d, d)
        self.ff1, self.ff2 = nn.Dense(d, ffn), nn.Dense(ffn, d)

    def construct(self, x):
        b, s, d = x.shape
        q, k, v = ops.split(self.qkv(self.ln1(x)), d, axis=-1)
        split = lambda t: t.reshape(b, s, self.heads, d // self.heads).transpose(0, 2, 1, 3)
        q, k, v = split(q), split(k), split(v)
        scores = ops.matmul(q, k.transpose(0, 1, 3, 2)) / float(np.sqrt(d // self.heads))
        attn = ops.matmul(ops.softmax(scores, axis=-1), v).transpose(0, 2, 1, 3).reshape(b, s, d)
        x = x + self.proj(attn)
        return x + self.ff2(ops.gelu(self.ff1(self.ln2(x)), approximate="tanh"))


class TinyLSTM(nn.Cell):
    """An LSTM written with ops (the time loop unrolls when traced), then a Dense head."""

    def __init__(self, n_in=3, hidden=5):
        super().__init__()
        self.hidden = hidden
        self.gates = nn.Dense(n_in + hidden, 4 * hidden)
        self.head = nn.Dense(hidden, 2)

    def construct(self, x):
        h = ops.zeros((x.shape[0], self.hidden), ms.float32)
        c = ops.zeros((x.shape[0], self.hidden), ms.float32)
        for t in range(x.shape[1]):
            i, f, g, o = ops.split(self.gates(ops.concat((x[:, t], h), axis=1)), self.hidden, 1)
            c = ops.sigmoid(f) * c + ops.sigmoid(i) * ops.tanh(g)
            h = ops.sigmoid(o) * ops.tanh(c)
        return self.head(h)


class LibraryRecurrent(nn.Cell):
    """nn.LSTM, nn.GRU or nn.RNN (bidirectional, 2 layers: ONNX LSTM, GRU or RNN nodes), then
    a Dense."""

    def __init__(self, layer, **kwargs):
        super().__init__()
        self.recurrent = layer(4, 6, num_layers=2, batch_first=True, bidirectional=True,
                               **kwargs)
        self.head = nn.Dense(12, 2)

    def construct(self, x):
        out, _ = self.recurrent(x)
        return self.head(out[:, -1])


@pytest.mark.parametrize("build, shape", [
    (lambda: nn.SequentialCell([nn.Dense(4, 8), nn.ReLU(), nn.Dense(8, 3, activation="tanh")]),
     (5, 4)),
    (DigitsCNN, (4, 1, 8, 8)),
    (EncoderBlock, (2, 6, 16)),
    (TinyLSTM, (3, 4, 3)),
    (lambda: LibraryRecurrent(nn.LSTM), (3, 5, 4)),
    (lambda: LibraryRecurrent(nn.GRU), (3, 5, 4)),
    (lambda: LibraryRecurrent(nn.RNN, nonlinearity="relu"), (3, 5, 4)),
    (lambda: nn.TransformerEncoderLayer(16, 2, dim_feedforward=32, dropout=0.0,
                                        batch_first=True), (2, 6, 16)),
], ids=["mlp", "digits-cnn", "transformer-encoder-block", "lstm", "nn-lstm", "nn-gru",
        "nn-rnn-relu", "nn-transformer-encoder-layer"])
def test_exported_network_matches_minispore(build, shape, tmp_path):
    ms.set_seed(3)
    expected, got, _ = round_trip(build(), rand(*shape), tmp_path)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5)


def test_parameters_keep_their_names_and_a_training_net_exports_its_inference_graph(tmp_path):
    ms.set_seed(0)
    net = DigitsCNN()
    net.set_train(True)
    x = rand(3, 1, 8, 8)
    path = ms.export(net, x, file_name=str(tmp_path / "cnn.onnx"), file_format="onnx")
    assert net.training  # restored after the export
    names = {init.name for init in onnx.load(path).graph.initializer}
    assert {"features.0.weight", "features.1.moving_mean", "classifier.bias"} <= names
    net.set_train(False)
    np.testing.assert_allclose(ms.load(path)(x).asnumpy(), net(x).asnumpy(), rtol=1e-5,
                               atol=1e-5)


def test_dynamic_batch(tmp_path):
    ms.set_seed(1)
    net = DigitsCNN()
    _, _, loaded = round_trip(net, rand(2, 1, 8, 8), tmp_path, dynamic_batch=True)
    other = rand(7, 1, 8, 8, seed=5)
    np.testing.assert_allclose(loaded(other).asnumpy(), net(other).asnumpy(), rtol=1e-5,
                               atol=1e-5)


def test_basic_indexing_translates(tmp_path):
    class Slicer(nn.Cell):
        def construct(self, x):
            return x[:, 1:, ::2] * 2.0 + x[0, None, :-1, -1::-2] - x[..., 1][:, 1:, None]

    expected, got, _ = round_trip(Slicer(), rand(2, 4, 5), tmp_path)
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_an_op_without_translation_names_the_op_and_the_line(tmp_path):
    class Sorter(nn.Cell):
        def construct(self, x):
            return ops.sort(x)[0]                                  # no ONNX rule

    with pytest.raises(ExportError, match=r"ops\.sort \(traced at .*test_export\.py:\d+: "
                                          r"return ops\.sort\(x\)\[0\].*no ONNX translation"):
        ms.export(Sorter(), rand(2, 3), file_name=str(tmp_path / "s"), file_format="ONNX")
    assert not list(tmp_path.iterdir())  # nothing half-written


def test_mindspore_internal_formats_are_refused_clearly(tmp_path):
    with pytest.raises(ExportError, match="MINDIR.*MindSpore's internal format"):
        ms.export(nn.Dense(2, 2), rand(1, 2), file_name=str(tmp_path / "n"),
                  file_format="MINDIR")
    with pytest.raises(ValueError, match="not an ONNX file"):
        ms.load(str(tmp_path / "n.mindir"))
