"""One error contract: a bad call raises the same OpError class, with the same op, inputs and
user line, in PyNative and compiled (whether the compiled call finds it while tracing or
while running), and no mode or tier returns a value where another raises."""
import os
import warnings

import numpy as np
import pytest
from helpers import run_in_mode

import minispore as ms
from minispore import Tensor, nn, ops
from minispore.ops import OpError, OpShapeError, OpTypeError

THIS_FILE = os.path.basename(__file__)


def f32(*shape):
    return Tensor(np.arange(np.prod(shape, dtype=int), dtype=np.float32).reshape(shape) / 7)


def i32(*values):
    return Tensor(np.array(values, np.int32))


# The user's functions: each op on a line of its own, which the error must name.

def cross_entropy(logits, labels):
    return ops.cross_entropy(logits, labels)


def cross_entropy_grad(logits, labels):
    return ms.grad(lambda z: ops.cross_entropy(z, labels))(logits)


def cross_entropy_value_and_grad(logits, labels):
    return ms.value_and_grad(lambda z: ops.cross_entropy(z, labels))(logits)


def lookup(table, index):
    return ops.gather(table, index, 0)


def largest(x):
    return ops.amax(x)


def probabilities(x):
    return ops.softmax(x)


def exp_of_two(x):
    return ops.exp(x, x)


def add_none(x):
    return ops.add(x, None)


DENSE = nn.Dense(3, 2)


def dense(x):
    return DENSE(x)


# ***** errors found while the compiled program runs *****

RUN_TIME_ERRORS = {  # id: (function, inputs, fragments its message must contain)
    "label out of range": (cross_entropy, (f32(2, 3), i32(0, 3)),
                           ["ops.sparse_softmax_cross_entropy", "class indices in [0, 3)",
                            "Float32[2, 3], Int32[2]", "return ops.cross_entropy(logits, labels)"]),
    "negative label": (cross_entropy, (f32(2, 3), i32(-1, 0)),
                       ["ops.sparse_softmax_cross_entropy", "class indices in [0, 3)"]),
    "gather index out of range": (lookup, (f32(2, 3), i32(0, 5)),
                                  ["index 5 is out of bounds", "Float32[2, 3], Int32[2]",
                                   "return ops.gather(table, index, 0)"]),
    "max of an empty tensor": (largest, (f32(0),),
                               ["ops.reduce_max", "Float32[0]", "return ops.amax(x)"]),
    "softmax over 0 classes": (probabilities, (f32(2, 0),),
                               ["ops.softmax", "Float32[2, 0]", "return ops.softmax(x)"]),
}


@pytest.mark.parametrize("name", sorted(RUN_TIME_ERRORS))
def test_run_time_errors_are_the_op_errors_of_pynative(name, mode):
    fn, args, fragments = RUN_TIME_ERRORS[name]
    with pytest.raises(OpShapeError) as info:  # a ValueError: `except ValueError` works alike
        run_in_mode(fn, mode, *args)
    message = str(info.value)
    for fragment in fragments + [THIS_FILE]:
        assert fragment in message, f"{fragment!r} not in:\n{message}"
    assert "Graph mode" not in message


# ***** wrong arity and None inputs *****

def test_wrong_arity_names_the_op_the_arity_and_the_line(mode):
    with pytest.raises(OpTypeError) as info:
        run_in_mode(exp_of_two, mode, f32(2))
    message = str(info.value)
    for fragment in ["ops.exp", "takes 1 input(s), got 2", "Float32[2], Float32[2]",
                     THIS_FILE, "return ops.exp(x, x)"]:
        assert fragment in message, f"{fragment!r} not in:\n{message}"


@pytest.mark.parametrize("call", [
    lambda x: ops.add(x, None), lambda x: ops.sub(None, x), lambda x: x * None,
    lambda x: ops.equal(x, None), lambda x: ops.where(x > 0, x, None), lambda x: ops.exp(None)])
def test_a_none_input_is_a_type_error_not_nan(call, mode):
    with pytest.raises(OpTypeError, match=r"input \d is None") as info:
        run_in_mode(call, mode, f32(2))
    assert THIS_FILE in str(info.value)


def test_a_layer_given_the_wrong_width_names_the_users_line(mode):
    with pytest.raises(OpShapeError) as info:
        DENSE(f32(2, 4)) if mode == "pynative" else ms.jit(dense)(f32(2, 4))
    message = str(info.value)
    for fragment in ["nn.Dense", "in_channels=3", "Float32[2, 4]", THIS_FILE]:
        assert fragment in message, f"{fragment!r} not in:\n{message}"


def test_a_graph_mode_cell_given_the_wrong_width_names_the_users_line(mode):
    with pytest.raises(OpShapeError) as info:
        DENSE(f32(2, 4))  # run by the mode the fixture set: GRAPH_MODE compiles construct
    assert "nn.Dense" in str(info.value) and "DENSE(f32(2, 4))" in str(info.value)


# ***** cross-entropy labels out of range: every path raises *****

@pytest.mark.parametrize("labels", [(0, -1), (0, 3)])
@pytest.mark.parametrize("tier", ["pynative", "kernel", "numpy"])
@pytest.mark.parametrize("fn", [cross_entropy_grad, cross_entropy_value_and_grad])
def test_cross_entropy_gradients_reject_labels_out_of_range_in_every_tier(
        fn, tier, labels, monkeypatch):
    if tier == "numpy":  # the impls Graph mode runs before (or instead of) its kernels
        monkeypatch.setenv("MINISPORE_FUSION", "0")
    call = fn if tier == "pynative" else ms.jit(fn)
    for _ in range(2):  # the first compiled call and a replay
        with pytest.raises(OpShapeError, match=r"class indices in \[0, 3\)") as info:
            call(f32(2, 3), i32(*labels))
        assert "ops.sparse_softmax_cross_entropy" in str(info.value)
        assert THIS_FILE in str(info.value)


@pytest.mark.parametrize("tier", ["kernel", "numpy"])
def test_cross_entropy_gradients_in_range_agree_across_tiers(tier, monkeypatch):
    if tier == "numpy":
        monkeypatch.setenv("MINISPORE_FUSION", "0")
    logits, labels = f32(2, 3), i32(2, 0)
    want = cross_entropy_grad(logits, labels).asnumpy()
    np.testing.assert_allclose(ms.jit(cross_entropy_grad)(logits, labels).asnumpy(), want,
                               rtol=1e-6, atol=1e-7)
    p = np.exp(logits.asnumpy()) / np.exp(logits.asnumpy()).sum(1, keepdims=True)
    np.testing.assert_allclose(want, (p - np.eye(3)[[2, 0]]) / 2, rtol=1e-5, atol=1e-7)


def test_cross_entropy_gradient_on_a_device_marks_labels_out_of_range_with_nan(monkeypatch):
    """Device labels are not read on the host (a copy per step): nan marks a bad row, as in
    the loss."""
    from fake_device import FakeNamespace

    from minispore.context import device
    fake = FakeNamespace()
    for name, value in (("_xp", fake), ("current_xp", fake), ("_scalars", {})):
        monkeypatch.setattr(device, name, value)
    loss = lambda z: ops.cross_entropy(z, i32(0, 3, -100, -1), reduction="sum")  # noqa: E731
    grad = ms.grad(loss)(f32(4, 3)).asnumpy()
    assert np.isnan(grad[[1, 3]]).all()
    assert (grad[2] == 0).all() and np.isfinite(grad[0]).all()


# ***** fused kernels *****

def scaled_tanh(x, y):
    return ops.tanh(x) * y + 1


def _fused_step(jitted):
    (executable,) = jitted.cache.values()
    (step,) = [s for s in executable.program.steps if s.label.startswith("fused kernel")]
    return step


def test_a_fused_group_run_through_numpy_names_the_node_that_failed():
    """The numpy tier (while a kernel compiles) runs the group's nodes one by one: a node that
    fails raises its op's error at its line, as in PyNative."""
    jitted = ms.jit(scaled_tanh)
    jitted(f32(3), f32(3))
    group = _fused_step(jitted).fn.group
    with pytest.raises(OpShapeError) as info:
        group.run_nodes(np, [np.ones(3, np.float32), np.ones(4, np.float32)])
    message = str(info.value)
    for fragment in ["ops.mul", "Float32[3], Float32[4]", "return ops.tanh(x) * y + 1"]:
        assert fragment in message, f"{fragment!r} not in:\n{message}"


def test_a_failing_fused_kernel_names_its_ops_and_the_users_line():
    jitted = ms.jit(scaled_tanh)
    jitted(f32(3), f32(3))

    def out_of_memory(*args, **kwargs):
        raise MemoryError("no room")

    _fused_step(jitted).fn = out_of_memory
    with pytest.raises(OpShapeError, match=r"fused kernel \(3 ops: tanh, mul, add\): "
                                           r"MemoryError: no room") as info:
        jitted(f32(3), f32(3))
    assert "return ops.tanh(x) * y + 1" in str(info.value)


# ***** integer arithmetic that a fused kernel would compute differently *****

@pytest.mark.parametrize("tier", ["kernel", "numpy"])
def test_integer_division_by_zero_gives_numpys_values_in_every_tier(tier, monkeypatch):
    if tier == "numpy":
        monkeypatch.setenv("MINISPORE_FUSION", "0")
    a, b = i32(7, -7, 5), i32(0, 2, 0)
    with np.errstate(divide="ignore"):
        want = [(np.floor_divide(a.asnumpy(), b.asnumpy()) + 1) * 2,
                (np.mod(a.asnumpy(), b.asnumpy()) + 1) * 2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # numpy's divide by zero
        got = ms.jit(lambda x, y: ((x // y + 1) * 2, (x % y + 1) * 2))(a, b)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g.asnumpy(), w)


def test_a_negative_integer_power_raises_in_both_modes(mode):
    with pytest.raises(OpShapeError, match="ops.pow.*negative integer powers"):
        run_in_mode(lambda x, y: (x ** y + 1) * 2, mode, i32(2, 3), i32(-1, 2))


# ***** the mean of nothing *****

@pytest.mark.parametrize("shape, axis, want", [((0,), None, np.nan), ((0, 2), 0, [np.nan] * 2),
                                               ((2, 0), 1, [np.nan] * 2), ((0, 2), 1, [])])
def test_the_mean_of_no_elements_is_nan_without_a_warning(shape, axis, want, mode):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = run_in_mode(lambda x: ops.mean(x, axis), mode, f32(*shape))
    np.testing.assert_array_equal(got.asnumpy(), np.array(want, np.float32))  # numpy's too


# ***** the walk: bad calls of many ops raise the same class in both modes *****

# id: (function of tensors, its inputs). Add an op's bad call here: the walk runs it eagerly
# and under ms.jit (tensors as inputs, so nothing folds to a constant) and compares.
BAD_CALLS = {
    "add shapes": (lambda a, b: ops.add(a, b), (f32(2, 3), f32(4))),
    "mul operator shapes": (lambda a, b: a * b, (f32(2, 3), f32(3, 2))),
    "add None": (add_none, (f32(2),)),
    "where None": (lambda a: ops.where(a > 0, a, None), (f32(2),)),
    "exp arity": (exp_of_two, (f32(2),)),
    "matmul contraction": (lambda a, b: ops.matmul(a, b), (f32(2, 3), f32(4, 5))),
    "reshape size": (lambda a: ops.reshape(a, (4, 2)), (f32(2, 3),)),
    "transpose perm": (lambda a: ops.transpose(a, (0, 0)), (f32(2, 3),)),
    "squeeze non-unit": (lambda a: ops.squeeze(a, 0), (f32(2, 3),)),
    "expand_dims axis": (lambda a: ops.expand_dims(a, 5), (f32(2, 3),)),
    "concat shapes": (lambda a, b: ops.concat([a, b]), (f32(2, 3), f32(3, 2))),
    "split sections": (lambda a: ops.split(a, [2, 2]), (f32(5),)),
    "broadcast_to": (lambda a: ops.broadcast_to(a, (4, 3)), (f32(2, 3),)),
    "sum axis": (lambda a: ops.sum(a, 2), (f32(2, 3),)),
    "argmax axis": (lambda a: ops.argmax(a, -3), (f32(2, 3),)),
    "select condition dtype": (lambda c, a: ops.select(c, a, a), (i32(1, 0), f32(2))),
    "one_hot float indices": (lambda a: ops.one_hot(a, 3), (f32(2),)),
    "bitwise_not floats": (lambda a: ~a, (f32(2),)),
    "getitem out of bounds": (lambda a: a[5], (f32(2, 3),)),
    "scatter update shapes": (lambda a, v: ops.tensor_scatter_update(a, i32(0)[None], v),
                              (f32(2, 3), f32(1, 4))),
    "conv2d channels": (lambda x, w: ops.conv2d(x, w), (f32(1, 2, 4, 4), f32(3, 3, 1, 1))),
    "cross_entropy shapes": (lambda z, t: ops.cross_entropy(z, t), (f32(2, 3), i32(0, 1, 2))),
    "dense width": (dense, (f32(2, 4),)),
    "embedding width": (lambda i: nn.Embedding(3, 2)(i), (f32(2),)),
    "reshape negative size": (lambda a: ops.reshape(a, (4, -3)), (f32(2, 6),)),
    "tile negative multiple": (lambda a: ops.tile(a, (2, -1)), (f32(2, 3),)),
    "stack shapes": (lambda a, b: ops.stack([a, b]), (f32(2), f32(3))),
    "tril of a vector": (lambda a: ops.tril(a), (f32(3),)),
    "cumsum axis": (lambda a: ops.cumsum(a, 2), (f32(2, 3),)),
    "sort axis": (lambda a: ops.sort(a, 3), (f32(2, 3),)),
    "roll axis": (lambda a: ops.roll(a, 1, 5), (f32(2, 3),)),
    "flatten start_dim": (lambda a: ops.flatten(a, start_dim=3), (f32(2, 3),)),
    "prod axis": (lambda a: ops.prod(a, 4), (f32(2, 3),)),
    "log_softmax axis": (lambda a: ops.log_softmax(a, 3), (f32(2, 3),)),
    "layer_norm shape": (lambda a: ops.layer_norm(a, (4,)), (f32(2, 3),)),
    "batch_norm channels": (lambda x, m: ops.batch_norm(x, m, m, m, m), (f32(2, 3), f32(4))),
    "max_pool2d rank": (lambda a: ops.max_pool2d(a, 2), (f32(3),)),
    "avg_pool2d window": (lambda a: ops.avg_pool2d(a, 5), (f32(1, 1, 2, 2),)),
    "nll_loss shapes": (lambda a, t: ops.nll_loss(a, t), (f32(2, 3), i32(0, 1, 2))),
    "mse_loss shapes": (lambda a, b: ops.mse_loss(a, b), (f32(2, 3), f32(3, 2))),
    "masked_fill shapes": (lambda a, m: ops.masked_fill(a, m, 0.0),
                           (f32(2, 3), Tensor(np.ones(4, bool)))),
    "einsum operands": (lambda a: ops.einsum("ij,jk->ik", a), (f32(2, 3),)),
    "integer power": (lambda a, b: a ** b, (i32(2, 3), i32(-1, 2))),
    # found while running
    "label out of range": (cross_entropy, (f32(2, 3), i32(0, 3))),
    "gradient label out of range": (cross_entropy_grad, (f32(2, 3), i32(0, -1))),
    "gather index out of range": (lookup, (f32(2, 3), i32(0, 5))),
    "gather_nd index out of range": (lambda a, i: ops.gather_nd(a, i),
                                     (f32(2, 3), Tensor(np.array([[0, 5]], np.int32)))),
    "index_select out of range": (lambda a, i: ops.index_select(a, 0, i), (f32(2, 3), i32(9))),
    "embedding index out of range": (lambda i: nn.Embedding(3, 2)(i), (i32(0, 7),)),
    "max of empty": (largest, (f32(0),)),
    "softmax over 0 classes": (probabilities, (f32(2, 0),)),
}


def _raised(fn, args, mode):
    try:
        run_in_mode(fn, mode, *args)
    except Exception as e:  # noqa: BLE001  (whatever it is, both modes must agree)
        return e
    pytest.fail(f"{mode} raised nothing")


@pytest.mark.parametrize("name", sorted(BAD_CALLS))
def test_bad_calls_raise_the_same_error_in_both_modes(name):
    fn, args = BAD_CALLS[name]
    pynative, graph = (_raised(fn, args, mode) for mode in ("pynative", "graph"))
    assert type(graph) is type(pynative), f"PyNative: {pynative!r}\nGraph: {graph!r}"
    assert isinstance(pynative, (ValueError, TypeError)), repr(pynative)
    if name in NAMED_BY_ANOTHER_ROW:
        assert _complaint_and_line(graph) == _complaint_and_line(pynative)
    else:
        assert str(graph) == str(pynative)
    if isinstance(pynative, OpError):  # an op's error names the user's line
        assert THIS_FILE in str(graph).splitlines()[-1]


# A compiled gradient runs only the gradient's row (the loss's is not needed): it names
# itself and its inputs (the loss's and the cotangent); its complaint and the line agree.
NAMED_BY_ANOTHER_ROW = {"gradient label out of range"}


def _complaint_and_line(error):
    lines = str(error).splitlines()
    return lines[0].split(": ", 1)[1], lines[-1]
