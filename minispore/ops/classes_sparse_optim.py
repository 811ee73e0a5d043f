"""MindSpore's sparse optimizer-update Primitive classes (`ops.SparseApplyFtrl(lr, l1, l2,
lr_power)(var, accum, linear, grad, indices)`): `grad` holds one row per index; the rows of
a repeated index are summed first (MindSpore's kernels merge them too), then the dense rule of
classes_optim updates the rows named in `indices` of every slot and leaves the others. The
Fused* forms do the same and return placeholder (1,)-shaped tensors, as MindSpore's do;
FusedSparseAdam alone is not lazy: every row's moments decay and every row moves.

Repeated indices are summed with a dense scatter of the gradient, so the shapes stay static
(no unique(), no graph break).

    >>> var = ms.Parameter(ms.Tensor([[1.0], [1.0]]), name="var")
    >>> accum = ms.Parameter(ms.Tensor([[0.0], [0.0]]), name="accum")
    >>> ops.SparseApplyAdagrad(lr=0.5)(var, accum, ms.Tensor([[2.0]]), ms.Tensor([1]))[0].tolist()
    [[1.0], [0.5]]
"""
from typing import Any, Callable

import numpy as np

from . import functional as F
from .classes_ext import _configured_class
from .classes_optim import (adadelta_values, adagrad_values, adam_values, ftrl_values,
                            proximal_adagrad_values, rms_prop_values)


def _sparse(values: Callable[..., Any], slots: int, arrange: Callable[..., tuple],
            grad_at: int, fused: bool = False, lazy: bool = True) -> Callable[..., Any]:
    """A class call: the first `slots` inputs are the Parameters, the last the row indices,
    input `grad_at` the gradient rows. arrange(self, slots, rest) lays out values' arguments
    from the slots and the other inputs (the gradient among them made dense). Returns every
    slot, written (fused: (1,)-shaped placeholders)."""
    def call(self, *args):
        params, rest, indices = args[:slots], list(args[slots:-1]), args[-1]
        where = F.expand_dims(F.cast(indices, np.int64), -1)
        # the gradient rows summed per index; each occurrence of an index then computes (and
        # writes) the same new row
        grad = F.tensor_scatter_add(F.zeros(params[0].shape, params[0].dtype), where,
                                    F.cast(rest[grad_at - slots], params[0].dtype))
        if lazy:
            rest[grad_at - slots] = F.gather(grad, indices, 0)
            rows = [F.gather(p, indices, 0) for p in params]
            new = values(self, *arrange(self, rows, rest))
            written = tuple(F.scatter_update(p, indices, v) for p, v in zip(params, new))
        else:
            rest[grad_at - slots] = grad
            new = values(self, *arrange(self, list(params), rest))
            written = tuple(F.assign(p, v) for p, v in zip(params, new))
        if fused:
            return tuple(F.zeros((1,), p.dtype) for p in params)
        return written
    return call


def _as_given(self, slots, rest):
    return (*slots, *rest)


CONFIGURED: dict[str, tuple[dict[str, Any], Callable[..., Any]]] = {
    "SparseApplyAdagrad": ({"lr": 0.001, "update_slots": True, "use_locking": False},
                           _sparse(adagrad_values, 2,
                                   lambda self, rows, rest: (*rows, self.lr, rest[0]), 2)),
    "SparseApplyAdagradV2": ({"lr": 0.001, "epsilon": 1e-6, "use_locking": False,
                              "update_slots": True},
                             _sparse(adagrad_values, 2,
                                     lambda self, rows, rest: (*rows, self.lr, rest[0]), 2)),
    "SparseApplyProximalAdagrad": ({"use_locking": False},
                                   _sparse(proximal_adagrad_values, 2, _as_given, 5)),
    "SparseApplyRMSProp": ({"rho": 0.9, "momentum": 0.0, "epsilon": 1e-10, "use_locking": False},
                           _sparse(rms_prop_values, 3, lambda self, rows, rest: (
                               *rows, rest[0], rest[1], self.rho, self.momentum, self.epsilon), 4)),
    "SparseApplyFtrl": ({"lr": 0.001, "l1": 0.0, "l2": 0.0, "lr_power": -0.5,
                         "use_locking": False},
                        _sparse(ftrl_values, 3, lambda self, rows, rest: (
                            *rows, rest[0], self.lr, self.l1, self.l2, self.lr_power), 3)),
    "SparseApplyFtrlV2": ({"lr": 0.001, "l1": 0.0, "l2": 0.0, "l2_shrinkage": 0.0,
                           "lr_power": -0.5, "use_locking": False},
                          _sparse(ftrl_values, 3, lambda self, rows, rest: (
                              *rows, rest[0], self.lr, self.l1, self.l2, self.lr_power,
                              self.l2_shrinkage), 3)),
    "SparseApplyAdadelta": ({"epsilon": 1e-8, "use_locking": False},
                            _sparse(adadelta_values, 3, lambda self, rows, rest: (
                                *rows, rest[0], rest[1], self.epsilon, rest[2]), 5)),
    # the fused forms: placeholder outputs
    "FusedSparseAdam": ({"use_locking": False, "use_nesterov": False},
                        _sparse(adam_values, 3, _as_given, 9, fused=True, lazy=False)),
    "FusedSparseLazyAdam": ({"use_locking": False, "use_nesterov": False},
                            _sparse(adam_values, 3, _as_given, 9, fused=True)),
    "FusedSparseFtrl": ({"lr": 0.001, "l1": 0.0, "l2": 0.0, "lr_power": -0.5,
                         "use_locking": False},
                        _sparse(ftrl_values, 3, lambda self, rows, rest: (
                            *rows, rest[0], self.lr, self.l1, self.l2, self.lr_power), 3,
                            fused=True)),
    "FusedSparseProximalAdagrad": ({"use_locking": False},
                                   _sparse(proximal_adagrad_values, 2, _as_given, 5,
                                           fused=True)),
}


__all__ = sorted(CONFIGURED)
for _name, (_defaults, _call) in CONFIGURED.items():
    globals()[_name] = _configured_class(_name, _defaults, _call)
