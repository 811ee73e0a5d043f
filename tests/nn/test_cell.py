"""Cell: registration and hierarchical names, queries, modes, custom bprop, hooks."""
import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, Tensor, nn, ops


class Block(nn.Cell):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Dense(4, 3)
        self.bn = nn.BatchNorm1d(3)
        self.scale = Parameter(Tensor(2.0))
        self.explicit = Parameter(Tensor(1.0), name="my_name")

    def construct(self, x):
        return self.bn(self.fc1(x)) * self.scale * self.explicit


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.block = Block()
        self.head = nn.Dense(3, 2)

    def construct(self, x):
        return self.head(self.block(x))


def test_hierarchical_parameter_names():
    net = Net()
    paths = [name for name, _ in net.parameters_and_names()]
    assert paths == ["block.scale", "block.explicit", "block.fc1.weight", "block.fc1.bias",
                     "block.bn.moving_mean", "block.bn.moving_variance", "block.bn.gamma",
                     "block.bn.beta", "head.weight", "head.bias"]
    # a name given explicitly survives until the cell is nested: then the path names it
    assert Block().explicit.name == "my_name"
    assert [p.name for p in net.get_parameters()] == paths
    assert list(net.parameters_dict()) == paths
    assert [n for n, _ in net.parameters_and_names(name_prefix="net")][0] == "net.block.scale"


def test_queries_and_trainable_split():
    net = Net()
    assert [n for n, _ in net.cells_and_names()] == ["", "block", "block.fc1", "block.bn", "head"]
    assert list(net.name_cells()) == ["block", "head"] and len(net.cells()) == 2
    trainable = {p.name for p in net.trainable_params()}
    untrainable = {p.name for p in net.untrainable_params()}
    assert untrainable == {"block.bn.moving_mean", "block.bn.moving_variance"}
    assert "block.fc1.weight" in trainable and not trainable & untrainable
    assert [p.name for p in net.get_parameters(expand=False)] == []
    assert len(net.block.trainable_params(recurse=False)) == 2


def test_shared_parameter_is_listed_once():
    class Tied(nn.Cell):
        def __init__(self):
            super().__init__()
            self.a = nn.Dense(2, 2)
            self.b = nn.Dense(2, 2)
            self.b.weight = self.a.weight

        def construct(self, x):
            return self.b(self.a(x))

    assert len(list(Tied().get_parameters())) == 3


def test_auto_prefix_false_keeps_names():
    class Wrapper(nn.Cell):
        def __init__(self, inner):
            super().__init__(auto_prefix=False)
            self.inner = inner

    dense = nn.Dense(2, 2)
    Wrapper(dense)
    assert [p.name for p in dense.get_parameters()] == ["weight", "bias"]


def test_attribute_rules():
    net = Net()
    with pytest.raises(TypeError, match="Block.scale is a Parameter"):
        net.block.scale = Tensor(3.0)
    net.block.scale = Parameter(Tensor(5.0))    # replacing a Parameter with a Parameter is fine
    assert float(net.block.scale) == 5.0
    net.insert_child_to_cell("extra", nn.ReLU())
    assert "extra" in net.name_cells()
    with pytest.raises(KeyError, match="without '.'"):
        net.insert_child_to_cell("a.b", nn.ReLU())
    with pytest.raises(TypeError, match="must be a Cell"):
        net.insert_child_to_cell("bad", 3)
    del net.extra
    assert "extra" not in net.name_cells()
    with pytest.raises(AttributeError, match="no attribute 'missing'"):
        net.missing

    class Early(nn.Cell):
        def __init__(self):
            self.x = 1

    with pytest.raises(AttributeError, match="super\\(\\).__init__"):
        Early()


def test_set_train_and_set_grad():
    net = Net()
    assert not net.training and not net.block.bn.training
    assert net.set_train() is net
    assert all(cell.training for _, cell in net.cells_and_names())
    net.set_train(False)
    assert not any(cell.training for _, cell in net.cells_and_names())
    assert net.set_grad().requires_grad


def test_parameter_tuple_attribute_registers_its_items():
    class Holder(nn.Cell):
        def __init__(self, params):
            super().__init__()
            self.state = ms.ParameterTuple(params)

    a, b = Parameter(Tensor(1.0), name="a"), Parameter(Tensor(2.0), name="a")
    holder = Holder([a, b])
    assert [p for p in holder.get_parameters()] == [a, b]
    assert isinstance(holder.state, ms.ParameterTuple)


# ***** custom bprop *****

class ScaledGrad(nn.Cell):
    """Forward x * y; backward pretends d/dx = 10 * dout, d/dy = 20 * dout."""

    def construct(self, x, y):
        return x * y

    def bprop(self, x, y, out, dout):
        assert float(out) == float(x) * float(y)
        return dout * 10, dout * 20


def test_custom_bprop_is_used_by_every_grad_api():
    x, y = Tensor(2.0), Tensor(3.0)
    net = ScaledGrad()
    assert [float(g) for g in ms.grad(net, (0, 1))(x, y)] == [10.0, 20.0]
    value, grads = ms.value_and_grad(net, (0, 1))(x, y)
    assert float(value) == 6.0 and [float(g) for g in grads] == [10.0, 20.0]
    assert [float(g) for g in ops.GradOperation(get_all=True)(net)(x, y)] == [10.0, 20.0]
    sens = ops.GradOperation(get_all=True, sens_param=True)(net)(x, y, Tensor(0.5))
    assert [float(g) for g in sens] == [5.0, 10.0]
    # inside a larger function, the chain rule goes through the custom rule
    outer = ms.grad(lambda a: ops.sin(net(a, y)))(x)
    assert float(outer) == pytest.approx(np.cos(6.0) * 10.0, rel=1e-6)


def test_custom_bprop_with_a_non_tensor_input_and_an_identity_construct():
    class Passthrough(nn.Cell):
        def construct(self, x, k):
            return x

        def bprop(self, x, k, out, dout):
            return dout * k, 0

    g = ms.grad(lambda x: Passthrough()(x, 3.0) * 2.0)(Tensor([1.0, 2.0]))
    assert g.asnumpy().tolist() == [6.0, 6.0]


def test_custom_bprop_errors():
    class WrongArity(nn.Cell):
        def construct(self, x):
            return x * 2

        def bprop(self, x, dout):
            return dout

    with pytest.raises(TypeError, match="WrongArity.bprop takes 2 argument.*3 in all"):
        ms.grad(WrongArity())(Tensor(1.0))

    class WrongCount(nn.Cell):
        def construct(self, x, y):
            return x * y

        def bprop(self, x, y, out, dout):
            return (dout,)

    with pytest.raises(TypeError, match="WrongCount.bprop returned 1 gradient.*2 input"):
        ms.grad(WrongCount(), (0, 1))(Tensor(1.0), Tensor(2.0))

    class WrongShape(nn.Cell):
        def construct(self, x):
            return x * 2

        def bprop(self, x, out, dout):
            return (ops.ones((3,)),)

    with pytest.raises(RuntimeError, match="WrongShape.bprop gave a gradient of shape"):
        ms.grad(WrongShape())(Tensor([1.0, 2.0]))


def test_custom_bprop_second_order():
    class Cube(nn.Cell):
        def construct(self, x):
            return x * x * x

        def bprop(self, x, out, dout):
            return (dout * 3 * x * x,)

    assert float(ms.grad(ms.grad(Cube()))(Tensor(2.0))) == pytest.approx(12.0)


# ***** hooks *****

class ConvBnRelu(nn.Cell):
    """The network of MindSpore's hook tutorial."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, kernel_size=2, stride=1, padding=0, weight_init="ones",
                              pad_mode="valid")
        self.bn = nn.BatchNorm2d(2, momentum=0.99, eps=0.00001, gamma_init="ones")
        self.relu = nn.ReLU()

    def construct(self, x):
        return self.relu(self.bn(self.conv(x)))


def test_backward_hook_sees_input_and_output_gradients_as_mindspore_documents():
    net = ConvBnRelu()
    seen = []
    handle = net.bn.register_backward_hook(lambda cell, gi, go: seen.append((cell, gi, go)))
    x = Tensor(np.ones((1, 1, 2, 2), np.float32))
    grad = ms.grad(net)(x)
    np.testing.assert_allclose(grad.asnumpy(), np.full((1, 1, 2, 2), 1.99999), rtol=1e-5)
    (cell, grad_input, grad_output), = seen
    assert cell is net.bn
    np.testing.assert_allclose(grad_input[0].asnumpy(), np.full((1, 2, 1, 1), 0.999995), rtol=1e-6)
    np.testing.assert_allclose(grad_output[0].asnumpy(), np.ones((1, 2, 1, 1)))
    handle.remove()
    ms.grad(net)(x)
    assert len(seen) == 1


def test_backward_hooks_can_replace_gradients():
    net = ConvBnRelu()
    net.bn.register_backward_pre_hook(lambda cell, go: (go[0] * 2,))
    net.conv.register_backward_hook(lambda cell, gi, go: (gi[0] * 0 + 1,))
    x = Tensor(np.ones((1, 1, 2, 2), np.float32))
    assert ms.grad(net)(x).asnumpy().tolist() == [[[[1.0, 1.0], [1.0, 1.0]]]]
    seen = []
    net.conv.register_backward_hook(lambda cell, gi, go: seen.append(go))
    ms.grad(net)(x)
    # the pre-hook doubled what reaches bn, so conv's output gradient is doubled too
    np.testing.assert_allclose(seen[0][0].asnumpy(), np.full((1, 2, 1, 1), 2 * 0.999995), rtol=1e-6)


def test_backward_hook_when_no_input_is_differentiated():
    dense = nn.Dense(2, 1, weight_init="ones", bias_init="zeros")
    seen = []
    dense.register_backward_hook(lambda cell, gi, go: seen.append((gi, go)))
    grads = ms.grad(lambda x: dense(x).sum(), None, dense.trainable_params())(Tensor([[1.0, 2.0]]))
    assert grads[0].asnumpy().tolist() == [[1.0, 2.0]]
    (grad_input, grad_output), = seen
    assert grad_input == (None,) and grad_output[0].asnumpy().tolist() == [[1.0]]


def test_forward_hooks_as_mindspore_documents():
    class Net2(nn.Cell):
        def __init__(self):
            super().__init__()
            self.relu = nn.ReLU()

        def construct(self, x, y):
            return self.relu(x + y)

    net = Net2()
    log = []
    pre = net.relu.register_forward_pre_hook(lambda cell, inputs: log.append(("pre", inputs)))
    post = net.relu.register_forward_hook(lambda cell, inputs, out: out + out)
    x = y = Tensor(np.ones(1, np.float32))
    assert [g.asnumpy().tolist() for g in ms.grad(net, (0, 1))(x, y)] == [[2.0], [2.0]]
    assert float(log[0][1][0]) == 2.0
    post.remove()
    pre.remove()
    assert [g.asnumpy().tolist() for g in ms.grad(net, (0, 1))(x, y)] == [[1.0], [1.0]]
    net.relu.register_forward_pre_hook(lambda cell, inputs: inputs[0] * 3)
    assert net(x, y).asnumpy().tolist() == [6.0]


def test_forward_hooks_run_in_both_modes(mode):
    dense = nn.Dense(2, 1, weight_init="ones", bias_init="zeros")
    x = Tensor([[1.0, 2.0]])
    assert dense(x).asnumpy().tolist() == [[3.0]]
    # added after a first (compiled) call: the hook table is part of what the trace read
    post = dense.register_forward_hook(lambda cell, inputs, out: out * 100)
    assert dense(x).asnumpy().tolist() == [[300.0]]
    seen = []
    pre = dense.register_forward_pre_hook(lambda cell, inputs: seen.append(cell) or inputs[0] * 2)
    assert dense(x).asnumpy().tolist() == [[600.0]] and seen == [dense]
    assert dense(x).asnumpy().tolist() == [[600.0]] and seen == [dense, dense]  # runs each call
    post.remove()
    pre.remove()
    assert dense(x).asnumpy().tolist() == [[3.0]]


def test_backward_hooks_refuse_to_be_compiled():
    dense = nn.Dense(2, 1, weight_init="ones", bias_init="zeros")
    dense.register_backward_hook(lambda cell, gi, go: None)
    x = Tensor([[1.0, 2.0]])
    step = ms.jit(lambda x: ms.grad(dense)(x))
    with pytest.raises(RuntimeError, match="Dense has backward hooks.*PyNative"):
        step(x)
    assert ms.grad(dense)(x).asnumpy().tolist() == [[1.0, 1.0]]   # PyNative: fine
    assert ms.jit(dense)(x).asnumpy().tolist() == [[3.0]]        # no gradient: no hook needed


def test_hook_backward_sees_and_replaces_gradients():
    seen = []
    hook = ops.HookBackward(lambda grad: seen.append(grad))
    f = lambda x, y: hook(x * y) * y
    # MindSpore's documented example: the hook gets the tuple (dz,), with dz = y = 2
    assert [float(g) for g in ms.grad(f, (0, 1))(Tensor(1.0), Tensor(2.0))] == [4.0, 4.0]
    assert len(seen) == 1 and float(seen[0][0]) == 2.0
    both = ops.HookBackward(lambda grads: (grads[0] * 10, grads[1]))
    g = ms.grad(lambda a, b: ops.sum(ops.stack(both(a, b)) * Tensor([1.0, 3.0])), (0, 1))(
        Tensor(1.0), Tensor(1.0))
    assert [float(v) for v in g] == [10.0, 3.0]
    assert float(hook(Tensor(5.0))) == 5.0                       # the identity going forward
    with pytest.raises(ValueError, match="hook_fn returned 2 value"):
        ms.grad(lambda a: ops.HookBackward(lambda g: (g[0], g[0]))(a) * 2)(Tensor(1.0))
    with pytest.raises(RuntimeError, match="HookBackward.*PyNative"):
        ms.jit(lambda a: ms.grad(lambda z: hook(z) * 2)(a))(Tensor(1.0))
    with pytest.raises(TypeError, match="hook_fn must be callable"):
        ops.HookBackward(3)


def test_construct_must_be_defined_and_repr():
    with pytest.raises(NotImplementedError, match="Cell must define construct"):
        nn.Cell()(Tensor(1.0))
    text = repr(Net())
    assert "(block): Block<" in text and "(fc1): Dense<input_channels=4" in text


def test_custom_bprop_inside_a_cell_in_both_modes(mode):
    class Traceable(nn.Cell):    # ScaledGrad without host reads: the bprop is traced too
        def construct(self, x, y):
            return x * y

        def bprop(self, x, y, out, dout):
            return dout * 10, dout * out

    class GradNet(nn.Cell):
        def __init__(self):
            super().__init__()
            self.net = Traceable()
            self.grad_op = ops.GradOperation(get_all=True)

        def construct(self, x, y):
            return self.grad_op(self.net)(x, y)

    grads = GradNet()(Tensor(2.0), Tensor(3.0))
    assert [float(g) for g in grads] == [10.0, 6.0]


def test_hooks_on_a_cell_with_several_outputs():
    class Split(nn.Cell):
        def construct(self, x):
            return x * 2, x * 3

    split, seen = Split(), []
    split.register_backward_pre_hook(lambda cell, go: seen.append(len(go)))
    split.register_backward_hook(
        lambda cell, gi, go: seen.append((float(gi[0]), [float(g) for g in go])))
    assert float(ms.grad(lambda x: split(x)[0] * 5)(Tensor(1.0))) == 10.0
    # the unused second output contributes a zero gradient
    assert seen == [2, (10.0, [5.0, 0.0])]
    split.register_backward_hook(lambda cell, gi, go: (gi[0], gi[0]))
    with pytest.raises(ValueError, match="Split backward hook returned 2 gradient.*expected 1"):
        ms.grad(lambda x: split(x)[0])(Tensor(1.0))


def test_custom_bprop_with_several_outputs():
    class Pair(nn.Cell):
        def construct(self, x):
            return x * 2, x * 3

        def bprop(self, x, out, dout):
            assert isinstance(out, tuple) and isinstance(dout, tuple)
            return (dout[0] + dout[1] * 100,)

    g = ms.grad(lambda x: Pair()(x)[0] + Pair()(x)[1])(Tensor(1.0))
    assert float(g) == 101.0     # 1 from the first call, 100 from the second
