"""The core: Tensor, Parameter, dtypes, the IR, pytrees, initializers, the random state, the
BLAS bindings, and the eager interpreter that runs a primitive's impl on Tensors.

Nothing here imports a layer above (ops, grad, compiler...): the operators and methods of
Tensor that compute are attached to it by `ops` (ops.tensor_methods).
"""
from . import eager, initializer  # noqa: F401  (install the eager interpreter; Tensor(init=))
