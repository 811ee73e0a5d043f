"""Cells that return gradients: WithGradCell and ForwardValueAndGrad (custom training loops),
Jvp and Vjp (forward- and reverse-mode products of a function), over minispore.grad.

    >>> import minispore as ms
    >>> net = ms.nn.WithLossCell(ms.nn.Dense(3, 2), ms.nn.MSELoss())
    >>> grads = ms.nn.WithGradCell(net)(ms.ops.ones((4, 3)), ms.ops.zeros((4, 2)))
    >>> [tuple(g.shape) for g in grads]
    [(2, 3), (2,)]
"""
from __future__ import annotations

from typing import Any, Callable, Optional

from ..core.parameter import ParameterTuple
from ..grad.api import GradOperation, jvp
from .cell import Cell
from .wrap import WithLossCell

__all__ = ["WithGradCell", "ForwardValueAndGrad", "Jvp", "Vjp"]


class WithGradCell(Cell):
    """The gradients of `network`'s output (with `loss_fn(network(data), label)` when loss_fn
    is given) with respect to its trainable parameters, scaled by `sens` (default: ones).

        >>> import minispore as ms
        >>> grad_net = ms.nn.WithGradCell(ms.nn.Dense(3, 1), ms.nn.MSELoss())
        >>> len(grad_net(ms.ops.ones((2, 3)), ms.ops.zeros((2, 1))))
        2
    """

    def __init__(self, network: Cell, loss_fn: Optional[Cell] = None, sens: Any = None) -> None:
        super().__init__(auto_prefix=False)
        self.network = network
        self.loss_fn = loss_fn
        self.sens = sens
        self.weights = ParameterTuple(network.trainable_params())
        self.network_with_loss = network if loss_fn is None else WithLossCell(network, loss_fn)
        self.network_with_loss.set_train()
        self._grad = GradOperation(get_by_list=True, sens_param=sens is not None)(
            self.network_with_loss, self.weights)

    def construct(self, *inputs: Any) -> Any:
        if self.sens is None:
            return self._grad(*inputs)
        return self._grad(*inputs, self.sens)


class ForwardValueAndGrad(Cell):
    """(network(*inputs), gradients): the gradients GradOperation(get_all, get_by_list,
    sens_param) gives — of the first input by default, of all inputs (get_all), of `weights`
    (get_by_list), or ((inputs...), (weights...)) with both. With sens_param the last input is
    the output's sensitivity (it is not passed to the network).

        >>> import minispore as ms
        >>> net = ms.nn.WithLossCell(ms.nn.Dense(3, 1), ms.nn.MSELoss())
        >>> step = ms.nn.ForwardValueAndGrad(net, net.trainable_params(), get_by_list=True)
        >>> loss, grads = step(ms.ops.ones((2, 3)), ms.ops.zeros((2, 1)))
        >>> loss.shape, len(grads)
        ((), 2)
    """

    def __init__(self, network: Callable[..., Any], weights: Any = None, get_all: bool = False,
                 get_by_list: bool = False, sens_param: bool = False) -> None:
        super().__init__(auto_prefix=False)
        if not callable(network):
            raise TypeError(f"ForwardValueAndGrad: network must be a Cell or a function, "
                            f"got {type(network).__name__}")
        for name, flag in (("get_all", get_all), ("get_by_list", get_by_list),
                           ("sens_param", sens_param)):
            if not isinstance(flag, bool):
                raise TypeError(f"ForwardValueAndGrad: {name} must be a bool, got {flag!r}")
        if get_by_list and not isinstance(weights, (ParameterTuple, tuple, list)):
            raise TypeError(f"ForwardValueAndGrad: get_by_list=True needs the Parameters as "
                            f"weights (a ParameterTuple, tuple or list), got {type(weights).__name__}")
        self.network = network
        if isinstance(network, Cell):
            network.set_grad()
        self.weights = ParameterTuple(weights) if get_by_list else weights
        self.get_all, self.get_by_list, self.sens_param = get_all, get_by_list, sens_param
        grad_op = GradOperation(get_all=get_all, get_by_list=get_by_list, sens_param=sens_param)
        self._grad = grad_op(network, self.weights) if get_by_list else grad_op(network)

    def construct(self, *inputs: Any) -> tuple[Any, Any]:
        forward_inputs = inputs[:-1] if self.sens_param else inputs
        return self.network(*forward_inputs), self._grad(*inputs)


class Jvp(Cell):
    """(fn(*inputs), J v): construct(*inputs, v), the Jacobian-vector product of `fn` at the
    inputs along v (a tuple of tangents, one per input, for several inputs).

        >>> import minispore as ms
        >>> out, tangent = ms.nn.Jvp(lambda x: x ** 3)(ms.Tensor(2.0), ms.Tensor(1.0))
        >>> tangent.item()
        12.0
    """

    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        if not callable(fn):
            raise TypeError(f"Jvp: fn must be a Cell or a function, got {type(fn).__name__}")
        self.fn = fn

    def construct(self, *args: Any) -> tuple[Any, Any]:
        if len(args) < 2:
            raise ValueError("Jvp: call it with the inputs of fn followed by the tangent v")
        return jvp(self.fn, args[:-1], args[-1])


class Vjp(Cell):
    """(fn(*inputs), v^T J): construct(*inputs, v), the vector-Jacobian product of `fn` at the
    inputs for the cotangent v (a tuple for several outputs); the gradients come as a tuple,
    one per input.

        >>> import minispore as ms
        >>> out, (grad,) = ms.nn.Vjp(lambda x: x * x)(ms.Tensor([1.0, 2.0]), ms.ops.ones(2))
        >>> grad.tolist()
        [2.0, 4.0]
    """

    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        if not callable(fn):
            raise TypeError(f"Vjp: fn must be a Cell or a function, got {type(fn).__name__}")
        self.fn = fn
        self._grad = GradOperation(get_all=True, sens_param=True)(fn)

    def construct(self, *args: Any) -> tuple[Any, Any]:
        if len(args) < 2:
            raise ValueError("Vjp: call it with the inputs of fn followed by the cotangent v")
        return self.fn(*args[:-1]), self._grad(*args)
