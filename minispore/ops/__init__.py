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
from .classes_zoo import *  # noqa: F401,F403
from .classes_optim import *  # noqa: F401,F403
from .classes_sparse_optim import *  # noqa: F401,F403
from .classes_array import *  # noqa: F401,F403
from .classes_detect import *  # noqa: F401,F403
from .classes_image import *  # noqa: F401,F403
from .classes_control import *  # noqa: F401,F403
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

# The star imports above bring in the helpers the op modules share through `functional`
# (`F.sum_to`, `F.promote`...) and their typing imports. They are not MindSpore ops names, so
# `ops` does not export them; the op modules keep using them from their own modules.
del (Any, Axis, Callable, DTypeLike, Optional, PrimitiveClass, Sequence,  # noqa: F821
     ShapeLike, TensorLike, annotations, axes_arg, axis_arg, binary_op, bind,  # noqa: F821
     bind_positional, dtype_of, int32, normalize_axes, op_error, promote,  # noqa: F821
     reduction_args, shape_tuple, simple_class, slice_axis, sum_to,  # noqa: F821
     swap_last_axes, to_dtype, to_np, unary_op)  # noqa: F821

tensor_methods.attach()
tensor_surface.attach()  # after: its reductions replace the plain ones


def __getattr__(name):
    """Every primitive is an op under its own name (see ops.functional)."""
    return functional.__getattr__(name)
