"""Checkpoints: round trip, damaged files rejected with nothing changed, atomic writes."""
import os

import numpy as np
import pytest

import minispore as ms
from minispore import nn
from minispore.train import CheckpointError, load_checkpoint, load_param_into_net, save_checkpoint
from minispore.train import checkpoint as ckpt


class Inner(nn.Cell):
    def __init__(self, rng):
        super().__init__()
        self.weight = ms.Parameter(ms.Tensor(rng.standard_normal((3, 4)).astype(np.float32)))
        self.steps = ms.Parameter(ms.Tensor(np.array([7, 8], np.int64)), requires_grad=False)

    def construct(self, x):
        return x @ self.weight


class Net(nn.Cell):
    """Parameters of several dtypes and shapes, one in a sub-cell (name "inner.weight")."""

    def __init__(self, seed=0):
        super().__init__()
        rng = np.random.default_rng(seed)
        self.inner = Inner(rng)
        self.bias = ms.Parameter(ms.Tensor(rng.standard_normal(4)))  # float64
        self.flag = ms.Parameter(ms.Tensor(np.array(True)), requires_grad=False)
        self.half = ms.Parameter(ms.Tensor(rng.standard_normal((2, 2)).astype(np.float16)))

    def construct(self, x):
        return self.inner(x) + self.bias


def values(net):
    return {p.name: p.asnumpy().copy() for p in net.get_parameters()}


def assert_same_values(a, b):
    assert a.keys() == b.keys()
    for name in a:
        assert a[name].dtype == b[name].dtype, name
        np.testing.assert_array_equal(a[name], b[name], err_msg=name)


def test_round_trip_values_dtypes_names(tmp_path):
    net = Net(seed=0)
    path = tmp_path / "net.ckpt"
    save_checkpoint(net, str(path))
    params = load_checkpoint(str(path))
    assert list(params) == [p.name for p in net.get_parameters()]  # in the net's order
    assert set(params) == {"inner.weight", "inner.steps", "bias", "flag", "half"}
    for name, p in params.items():
        assert isinstance(p, ms.Parameter) and p.name == name
    assert_same_values({n: p.asnumpy() for n, p in params.items()}, values(net))

    other = Net(seed=1)
    assert not np.array_equal(other.inner.weight.asnumpy(), net.inner.weight.asnumpy())
    param_not_load, ckpt_not_load = load_param_into_net(other, params)
    assert param_not_load == [] and ckpt_not_load == []
    assert_same_values(values(other), values(net))


def test_load_checkpoint_into_net_and_append_dict(tmp_path):
    net = Net(seed=0)
    path = str(tmp_path / "with_extra")  # ".ckpt" is appended
    save_checkpoint(net, path, append_dict={"epoch_num": 3, "lr": 0.5, "note": "best"})
    assert os.path.exists(path + ".ckpt")
    other = Net(seed=1)
    params = load_checkpoint(path + ".ckpt", net=other)
    assert_same_values(values(other), values(net))
    assert params["epoch_num"].asnumpy() == 3 and params["epoch_num"].dtype == ms.int64
    assert params["lr"].asnumpy() == np.float32(0.5) and params["note"] == "best"


def test_list_and_dict_save_objects(tmp_path):
    a = ms.Tensor(np.arange(6, dtype=np.int32).reshape(2, 3))
    save_checkpoint([{"name": "a", "data": a}], str(tmp_path / "list.ckpt"))
    save_checkpoint({"a": a, "b": ms.Tensor(2.5)}, str(tmp_path / "dict.ckpt"))
    np.testing.assert_array_equal(load_checkpoint(str(tmp_path / "list.ckpt"))["a"].asnumpy(),
                                  a.asnumpy())
    loaded = load_checkpoint(str(tmp_path / "dict.ckpt"))
    assert loaded["b"].asnumpy() == np.float32(2.5) and loaded["a"].dtype == ms.int32


def test_prefix_filters(tmp_path):
    path = str(tmp_path / "net.ckpt")
    save_checkpoint(Net(), path)
    assert set(load_checkpoint(path, filter_prefix="inner")) == {"bias", "flag", "half"}
    assert set(load_checkpoint(path, filter_prefix=["inner", "b"])) == {"flag", "half"}
    assert set(load_checkpoint(path, specify_prefix="inner.")) == {"inner.weight", "inner.steps"}
    assert set(load_checkpoint(path, choice_func=lambda n: n.endswith("weight"))) == {
        "inner.weight"}
    with pytest.raises(TypeError, match="filter_prefix"):
        load_checkpoint(path, filter_prefix=3)
    save_checkpoint(Net(), path, choice_func=lambda n: n != "half")
    assert set(load_checkpoint(path)) == {"inner.weight", "inner.steps", "bias", "flag"}


def test_not_loaded_names_are_reported(tmp_path):
    path = str(tmp_path / "net.ckpt")
    save_checkpoint(Net(), path, append_dict={"epoch_num": 1})
    params = load_checkpoint(path, filter_prefix="bias")
    param_not_load, ckpt_not_load = load_param_into_net(Net(seed=2), params)
    assert param_not_load == ["bias"] and ckpt_not_load == ["epoch_num"]


def test_non_strict_load_matches_a_common_prefix(tmp_path):
    net = Net(seed=0)
    wrapped = {f"network.{n}": p for n, p in net.parameters_dict().items()}
    other = Net(seed=1)
    assert load_param_into_net(other, wrapped, strict_load=True)[0] == list(values(net))
    param_not_load, ckpt_not_load = load_param_into_net(other, wrapped)
    assert param_not_load == [] and ckpt_not_load == []
    assert_same_values(values(other), values(net))


def test_non_strict_load_converts_float_precision():
    net = Net(seed=0)
    params = {"half": ms.Tensor(np.full((2, 2), 1.5, np.float32))}
    with pytest.raises(ValueError, match=r"half: checkpoint dtype float32, network dtype float16"):
        load_param_into_net(net, params, strict_load=True)
    load_param_into_net(net, params)
    assert net.half.dtype == ms.float16
    np.testing.assert_array_equal(net.half.asnumpy(), np.full((2, 2), 1.5, np.float16))


def test_shape_mismatch_names_every_parameter_and_changes_nothing(tmp_path):
    path = str(tmp_path / "bad_shapes.ckpt")
    good = Net(seed=0).parameters_dict()
    save_checkpoint({"inner.weight": ms.Tensor(np.ones((4, 3), np.float32)),
                     "bias": good["bias"],
                     "half": ms.Tensor(np.ones(3, np.float16)),
                     "flag": ms.Tensor(np.array(1.0))}, path)
    net = Net(seed=1)
    before = values(net)
    with pytest.raises(ValueError) as info:
        load_checkpoint(path, net=net)
    message = str(info.value)
    assert "bad_shapes.ckpt" in message and "no parameter was changed" in message
    assert "inner.weight: checkpoint shape (4, 3), network shape (3, 4)" in message
    assert "half: checkpoint shape (3,), network shape (2, 2)" in message
    assert "flag: checkpoint dtype float64, network dtype bool" in message
    assert "bias" not in message.split("changed:")[1]
    assert_same_values(values(net), before)  # bias matched, but was not loaded either


def _damaged_load_leaves_net_unchanged(path):
    net = Net(seed=1)
    before = values(net)
    with pytest.raises(CheckpointError) as info:
        load_checkpoint(path, net=net)
    assert os.path.basename(path) in str(info.value)
    assert_same_values(values(net), before)
    return str(info.value)


def test_truncated_file_is_rejected(tmp_path):
    path = str(tmp_path / "net.ckpt")
    save_checkpoint(Net(seed=0), path)
    data = open(path, "rb").read()
    for size in (len(data) - 1, len(data) // 2, 10):
        with open(path, "wb") as f:
            f.write(data[:size])
        message = _damaged_load_leaves_net_unchanged(path)
        assert "truncated" in message


def test_flipped_byte_is_rejected_anywhere(tmp_path):
    path = str(tmp_path / "net.ckpt")
    save_checkpoint(Net(seed=0), path)
    data = open(path, "rb").read()
    for position in (2, 9, 30, len(data) // 2, len(data) - 40, len(data) - 1):
        damaged = bytearray(data)
        damaged[position] ^= 0x10
        with open(path, "wb") as f:
            f.write(bytes(damaged))
        _damaged_load_leaves_net_unchanged(path)


def test_not_a_checkpoint_and_missing_file(tmp_path):
    path = tmp_path / "junk.ckpt"
    path.write_bytes(b"x" * 100)
    with pytest.raises(CheckpointError, match="wrong magic"):
        load_checkpoint(str(path))
    with pytest.raises(CheckpointError, match="cannot be read"):
        load_checkpoint(str(tmp_path / "missing.ckpt"))


def test_failure_mid_write_keeps_the_old_file_and_leaves_no_temp_file(tmp_path, monkeypatch):
    path = str(tmp_path / "net.ckpt")
    save_checkpoint(Net(seed=0), path)
    old_bytes = open(path, "rb").read()

    calls = []
    real_array_bytes = ckpt._array_bytes

    def fail_on_second_tensor(array):
        calls.append(1)
        if len(calls) == 2:  # header, index and the first tensor are already written
            raise OSError("disk full")
        return real_array_bytes(array)

    monkeypatch.setattr(ckpt, "_array_bytes", fail_on_second_tensor)
    with pytest.raises(OSError, match="disk full"):
        save_checkpoint(Net(seed=1), path)
    assert len(calls) == 2
    assert open(path, "rb").read() == old_bytes
    assert os.listdir(tmp_path) == ["net.ckpt"]
    assert_same_values({n: p.asnumpy() for n, p in load_checkpoint(path).items()},
                       values(Net(seed=0)))


def test_save_errors_are_clear(tmp_path):
    with pytest.raises(FileNotFoundError, match="does not exist"):
        save_checkpoint(Net(), str(tmp_path / "no_such_dir" / "net.ckpt"))
    with pytest.raises(TypeError, match="save_obj must be"):
        save_checkpoint(3, str(tmp_path / "x.ckpt"))
    with pytest.raises(ValueError, match="occurs twice"):
        save_checkpoint(Net(), str(tmp_path / "x.ckpt"), append_dict={"bias": 1})
    with pytest.raises(TypeError, match="'note' must be int, float, bool, str or Tensor"):
        save_checkpoint(Net(), str(tmp_path / "x.ckpt"), append_dict={"note": [1]})
    assert os.listdir(tmp_path) == []


def test_load_param_into_net_type_errors():
    with pytest.raises(TypeError, match="net must be a Cell"):
        load_param_into_net(object(), {})
    with pytest.raises(TypeError, match="parameter_dict must be a dict"):
        load_param_into_net(Net(), [])


def test_inconsistent_index_with_a_valid_checksum_is_rejected(tmp_path):
    # a writer bug (not damage): the digest matches, the index does not fit the payload
    import hashlib
    import json
    index = json.dumps({"tensors": [{"name": "w", "dtype": "float32", "shape": [2, 2],
                                     "offset": 0, "nbytes": 16}],
                        "strings": {}, "payload_nbytes": 8}).encode()
    body = ckpt._HEADER.pack(ckpt.MAGIC, ckpt.VERSION, len(index)) + index + bytes(8)
    path = tmp_path / "bad_index.ckpt"
    path.write_bytes(body + hashlib.sha256(body).digest())
    with pytest.raises(CheckpointError, match=r"bad_index.ckpt.*malformed index: w: data runs"):
        load_checkpoint(str(path))
