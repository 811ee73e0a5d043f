"""minispore.ops: the functional API (`ops.add`), Primitive classes (`ops.Add()`), transforms.

    >>> import minispore as ms
    >>> ms.ops.add(ms.Tensor([1.0]), 2.0)
    Tensor(shape=[1], dtype=Float32, value= [ 3.00000000e+00])
"""
from ..runtime.tensor import Tensor  # noqa: F401  (first: Tensor wires up ops.functional)
from .functional import *  # noqa: F401,F403
from .functional import abs, all, any, max, min, pow, round, sum  # noqa: F401  (shadow builtins)
from .classes import *  # noqa: F401,F403
from .classes import PrimitiveClass as Primitive  # noqa: F401
from .primitive import REGISTRY, OpError, OpShapeError, OpTypeError  # noqa: F401
from ..grad.api import GradOperation, get_grad, grad, jvp, value_and_grad, vjp  # noqa: F401,E402
from ..grad import hessian, jacfwd, jacrev, vmap  # noqa: F401,E402
from ..grad.hooks import HookBackward  # noqa: F401,E402
