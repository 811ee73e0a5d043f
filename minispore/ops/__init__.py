"""minispore.ops: the functional API (`ops.add`), Primitive classes (`ops.Add()`).

    >>> import minispore as ms
    >>> ms.ops.add(ms.Tensor([1.0]), 2.0)
    Tensor(shape=[1], dtype=Float32, value= [ 3.00000000e+00])

MindSpore's `ops` also holds the transforms (`ops.grad`, `ops.GradOperation`, `ops.vmap`...)
and the graph loop (`ops.while_loop`). They live in the layers above (grad/, compiler/), which
add them to this namespace when they are imported (`import minispore` imports them all).
"""
from . import functional, tensor_methods, tensor_surface
from .classes import *  # noqa: F401,F403
from .classes import PrimitiveClass as Primitive  # noqa: F401
from .classes_ext import *  # noqa: F401,F403
from .classes_nn import *  # noqa: F401,F403
from .classes_comm import AllGather, AllReduce, Broadcast, ReduceScatter  # noqa: F401
from .collective import ReduceOp  # noqa: F401
from .custom import Custom  # noqa: F401
from .user_primitives import (PrimitiveWithCheck, PrimitiveWithInfer,  # noqa: F401
                              bprop_getters, prim_attr_register)
from .assorted import slice  # noqa: F401  (builtins that ops.functional itself uses)
from .functional import *  # noqa: F401,F403  (functional imports every family of rows)
from .functional import abs, all, any, max, min, pow, round, sum  # noqa: F401  (shadow builtins)
from .layout import range  # noqa: F401
from .primitive import REGISTRY, OpError, OpShapeError, OpTypeError  # noqa: F401

tensor_methods.attach()
tensor_surface.attach()  # after: its reductions replace the plain ones


def __getattr__(name):
    """Every primitive is an op under its own name (see ops.functional)."""
    return functional.__getattr__(name)
