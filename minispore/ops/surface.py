"""The wider functional surface of MindSpore 2.x's `ops`, one module per family, gathered
here for `ops.functional` (and so for `minispore.ops`):

    math_ext        elementwise math: inverse trigonometry, special functions, logaddexp...
    bessel          the Bessel functions j0 j1 y0 y1 i0 i1 k0 k1 (and scaled i0e...)
    scan            cumprod, cummax, cummin, logcumsumexp
    statistics      var/std, median, quantile, nan-aware reductions, norms
    layout          flip, roll, movedim, chunk, stacking, splitting, repeat_interleave...
    triangular      tril/triu, diagonals, trace, triangle indices
    scatter         gather_nd, scatter, scatter_nd, tensor_scatter_*, masked_select
    scatter_reduce  scatters by max/min/product, unsorted_segment_max/min/prod
    search          argsort, searchsorted, nonzero, unique, bincount, histc
    random_ops      rand, randn, randint, normal, bernoulli, multinomial, randperm...
    einsum          einsum
    decompositions  inverse, det, slogdet, cholesky, qr, svd, eigh
    products        dot, kron, tensordot, addmv..., matrix_power, pinv, cdist, normalize
    compat          1.x aliases, scalar helpers, in-place forms, matrix_diag...
    assorted        segment sums, masks, distances, windows, strided slices, solves...
"""
from .assorted import *  # noqa: F401,F403
from .bessel import *  # noqa: F401,F403
from .compat import *  # noqa: F401,F403
from .decompositions import *  # noqa: F401,F403
from .einsum import *  # noqa: F401,F403
from .layout import *  # noqa: F401,F403
from .math_ext import *  # noqa: F401,F403
from .products import *  # noqa: F401,F403
from .random_ops import *  # noqa: F401,F403
from .scan import *  # noqa: F401,F403
from .scatter import *  # noqa: F401,F403
from .scatter_reduce import *  # noqa: F401,F403
from .search import *  # noqa: F401,F403
from .statistics import *  # noqa: F401,F403
from .triangular import *  # noqa: F401,F403
