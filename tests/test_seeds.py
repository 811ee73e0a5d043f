"""The seed documents' gradient examples, with the numbers they print."""
import numpy as np
from helpers import assert_close, run_in_mode

import minispore as ms
from minispore import Parameter, Tensor, nn, ops


def test_seed000_tanh_derivatives_to_third_order(mode):
    x = Tensor(2.0, ms.float32)
    g1 = ms.grad(ops.tanh)
    g2 = ms.grad(g1)
    g3 = ms.grad(g2)
    assert_close(run_in_mode(g1, mode, x), np.float32(0.070650816), rtol=1e-6)
    assert_close(run_in_mode(g2, mode, x), np.float32(-0.13621868), rtol=1e-6)
    assert_close(run_in_mode(g3, mode, x), np.float32(0.25265405), rtol=1e-6)


def test_seed002_operator_overloading_tape_example():
    def f(x1, x2):
        return ops.log(x1) + x1 * x2 - ops.sin(x2)

    x1, x2 = Tensor(2.0, ms.float64), Tensor(5.0, ms.float64)
    assert_close(f(x1, x2), np.float64(11.652071455223084), rtol=1e-15, atol=0)
    dx1, dx2 = ms.grad(f, grad_position=(0, 1))(x1, x2)
    assert_close(dx1, np.float64(5.5), rtol=1e-15, atol=0)
    assert_close(dx2, np.float64(1.7163378145367738), rtol=1e-15, atol=0)


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.matmul = ops.MatMul()
        self.z = Parameter(Tensor(np.array([2.0], np.float32)), name='z')

    def construct(self, x, y):
        x = x * self.z
        return self.matmul(x, y)


class GradNetWrtX(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net = net
        self.grad_op = ops.GradOperation()

    def construct(self, x, y):
        return self.grad_op(self.net)(x, y)


def test_seed003_grad_operation_example(mode):
    # the mode fixture has set the context: in GRAPH_MODE the Cell call compiles construct
    x = Tensor([[0.8, 0.6, 0.2], [1.8, 1.3, 1.1]], dtype=ms.float32)
    y = Tensor([[0.11, 3.3, 1.1], [1.1, 0.2, 1.4], [1.1, 2.2, 0.3]], dtype=ms.float32)
    out = GradNetWrtX(Net())(x, y)
    assert out.dtype == ms.float32
    assert_close(out, np.array([[9.02, 5.4, 7.2000003], [9.02, 5.4, 7.2000003]], np.float32),
                 rtol=1e-6)
