"""Training wrappers: WithLossCell, TrainOneStepCell, WithEvalCell.

    >>> import minispore as ms
    >>> net = ms.nn.Dense(5, 3)
    >>> train = ms.nn.TrainOneStepCell(ms.nn.WithLossCell(net, ms.nn.BCEWithLogitsLoss()),
    ...                                ms.nn.SGD(net.trainable_params(), 0.1))
    >>> loss = train(ms.ops.ones((4, 5)), ms.ops.zeros((4, 3)))   # one SGD step; the loss before it

Wrappers do not prefix parameter names (auto_prefix=False), as in MindSpore, so a network's
parameters keep their names whether or not it is wrapped.
"""
from __future__ import annotations
from typing import Any
from ..context import parallel
from ..core.dtype import float32
from ..grad.api import value_and_grad
from ..ops import functional as F
from .cell import Cell
from .distributed import DistributedGradReducer
from ..core.hints import Tensor


class WithLossCell(Cell):
    """`loss_fn(backbone(data), label)`."""

    def __init__(self, backbone: Any, loss_fn: Any) -> None:
        super().__init__(auto_prefix=False)
        self._backbone = backbone
        self._loss_fn = loss_fn

    def construct(self, data: Tensor, label: Tensor) -> Tensor:
        return self._loss_fn(self._backbone(data), label)

    @property
    def backbone_network(self):
        return self._backbone


class TrainOneStepCell(Cell):
    """One training step: the loss of `network(*inputs)` and its gradients with respect to
    the optimizer's parameters (times `sens`), then `optimizer(grads)`. Returns the loss."""

    def __init__(self, network: Any, optimizer: Any, sens: Any = None) -> None:
        super().__init__(auto_prefix=False)
        self.network = network
        self.network.set_grad()
        self.optimizer = optimizer
        self.weights = optimizer.parameters
        self.sens = 1.0 if sens is None else sens
        self.grad_fn = value_and_grad(self.network, None, self.weights)
        # data parallel over several processes: every rank applies the all-reduced gradients
        self.grad_reducer = DistributedGradReducer(self.weights) if parallel.data_parallel() \
            else None

    def construct(self, *inputs: Any) -> Tensor:
        loss, grads = self.grad_fn(*inputs)
        if not (isinstance(self.sens, (int, float)) and self.sens == 1.0):
            # the gradient is linear in the output sensitivity
            grads = tuple(F.mul(g, self.sens) for g in grads)
        if self.grad_reducer is not None:
            grads = self.grad_reducer(grads)
        self.optimizer(grads)
        return loss


class WithEvalCell(Cell):
    """Evaluation: returns (loss_fn(network(data), label), outputs, label); add_cast_fp32
    casts outputs and label to Float32 first."""

    def __init__(self, network: Any, loss_fn: Any, add_cast_fp32: bool = False) -> None:
        super().__init__(auto_prefix=False)
        self._network = network
        self._loss_fn = loss_fn
        self.add_cast_fp32 = add_cast_fp32

    def construct(self, data: Tensor, label: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        outputs = self._network(data)
        if self.add_cast_fp32:
            label = F.cast(label, float32)
            outputs = F.cast(outputs, float32)
        return self._loss_fn(outputs, label), outputs, label
