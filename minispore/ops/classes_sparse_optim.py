"""MindSpore's sparse optimizer-update Primitive classes (`ops.SparseApplyFtrl(lr, l1, l2,
lr_power)(var, accum, linear, grad, indices)`): the dense rule of classes_optim applied to
the rows `indices` of every slot (gathered, updated, written back with ops.scatter_update).
`grad` holds one row per index; the indices are expected to be unique, as a gathered
embedding gradient's are after its rows are summed.

    >>> var = ms.Parameter(ms.Tensor([[1.0], [1.0]]), name="var")
    >>> accum = ms.Parameter(ms.Tensor([[0.0], [0.0]]), name="accum")
    >>> ops.SparseApplyAdagrad(lr=0.5)(var, accum, ms.Tensor([[2.0]]), ms.Tensor([1]))[0].tolist()
    [[1.0], [0.5]]
"""
from typing import Any, Callable

from . import functional as F
from .classes_ext import _configured_class
from .classes_optim import (adadelta_values, adagrad_values, ftrl_values,
                            proximal_adagrad_values, rms_prop_values)


def _sparse(values: Callable[..., Any], slots: int,
            arrange: Callable[..., tuple]) -> Callable[..., Any]:
    """A class call: the first `slots` inputs are the Parameters, the last the row indices;
    arrange(self, rows, rest) lays out values' arguments from the gathered rows and the
    other inputs. Returns every slot, written."""
    def call(self, *args):
        params, rest, indices = args[:slots], args[slots:-1], args[-1]
        rows = [F.gather(p, indices, 0) for p in params]
        new_rows = values(self, *arrange(self, rows, rest))
        return tuple(F.scatter_update(p, indices, r) for p, r in zip(params, new_rows))
    return call


CONFIGURED: dict[str, tuple[dict[str, Any], Callable[..., Any]]] = {
    "SparseApplyAdagrad": ({"lr": 0.001, "update_slots": True, "use_locking": False},
                           _sparse(adagrad_values, 2,
                                   lambda self, rows, rest: (*rows, self.lr, rest[0]))),
    "SparseApplyAdagradV2": ({"lr": 0.001, "epsilon": 1e-6, "use_locking": False,
                              "update_slots": True},
                             _sparse(adagrad_values, 2,
                                     lambda self, rows, rest: (*rows, self.lr, rest[0]))),
    "SparseApplyProximalAdagrad": ({"use_locking": False},
                                   _sparse(proximal_adagrad_values, 2,
                                           lambda self, rows, rest: (*rows, *rest))),
    "SparseApplyRMSProp": ({"rho": 0.9, "momentum": 0.0, "epsilon": 1e-10, "use_locking": False},
                           _sparse(rms_prop_values, 3, lambda self, rows, rest: (
                               *rows, rest[0], rest[1], self.rho, self.momentum, self.epsilon))),
    "SparseApplyFtrl": ({"lr": 0.001, "l1": 0.0, "l2": 0.0, "lr_power": -0.5,
                         "use_locking": False},
                        _sparse(ftrl_values, 3, lambda self, rows, rest: (
                            *rows, rest[0], self.lr, self.l1, self.l2, self.lr_power))),
    "SparseApplyFtrlV2": ({"lr": 0.001, "l1": 0.0, "l2": 0.0, "l2_shrinkage": 0.0,
                           "lr_power": -0.5, "use_locking": False},
                          _sparse(ftrl_values, 3, lambda self, rows, rest: (
                              *rows, rest[0], self.lr, self.l1, self.l2, self.lr_power,
                              self.l2_shrinkage))),
    "SparseApplyAdadelta": ({"epsilon": 1e-8, "use_locking": False},
                            _sparse(adadelta_values, 3, lambda self, rows, rest: (
                                *rows, rest[0], rest[1], self.epsilon, rest[2]))),
}


__all__ = sorted(CONFIGURED)
for _name, (_defaults, _call) in CONFIGURED.items():
    globals()[_name] = _configured_class(_name, _defaults, _call)
