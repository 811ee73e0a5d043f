"""Bad input raises a clear error: it names the op, the inputs' shapes/dtypes, and the line of
the user's code that called it (here: this file), in both modes."""
import os

import numpy as np
import pytest
from helpers import run_in_mode

import minispore as ms
from minispore import Tensor, ops
from minispore.ops import OpError, OpShapeError, OpTypeError

THIS_FILE = os.path.basename(__file__)


def f32(*shape):
    return Tensor(np.ones(shape, np.float32))


OP_ERRORS = {  # id: (call, error class, fragments the message must contain)
    "add shape mismatch": (lambda: ops.add(f32(2, 3), f32(4)), OpShapeError,
                           ["ops.add", "(2, 3)", "(4,)", "Float32[2, 3]", "Float32[4]"]),
    "operator shape mismatch": (lambda: f32(2, 3) * f32(3, 2), OpShapeError,
                                ["ops.mul", "Float32[2, 3]", "Float32[3, 2]"]),
    "matmul contraction": (lambda: ops.matmul(f32(2, 3), f32(4, 5)), OpShapeError,
                           ["ops.matmul", "3 != 4", "Float32[2, 3]", "Float32[4, 5]"]),
    "matmul operator": (lambda: f32(2, 3) @ f32(2, 3), OpShapeError,
                        ["ops.matmul", "Float32[2, 3]"]),
    "select condition not Bool": (
        lambda: ops.select(Tensor([1, 0]), f32(2), f32(2)), OpTypeError,
        ["ops.select", "Bool", "Int64[2]"]),
    "where shapes": (lambda: ops.where(Tensor([True, False, True]), f32(2), 0.0), OpShapeError,
                     ["ops.select", "Bool[3]", "Float32[2]"]),
    "sum bad axis": (lambda: ops.sum(f32(2, 3), axis=2), OpShapeError,
                     ["ops.reduce_sum", "axis 2", "rank 2", "Float32[2, 3]"]),
    "mean bad axis": (lambda: ops.mean(f32(2, 3), (0, -3)), OpShapeError,
                      ["ops.mean", "axis -3", "Float32[2, 3]"]),
    "argmax bad dim": (lambda: ops.argmax(f32(2, 3), dim=-3), OpShapeError,
                       ["ops.argmax", "axis -3", "Float32[2, 3]"]),
    "cumsum bad axis": (lambda: ops.cumsum(f32(4), 1), OpShapeError, ["ops.cumsum", "Float32[4]"]),
    "sort bad axis": (lambda: ops.sort(f32(1, 1), axis=4), OpShapeError, ["ops.sort", "axis 4"]),
    "transpose bad perm": (lambda: ops.transpose(f32(2, 3), (0, 0)), OpShapeError,
                           ["ops.transpose", "perm (0, 0)", "Float32[2, 3]"]),
    "transpose axis out of range": (lambda: ops.transpose(f32(2, 3), (0, 2)), OpShapeError,
                                    ["ops.transpose", "axis 2"]),
    "reshape size": (lambda: ops.reshape(f32(2, 3), (4, 2)), OpShapeError,
                     ["ops.reshape", "6 elements", "(4, 2)", "Float32[2, 3]"]),
    "reshape with -1": (lambda: f32(2, 3).reshape(4, -1), OpShapeError,
                        ["ops.reshape", "(4, -1)", "Float32[2, 3]"]),
    "squeeze non-unit": (lambda: ops.squeeze(f32(2, 3), 0), OpShapeError,
                         ["ops.squeeze", "size 2", "Float32[2, 3]"]),
    "expand_dims axis": (lambda: ops.expand_dims(f32(2, 3), 5), OpShapeError,
                         ["ops.expand_dims", "axis 5", "Float32[2, 3]"]),
    "concat shapes": (lambda: ops.concat([f32(2, 3), f32(3, 2)]), OpShapeError,
                      ["ops.concat", "(2, 3)", "(3, 2)"]),
    "split sections": (lambda: ops.split(f32(5), [2, 2]), OpShapeError,
                       ["ops.split", "[2, 2]", "5"]),
    "broadcast_to": (lambda: ops.broadcast_to(f32(2, 3), (4, 3)), OpShapeError,
                     ["ops.broadcast_to", "(4, 3)", "Float32[2, 3]"]),
    "index out of bounds": (lambda: f32(2, 3)[5], OpShapeError, ["ops.getitem", "Float32[2, 3]"]),
    "too many indices": (lambda: f32(2, 3)[0, 0, 0], OpShapeError, ["ops.getitem", "(2, 3)"]),
    "setitem value shape": (lambda: f32(2, 3).__setitem__(0, f32(4)), OpShapeError,
                            ["ops.setitem", "Float32[2, 3]", "Float32[4]"]),
    "one_hot float indices": (lambda: ops.one_hot(f32(2), 3), OpTypeError,
                              ["ops.one_hot", "integer", "Float32[2]"]),
    "bitwise not on floats": (lambda: ~f32(2), OpTypeError, ["ops.bitwise_not", "Float32[2]"]),
    "arithmetic on bools": (lambda: Tensor([True]) - Tensor([False]), OpTypeError,
                            ["ops.sub", "Bool[1]"]),
    "wrong number of inputs": (lambda: ops.exp(f32(2), f32(2)), OpTypeError,
                               ["ops.exp", "Float32[2], Float32[2]"]),
}


@pytest.mark.parametrize("name", sorted(OP_ERRORS))
def test_op_errors_name_the_op_the_inputs_and_the_user_line(name, mode):
    call, cls, fragments = OP_ERRORS[name]
    with pytest.raises(cls) as info:
        run_in_mode(call, mode)
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in:\n{message}"
    assert THIS_FILE in message, f"the user's file is not named in:\n{message}"
    assert isinstance(info.value, OpError)


def test_op_errors_are_also_value_and_type_errors():
    with pytest.raises(ValueError):
        ops.add(f32(2), f32(3))
    with pytest.raises(TypeError):
        ops.select(Tensor([1]), f32(1), f32(1))


GRAD_ERRORS = {
    "grad_position out of range": (
        lambda: ms.grad(lambda x: x * 2, grad_position=3)(f32(1)), ValueError,
        ["grad", "grad_position 3", "1 positional input"]),
    "grad_position tuple out of range": (
        lambda: ms.value_and_grad(lambda x, y: x * y, (0, 2))(f32(1), f32(1)), ValueError,
        ["value_and_grad", "(0, 2)"]),
    "no positions and no weights": (lambda: ms.grad(lambda x: x, None), ValueError, ["grad"]),
    "has_aux needs a tuple": (lambda: ms.grad(lambda x: x * 2, has_aux=True)(f32(1)), ValueError,
                              ["grad(has_aux=True)", "tuple"]),
    "non-tensor output": (lambda: ms.grad(lambda x: 3.0)(f32(1)), TypeError, ["grad", "float"]),
    "vjp cotangent shape": (lambda: ms.vjp(lambda x: x * 2, f32(2))[1](f32(3)), ValueError,
                            ["vjp_fn", "(3,)", "(2,)"]),
    "jvp tangent shape": (lambda: ms.jvp(lambda x: x * 2, f32(2), f32(1)), ValueError,
                          ["jvp", "(1,)", "(2,)"]),
    "jvp tangent count": (lambda: ms.jvp(lambda x, y: x * y, (f32(1), f32(1)), f32(1)), ValueError,
                          ["jvp", "2 input(s)", "1 tangent(s)"]),
}


@pytest.mark.parametrize("name", sorted(GRAD_ERRORS))
def test_grad_api_errors(name):
    call, cls, fragments = GRAD_ERRORS[name]
    with pytest.raises(cls) as info:
        call()
    message = str(info.value)
    for fragment in fragments:
        assert fragment in message, f"{fragment!r} not in:\n{message}"
    assert THIS_FILE in message, f"the user's file is not named in:\n{message}"


def test_bad_tensor_construction():
    with pytest.raises(TypeError, match="Tensor"):
        Tensor("abc")
    with pytest.raises(TypeError, match="Float32"):  # the message lists the supported dtypes
        ops.cast(f32(1), "complex64")
    with pytest.raises(ValueError, match="shape"):
        Tensor()
