"""CUDA codegen: each fused elementwise group becomes one `cupy.ElementwiseKernel`.

The kernel body is the group's expression DAG, one typed local per node, rendered from the
same `expr` templates as the numba kernels. Templates are Python-syntax scalar expressions;
`to_c` spells them in C++: function names map to the device functions of `PREAMBLE` (prefixed
`ms_` so they never clash with CUDA's or CuPy's own overloads), `not`/`and`/`or` become
`!`/`&&`/`||`. The rows whose C reading would differ from numpy (true division of ints,
floor division and modulo, `**`, `~` on Bool) have CUDA templates of their own
(`CUDA_TEMPLATES`), in the same neutral syntax.

Broadcasting, strides and the launch are CuPy's: outputs are allocated with the group's shape
and inputs broadcast to it. Sizes never appear in the source, so one kernel serves every batch
size. Kernel objects are built on first call (CuPy is imported only then) and shared by every
group with the same source; CuPy caches the compiled binaries on disk under the minispore
cache dir (`device.select` points CUPY_CACHE_DIR there).

Accuracy: CUDA's IEEE math (expf, tanhf, erff... within 1-2 ulp; division and sqrt correctly
rounded) replaces the numba path's vectorised approximations; CuPy compiles with -ftz=true,
so float32 subnormal results flush to zero.
"""
import hashlib
import logging
import re
import threading
from typing import NamedTuple

import numpy as np

# numpy dtype name -> the C type CuPy uses for it in kernel parameters
CTYPES = {"bool": "bool", "int8": "signed char", "uint8": "unsigned char", "int16": "short",
          "int32": "int", "int64": "long long", "float32": "float", "float64": "double"}

# rows whose template, read as C, would not compute what numpy computes
CUDA_TEMPLATES = {
    "div": "div({0}, {1})",                # C's int / int truncates; numpy divides in float64
    "floor_div": "floor_div({0}, {1})",    # Python's floor division (numpy's divmod for floats)
    "floor_mod": "floor_mod({0}, {1})",    # Python's modulo: the sign of the divisor
    "pow": "pow({0}, {1})",                # ** is not C
    "bitwise_not": "invert({0})",          # ~true is -2 in C, still true as a bool
}

PREAMBLE = r"""
// minispore: the functions named in elementwise templates, for float, double and integers.
__device__ __forceinline__ float ms_sigmoid_f32(float x) {
  const float e = expf(-fabsf(x));  // never overflows: both quotients stay finite
  return x >= 0.0f ? 1.0f / (1.0f + e) : e / (1.0f + e);
}
__device__ __forceinline__ double ms_sigmoid_f64(double x) {
  const double e = exp(-fabs(x));
  return x >= 0.0 ? 1.0 / (1.0 + e) : e / (1.0 + e);
}

// float math on an integer or bool computes in float (ops.elementwise._float)
#define MS_FLOAT_MATH(name, f32, f64)                                                       \
  __device__ __forceinline__ float name(float x) { return f32(x); }                        \
  __device__ __forceinline__ double name(double x) { return f64(x); }                      \
  template <typename T> __device__ __forceinline__ float name(T x) { return f32(float(x)); }
MS_FLOAT_MATH(ms_exp, expf, exp)
MS_FLOAT_MATH(ms_log, logf, log)
MS_FLOAT_MATH(ms_log1p, log1pf, log1p)
MS_FLOAT_MATH(ms_expm1, expm1f, expm1)
MS_FLOAT_MATH(ms_sqrt, sqrtf, sqrt)
MS_FLOAT_MATH(ms_sin, sinf, sin)
MS_FLOAT_MATH(ms_cos, cosf, cos)
MS_FLOAT_MATH(ms_tan, tanf, tan)
MS_FLOAT_MATH(ms_tanh, tanhf, tanh)
MS_FLOAT_MATH(ms_erf, erff, erf)
MS_FLOAT_MATH(ms_sigmoid, ms_sigmoid_f32, ms_sigmoid_f64)

// rounding keeps the dtype; integers are already integral
#define MS_ROUNDING(name, f32, f64)                                                         \
  __device__ __forceinline__ float name(float x) { return f32(x); }                        \
  __device__ __forceinline__ double name(double x) { return f64(x); }                      \
  template <typename T> __device__ __forceinline__ T name(T x) { return x; }
MS_ROUNDING(ms_floor, floorf, floor)
MS_ROUNDING(ms_ceil, ceilf, ceil)
MS_ROUNDING(ms_rint, rintf, rint)  // half to even, as numpy

// numpy's divmod for floats: q * b + r == a with r of the sign of b; b == 0 gives inf/nan
#define MS_FLOAT_DIVMOD(F, FMOD, FLOOR, COPYSIGN)                                          \
  __device__ __forceinline__ F ms_floor_div(F a, F b) {                                     \
    if (b == F(0)) return a / b;                                                            \
    const F mod = FMOD(a, b);                                                               \
    F div = (a - mod) / b;                                                                  \
    if (mod != F(0) && ((b < F(0)) != (mod < F(0)))) div -= F(1);                          \
    if (div == F(0)) return COPYSIGN(F(0), a / b);                                          \
    const F q = FLOOR(div);                                                                 \
    return div - q > F(0.5) ? q + F(1) : q;                                                 \
  }                                                                                         \
  __device__ __forceinline__ F ms_floor_mod(F a, F b) {                                     \
    const F mod = FMOD(a, b);                                                               \
    if (b == F(0)) return mod;                                                              \
    if (mod == F(0)) return COPYSIGN(F(0), b);                                              \
    return ((b < F(0)) != (mod < F(0))) ? mod + b : mod;                                    \
  }
MS_FLOAT_DIVMOD(float, fmodf, floorf, copysignf)
MS_FLOAT_DIVMOD(double, fmod, floor, copysign)

// Python's floor division and modulo for integers; numpy gives 0 for a zero divisor
template <typename T> __device__ __forceinline__ T ms_floor_div(T a, T b) {
  if (b == T(0)) return T(0);
  const T q = T(a / b);
  return (T(a % b) != T(0) && ((a < T(0)) != (b < T(0)))) ? T(q - T(1)) : q;
}
template <typename T> __device__ __forceinline__ T ms_floor_mod(T a, T b) {
  if (b == T(0)) return T(0);
  const T r = T(a % b);
  return (r != T(0) && ((r < T(0)) != (b < T(0)))) ? T(r + b) : r;
}

__device__ __forceinline__ float ms_div(float a, float b) { return a / b; }
__device__ __forceinline__ double ms_div(double a, double b) { return a / b; }
template <typename T> __device__ __forceinline__ double ms_div(T a, T b) {
  return double(a) / double(b);  // numpy's true_divide of integers (then cast by the output)
}

__device__ __forceinline__ float ms_pow(float a, float b) { return powf(a, b); }
__device__ __forceinline__ double ms_pow(double a, double b) { return pow(a, b); }
template <typename T> __device__ __forceinline__ T ms_pow(T a, T b) {
  if (b < T(0)) return T(0);  // numpy refuses negative integer powers; a kernel cannot raise
  T r = T(1);
  for (; b != T(0); b = T(b >> 1)) {
    if (b & T(1)) r = T(r * a);
    a = T(a * a);
  }
  return r;
}

__device__ __forceinline__ float ms_abs(float x) { return fabsf(x); }
__device__ __forceinline__ double ms_abs(double x) { return fabs(x); }
template <typename T> __device__ __forceinline__ T ms_abs(T x) { return x < T(0) ? T(-x) : x; }

// nan, +0 and -0 are their own sign
__device__ __forceinline__ float ms_sign(float x) {
  return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : x);
}
__device__ __forceinline__ double ms_sign(double x) {
  return x > 0.0 ? 1.0 : (x < 0.0 ? -1.0 : x);
}
template <typename T> __device__ __forceinline__ T ms_sign(T x) {
  return T((T(0) < x) - (x < T(0)));
}

// numpy's maximum/minimum: a nan in either operand wins
template <typename T> __device__ __forceinline__ T ms_max(T a, T b) {
  return (a >= b || a != a) ? a : b;
}
template <typename T> __device__ __forceinline__ T ms_min(T a, T b) {
  return (a <= b || a != a) ? a : b;
}

// the usual arithmetic conversions of a ? b : c (the type of a prvalue: never a reference)
template <typename A, typename B>
__device__ __forceinline__ auto ms_where(bool c, A a, B b) -> decltype(true ? A() : B()) {
  return c ? a : b;
}

__device__ __forceinline__ bool ms_invert(bool x) { return !x; }
template <typename T> __device__ __forceinline__ T ms_invert(T x) { return T(~x); }
"""

_CALL = re.compile(r"\b([A-Za-z_]\w*)\(")
_WORDS = {"not": "!", "and": "&&", "or": "||", "True": "true", "False": "false"}
_WORD = re.compile(r"\b(" + "|".join(_WORDS) + r")\b")
_FLOAT_LITERAL = re.compile(r"(?<![\w.])(\d+\.\d*|\d*\.\d+)(?![\w.])")
_NOT_C = ("**", "//", "%", " if ", "lambda")


def ctype(dtype):
    """The C type of a numpy dtype in kernels."""
    name = np.dtype(dtype).name
    if name not in CTYPES:
        raise TypeError(f"CUDA codegen: no kernel type for {name} (fusion groups only "
                        f"{', '.join(CTYPES)})")
    return CTYPES[name]


def to_c(template, float_dtype=None):
    """A template in the neutral (Python) syntax spelled as C++ for the preamble above.

    Float literals take the group's float type (a bare `0.5` would be double in C and widen
    float32 arithmetic). Python syntax with no direct C spelling is refused, so a new
    template gets a CUDA_TEMPLATES row instead of silently meaning something else (`a // b`
    would start a C comment)."""
    bad = [s for s in _NOT_C if s in template]
    if bad:
        raise ValueError(f"CUDA codegen: template {template!r} uses {bad[0]!r}, which has no C "
                         f"spelling; give the primitive a row in cuda_gpu.CUDA_TEMPLATES")
    text = _WORD.sub(lambda m: _WORDS[m.group(1)], template)
    text = _CALL.sub(lambda m: f"ms_{m.group(1)}(", text)
    if float_dtype is not None and np.dtype(float_dtype) == np.float32:
        text = _FLOAT_LITERAL.sub(lambda m: m.group(1) + "f", text)
    return text


def c_literal(value, dtype):
    """A scalar constant as a C literal of exactly `dtype` (parenthesised when negative)."""
    dtype = np.dtype(dtype)
    value = np.asarray(value, dtype).reshape(()).item()
    if dtype.kind == "b":
        return "true" if value else "false"
    if dtype.kind in "iu":
        if dtype == np.int64 and value == np.iinfo(np.int64).min:
            return "(-9223372036854775807LL - 1)"  # the positive half of the literal overflows
        text = f"static_cast<{ctype(dtype)}>({value}LL)"
    elif np.isfinite(value):
        # numpy's shortest repr that round-trips in this dtype
        text = str(dtype.type(value)) + ("f" if dtype == np.float32 else "")
    else:
        bits = {"float32": ("__int_as_float", 0x7F800000, 0x7FC00000, ""),
                "float64": ("__longlong_as_double", 0x7FF0000000000000, 0x7FF8000000000000, "LL")}
        cast, inf, nan, suffix = bits[dtype.name]
        text = f"{cast}({hex(nan if np.isnan(value) else inf)}{suffix})"
        if value < 0:
            text = "-" + text
    return f"({text})" if text.startswith("-") else text


# ***** source generation *****

class KernelSource(NamedTuple):
    """What `cupy.ElementwiseKernel(in_params, out_params, operation, name, preamble=...)`
    takes, plus the typed parameter lists (for tools that build their own wrapper)."""
    name: str
    inputs: tuple     # ((numpy dtype name, parameter name), ...) in argument order
    outputs: tuple
    operation: str

    @property
    def in_params(self):
        return ", ".join(f"{d} {n}" for d, n in self.inputs)

    @property
    def out_params(self):
        return ", ".join(f"{d} {n}" for d, n in self.outputs)

    @property
    def text(self):
        """Readable source (dumped with save_graphs); also the memo key of kernel objects."""
        return (f"// fused kernel {self.name}\n// in: {self.in_params}\n// out: {self.out_params}\n"
                + self.operation + "\n")


def _is_inlined(v):
    """Size-1 constants become literals in the source; every other input is a parameter."""
    return v.const is not None and v.size == 1


def render_kernel(group):
    """The CUDA source of a FusedGroup's kernel."""
    names, inputs, body = {}, [], []
    for v in group.inputs:
        if _is_inlined(v):
            names[v.id] = c_literal(v.const, v.dtype)
        else:
            names[v.id] = f"a{len(inputs)}"
            inputs.append((v.dtype.name, names[v.id]))
    for j, node in enumerate(group.nodes):
        template = to_c(CUDA_TEMPLATES.get(node.prim.name, node.prim.expr), group.float_dtype)
        cast = node.attrs.get("dtype")
        expr = template.format(*[names[v.id] for v in node.inputs],
                               dtype=f"static_cast<{ctype(cast)}>" if cast is not None else "")
        out = node.outputs[0]
        names[out.id] = f"t{j}"
        body.append(f"const {ctype(out.dtype)} t{j} = {expr};")
    outputs = []
    for k, v in enumerate(group.outputs):
        outputs.append((v.dtype.name, f"o{k}"))
        body.append(f"o{k} = {names[v.id]};")
    operation = "\n".join(body)
    digest = hashlib.sha1(repr((inputs, outputs, operation)).encode()).hexdigest()[:12]
    return KernelSource(f"minispore_fused_{digest}", tuple(inputs), tuple(outputs), operation)


# ***** kernel objects, shared by source *****

_kernels = {}
_lock = threading.Lock()


def kernel_for(source):
    """The cupy.ElementwiseKernel for a KernelSource (one object per distinct source)."""
    with _lock:
        kernel = _kernels.get(source.text)
        if kernel is None:
            import cupy
            kernel = _kernels[source.text] = cupy.ElementwiseKernel(
                source.in_params, source.out_params, source.operation, source.name,
                preamble=PREAMBLE)
        return kernel


class CudaGroupStep:
    """Runs a fused group as one kernel launch into freshly allocated outputs.

    CuPy compiles on the first launch; if that fails the group runs node by node through
    CuPy from then on, and the reason is logged once (as the numba path does)."""

    def __init__(self, group):
        self.group = group
        self.kernel_source = render_kernel(group)
        self.source = self.kernel_source.text
        self.passed = [k for k, v in enumerate(group.inputs) if not _is_inlined(v)]
        self.out_dtypes = [o.dtype for o in group.outputs]
        self.kernel = None
        self.failed = None

    def __call__(self, xp, *inputs):
        if self.failed is not None:
            return self.group.run_nodes(xp, inputs)
        if self.kernel is None:
            return self._first_call(xp, inputs)
        return self._launch(self.kernel, xp, inputs)

    def _launch(self, kernel, xp, inputs):
        outs = tuple(xp.empty(self.group.shape, d) for d in self.out_dtypes)
        kernel(*[inputs[k] for k in self.passed], *outs)
        return outs

    def _first_call(self, xp, inputs):
        try:
            kernel = kernel_for(self.kernel_source)
            outs = self._launch(kernel, xp, inputs)
        except Exception as e:  # keep running node by node, and say why once
            self.failed = e
            logging.getLogger("minispore.jit").warning(
                "CUDA kernel %s failed to build (%s: %s); running its group op by op",
                self.kernel_source.name, type(e).__name__, e)
            return self.group.run_nodes(xp, inputs)
        self.kernel = kernel
        return outs


def lower_group_cuda(group):
    """A CudaGroupStep for `group` (its kernel is built on the first call)."""
    return CudaGroupStep(group)


def lower(graph):
    """(Program, CUDA source of its kernels) for an optimised graph on the GPU."""
    from . import lower_groups
    return lower_groups(graph, lower_group_cuda)
