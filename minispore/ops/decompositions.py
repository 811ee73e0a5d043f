"""Matrix functions and decompositions: inverse, det, slogdet, cholesky, qr, svd, eigh,
matrix_exp (LAPACK through numpy/scipy, cuSOLVER through CuPy), batched over leading axes; and
LU factors unpacked and solved with (lu_unpack, lu_solve). Each is a row with
its textbook derivative (Giles 2008; Murray 2016 for Cholesky; Townsend 2016 for the SVD),
written with ops so it runs in both modes and differentiates again.

    >>> ops.det(ms.Tensor([[2.0, 0.0], [0.0, 3.0]]))
    Tensor(shape=[], dtype=Float32, value= 6)
"""
from typing import Tuple, Union

import numpy as np

from ..core.hints import TensorLike
from ..core.tensor import Tensor
from . import batching as B
from . import functional as F
from . import infer as I
from .arguments import as_tensor, op_error
from .primitive import Aval, OpShapeError, Primitive

__all__ = ["inverse", "matrix_inverse", "det", "matrix_determinant", "slogdet",
           "log_matrix_determinant", "logdet", "cholesky", "qr", "svd", "eigh", "matrix_exp",
           "lu_unpack", "lu_solve"]


def _square_infer(a, **attrs):
    if len(a.shape) < 2 or a.shape[-1] != a.shape[-2]:
        raise OpShapeError(f"needs square matrices in the last two axes, got shape {a.shape}")
    I.require_float("input", a)
    return a


def _matrix_infer(a, **attrs):
    if len(a.shape) < 2:
        raise OpShapeError(f"needs matrices in the last two axes, got shape {a.shape}")
    I.require_float("input", a)
    return a


def _batched(prim, args, dims, axis_size, **attrs):
    """Every row here maps the last two axes: the batch axis first is one more batch axis."""
    out = prim(B.to_front(args[0], dims[0]), **attrs)
    return out, ((0,) * len(out) if prim.multiple_results else 0)


def _float(x):
    x = as_tensor(x)
    return x if x.dtype.is_float else F.cast(x, np.float32)


def _mT(x):
    return F.swap_last_axes(x)


def _diag_matrix(v):
    """Matrices with the vectors v (..., k) on their diagonals."""
    return F.mul(F.expand_dims(v, -1), F.eye(v.shape[-1], dtype=v.dtype))


def _diagonal(m):
    return F.diagonal(m, 0, -2, -1)


# ***** inverse and determinants *****

def _inverse_bprop(a, out, dout):
    # d(A^-1) = -A^-1 dA A^-1
    return (F.neg(F.matmul(F.matmul(_mT(out), dout), _mT(out))),)


matrix_inverse_p = Primitive(
    "matrix_inverse", infer=_square_infer, impl=lambda xp, a: xp.linalg.inv(a),
    bprop=_inverse_bprop, batch=_batched)


def _det_infer(a):
    _square_infer(a)
    return Aval(a.shape[:-2], a.dtype)


def _slogdet_impl(xp, a):
    sign, logabs = xp.linalg.slogdet(a)
    return sign.astype(a.dtype), logabs.astype(a.dtype)


def _inverse_transpose(a):
    return _mT(matrix_inverse_p(a))


def _det_bprop(a, out, dout):
    # d det(A) = det(A) tr(A^-1 dA)
    return (F.mul(F.expand_dims(F.expand_dims(F.mul(dout, out), -1), -1),
                  _inverse_transpose(a)),)


det_p = Primitive("det", infer=_det_infer, impl=lambda xp, a: xp.linalg.det(a).astype(a.dtype),
                  bprop=_det_bprop, batch=_batched)

def _slogdet_bprop(a, out, dout):
    # the sign is piecewise constant; d log|det A| = tr(A^-1 dA)
    return (F.mul(F.expand_dims(F.expand_dims(dout[1], -1), -1), _inverse_transpose(a)),)


slogdet_p = Primitive("slogdet", infer=lambda a: (_det_infer(a), _det_infer(a)),
                      impl=_slogdet_impl, multiple_results=True, bprop=_slogdet_bprop,
                      batch=_batched)


def inverse(input: TensorLike) -> Tensor:
    """The inverse of a square matrix (of each, over leading axes)."""
    return matrix_inverse_p(_float(input))


matrix_inverse = inverse


def det(input: TensorLike) -> Tensor:
    """The determinant of a square matrix (of each, over leading axes)."""
    return det_p(_float(input))


matrix_determinant = det


def slogdet(input: TensorLike) -> Tuple[Tensor, Tensor]:
    """(sign, log|det|) of square matrices."""
    return slogdet_p(_float(input))


log_matrix_determinant = slogdet


def logdet(input: TensorLike) -> Tensor:
    """log(det(input)): nan where the determinant is negative."""
    sign, logabs = slogdet(input)
    return F.add(logabs, F.log(sign))


# ***** Cholesky *****

def _symmetric(xp, a):
    return (a + xp.swapaxes(a, -1, -2)) / 2


def _cholesky_impl(xp, a, upper):
    # the factor of the symmetric part: what the derivative below assumes
    low = xp.linalg.cholesky(_symmetric(xp, a))
    return xp.swapaxes(low, -1, -2) if upper else low


def _cholesky_bprop(a, out, dout, upper):
    low, dlow = (_mT(out), _mT(dout)) if upper else (out, dout)
    # Murray (2016): A_bar = L^-T Phi(L^T L_bar) L^-1, Phi the lower triangle with a halved
    # diagonal; symmetrised, as the impl reads the symmetric part of A
    phi = F.tril(F.matmul(_mT(low), dlow))
    phi = F.sub(phi, F.mul(_diag_matrix(_diagonal(phi)), 0.5))
    low_inv = matrix_inverse_p(low)
    grad = F.matmul(F.matmul(_mT(low_inv), phi), low_inv)
    return (F.mul(F.add(grad, _mT(grad)), 0.5),)


cholesky_p = Primitive("cholesky", infer=_square_infer, impl=_cholesky_impl,
                       bprop=_cholesky_bprop, batch=_batched)


def cholesky(input_x: TensorLike, upper: bool = False) -> Tensor:
    """The Cholesky factor L (A = L L^T; upper=True: U with A = U^T U) of symmetric
    positive-definite matrices."""
    return cholesky_p(_float(input_x), upper=bool(upper))


# ***** QR *****

def _qr_infer(a, mode):
    _matrix_infer(a)
    m, n = a.shape[-2:]
    k = min(m, n) if mode == "reduced" else m
    return Aval(a.shape[:-2] + (m, k), a.dtype), Aval(a.shape[:-2] + (k, n), a.dtype)


def _qr_impl(xp, a, mode):
    return xp.linalg.qr(a, mode=mode)


def _qr_bprop(a, out, dout, mode):
    q, r = out
    dq, dr = dout
    if a.shape[-2] < a.shape[-1] or mode != "reduced":
        raise op_error("qr", (a,), "the derivative of qr is implemented for the reduced "
                       "decomposition of matrices with rows >= columns", NotImplementedError)
    # Walter & Lehmann / PyTorch: M = R dR^T - dQ^T Q; A_bar = (dQ + Q copyltu(M)) R^-T
    m = F.sub(F.matmul(r, _mT(dr)), F.matmul(_mT(dq), q))
    copyltu = F.add(F.tril(m, -1), _mT(F.tril(m)))
    return (F.matmul(F.add(dq, F.matmul(q, copyltu)), _mT(matrix_inverse_p(r))),)


qr_p = Primitive("qr", infer=_qr_infer, impl=_qr_impl, bprop=_qr_bprop, batch=_batched,
                 multiple_results=True)


def qr(input: TensorLike, mode: str = "reduced") -> Tuple[Tensor, Tensor]:
    """(Q, R) with input = Q R, Q orthonormal columns, R upper triangular; mode 'reduced'
    or 'complete'."""
    if mode not in ("reduced", "complete"):
        raise ValueError(f"ops.qr: mode must be 'reduced' or 'complete', got {mode!r}")
    return qr_p(_float(input), mode=mode)


# ***** SVD and the symmetric eigendecomposition *****

def _svd_infer(a, full_matrices):
    _matrix_infer(a)
    m, n = a.shape[-2:]
    k = min(m, n)
    lead = a.shape[:-2]
    u_cols, v_cols = (m, n) if full_matrices else (k, k)
    return (Aval(lead + (k,), a.dtype), Aval(lead + (m, u_cols), a.dtype),
            Aval(lead + (n, v_cols), a.dtype))


def _svd_impl(xp, a, full_matrices):
    u, s, vh = xp.linalg.svd(a, full_matrices=full_matrices)
    return s, u, xp.swapaxes(vh, -1, -2)  # MindSpore returns V, not V^T


def _gap_inverse(s):
    """F_ij = 1 / (s_j^2 - s_i^2) off the diagonal, 0 on it."""
    sq = F.mul(s, s)
    gaps = F.sub(F.expand_dims(sq, -2), F.expand_dims(sq, -1))
    eye = F.eye(s.shape[-1], dtype=s.dtype)
    return F.mul(F.div(1, F.add(gaps, eye)), F.sub(1, eye))


def _svd_bprop(a, out, dout, full_matrices):
    s, u, v = out
    ds, du, dv = dout
    if full_matrices and a.shape[-1] != a.shape[-2]:
        raise op_error("svd", (a,), "the derivative of svd needs full_matrices=False",
                       NotImplementedError)
    # Townsend (2016), for distinct non-zero singular values
    gap = _gap_inverse(s)
    ut_du, vt_dv = F.matmul(_mT(u), du), F.matmul(_mT(v), dv)
    inner = F.add(F.add(F.matmul(F.mul(gap, F.sub(ut_du, _mT(ut_du))), _diag_matrix(s)),
                        _diag_matrix(ds)),
                  F.matmul(_diag_matrix(s), F.mul(gap, F.sub(vt_dv, _mT(vt_dv)))))
    grad = F.matmul(F.matmul(u, inner), _mT(v))
    s_inv = _diag_matrix(F.div(1, s))
    eye_m, eye_n = (F.eye(d, dtype=a.dtype) for d in a.shape[-2:])
    grad = F.add(grad, F.matmul(F.matmul(F.sub(eye_m, F.matmul(u, _mT(u))), du),
                                F.matmul(s_inv, _mT(v))))
    grad = F.add(grad, F.matmul(F.matmul(u, s_inv),
                                F.matmul(_mT(dv), F.sub(eye_n, F.matmul(v, _mT(v))))))
    return (grad,)


svd_p = Primitive("svd", infer=_svd_infer, impl=_svd_impl, bprop=_svd_bprop, batch=_batched,
                  multiple_results=True, doc="(s, u, v) with a = u diag(s) v^T")


def svd(input: TensorLike, full_matrices: bool = False,
        compute_uv: bool = True) -> Union[Tensor, Tuple[Tensor, Tensor, Tensor]]:
    """Singular values s (descending) and, with compute_uv, u and v: input = u diag(s) v^T
    (MindSpore's order and v, not v^T)."""
    s, u, v = svd_p(_float(input), full_matrices=bool(full_matrices))
    return (s, u, v) if compute_uv else s


def _eigh_impl(xp, a):
    w, v = xp.linalg.eigh(_symmetric(xp, a))
    return w, v


def _eigh_bprop(a, out, dout):
    w, v = out
    dw, dv = dout
    # A_bar = V (diag(w_bar) + F o (V^T V_bar)) V^T with F_ij = 1 / (w_j - w_i), symmetrised
    gaps = F.sub(F.expand_dims(w, -2), F.expand_dims(w, -1))
    eye = F.eye(w.shape[-1], dtype=w.dtype)
    inv_gaps = F.mul(F.div(1, F.add(gaps, eye)), F.sub(1, eye))
    inner = F.add(_diag_matrix(dw), F.mul(inv_gaps, F.matmul(_mT(v), dv)))
    grad = F.matmul(F.matmul(v, inner), _mT(v))
    return (F.mul(F.add(grad, _mT(grad)), 0.5),)


eigh_p = Primitive("eigh", infer=lambda a: (Aval(_square_infer(a).shape[:-1], a.dtype), a),
                   impl=_eigh_impl, bprop=_eigh_bprop, batch=_batched, multiple_results=True,
                   doc="(eigenvalues ascending, eigenvectors) of the symmetric part of a")


def eigh(input: TensorLike) -> Tuple[Tensor, Tensor]:
    """(eigenvalues in ascending order, eigenvectors as columns) of symmetric matrices."""
    return eigh_p(_float(input))



# ***** the matrix exponential *****

def _matrix_exp_impl(xp, a):
    if xp is np:
        import scipy.linalg
        return scipy.linalg.expm(a).astype(a.dtype, copy=False)
    import cupyx.scipy.linalg
    return cupyx.scipy.linalg.expm(a)


def _matrix_exp_bprop(a, out, dout):
    # the adjoint of expm at A applied to G is the upper-right block of
    # expm([[A^T, G], [0, A^T]]) (Najfeld & Havel 1995); itself a matrix_exp, so it
    # differentiates again
    n = a.shape[-1]
    a_t = _mT(a)
    top = F.concat([a_t, dout], -1)
    bottom = F.concat([F.zeros_like(a_t), a_t], -1)
    block = matrix_exp_p(F.concat([top, bottom], -2))
    return (F.getitem(block, (Ellipsis, slice(0, n), slice(n, 2 * n))),)


matrix_exp_p = Primitive("matrix_exp", infer=_square_infer, impl=_matrix_exp_impl,
                         bprop=_matrix_exp_bprop, batch=_batched,
                         doc="the matrix exponential of square matrices")


def matrix_exp(input: TensorLike) -> Tensor:
    """The matrix exponential sum_k A^k / k! of square matrices."""
    return matrix_exp_p(_float(input))


# ***** LU factors (LAPACK's getrf layout: L below the diagonal, U on and above) *****

def _permutation(pivots, n):
    """The row permutation of LAPACK's 1-based row interchanges: row i swapped with row
    pivots[i] - 1, in order; for a batch, one permutation per matrix."""
    perms = np.tile(np.arange(n), pivots.shape[:-1] + (1,))
    for index in np.ndindex(pivots.shape[:-1]):
        perm = perms[index]
        for i, p in enumerate(pivots[index]):
            perm[i], perm[p - 1] = perm[p - 1], perm[i]
    return perms


def lu_unpack(LU_data: TensorLike, LU_pivots: TensorLike, unpack_data: bool = True,
              unpack_pivots: bool = True) -> Tuple[Tensor, Tensor, Tensor]:
    """(P, L, U) with A = P L U from LU factors and 1-based pivots (LAPACK's getrf, as
    scipy.linalg.lu_factor gives plus 1). The pivots are read on the host."""
    lu = _float(LU_data)
    m, n = lu.shape[-2:]
    k = min(m, n)
    pivots = as_tensor(LU_pivots)._host("ops.lu_unpack: the permutation from the pivots")
    perm = _permutation(np.asarray(pivots).astype(np.int64), m)
    # P's column j is the unit vector at the row that ended up at position j
    p = F.cast(Tensor(np.eye(m, dtype=bool)[perm].swapaxes(-1, -2)), lu.dtype)
    low = F.add(F.tril(F.getitem(lu, (Ellipsis, slice(None), slice(0, k))), -1),
                F.eye(m, k, dtype=lu.dtype))
    up = F.triu(F.getitem(lu, (Ellipsis, slice(0, k), slice(None))))
    return p, low, up


def lu_solve(b: TensorLike, LU_data: TensorLike, LU_pivots: TensorLike) -> Tensor:
    """X with A X = b, A given by its LU factors (see lu_unpack)."""
    p, low, up = lu_unpack(LU_data, LU_pivots)
    return F.matmul(F.inverse(up), F.matmul(F.inverse(low), F.matmul(_mT(p), b)))
