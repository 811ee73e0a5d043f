"""CUDA codegen: each fused elementwise group becomes one `cupy.ElementwiseKernel`.

The kernel body is the group's expression DAG, one typed local per node, rendered from the
same `expr` templates as the numba kernels. Templates are Python-syntax scalar expressions;
`to_c` spells them in C++: function names map to the device functions of `PREAMBLE` (prefixed
`ms_` so they never clash with CUDA's or CuPy's own overloads), `not`/`and`/`or` become
`!`/`&&`/`||`. The rows whose C reading would differ from numpy (true division of ints,
floor division and modulo, `**`, `~` on Bool) have CUDA templates of their own
(`CUDA_TEMPLATES`), in the same neutral syntax.

Two kernels run the same body. When every array input is C-contiguous and of the group's
full shape (a chain over activations, an optimizer's update), a `cupy.RawKernel` walks the
flat arrays, four elements per thread with 4-wide vector loads and stores (`render_flat`):
CuPy's ElementwiseKernel indexes every element through a strided 64-bit indexer, which
caps a chain over 2^24 float32 at ~55% of an H100's copy bandwidth, even with an empty body;
the flat kernel reaches ~85%. Otherwise (broadcast or strided inputs) the ElementwiseKernel
runs, with CuPy doing broadcasting, strides and the launch. Sizes never appear in the source,
so one kernel serves every batch size. Kernel objects are built on first call (CuPy is
imported only then) and shared by every group with the same source; CuPy caches the compiled
binaries on disk under the minispore cache dir (`device.select` points CUPY_CACHE_DIR there).

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

from ...ops.families import P

# numpy dtype name -> the C type CuPy uses for it in kernel parameters
CTYPES = {"bool": "bool", "int8": "signed char", "uint8": "unsigned char", "int16": "short",
          "int32": "int", "int64": "long long", "float32": "float", "float64": "double"}

# rows whose template, read as C, would not compute what numpy computes
CUDA_TEMPLATES = {
    P.div: "div({0}, {1})",                # C's int / int truncates; numpy divides in float64
    P.floor_div: "floor_div({0}, {1})",    # Python's floor division (numpy's divmod for floats)
    P.floor_mod: "floor_mod({0}, {1})",    # Python's modulo: the sign of the divisor
    P.pow: "pow({0}, {1})",                # ** is not C
    P.bitwise_not: "invert({0})",          # ~true is -2 in C, still true as a bool
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
MS_FLOAT_MATH(ms_asin, asinf, asin)
MS_FLOAT_MATH(ms_acos, acosf, acos)
MS_FLOAT_MATH(ms_atan, atanf, atan)
MS_FLOAT_MATH(ms_sinh, sinhf, sinh)
MS_FLOAT_MATH(ms_cosh, coshf, cosh)
MS_FLOAT_MATH(ms_asinh, asinhf, asinh)
MS_FLOAT_MATH(ms_acosh, acoshf, acosh)
MS_FLOAT_MATH(ms_atanh, atanhf, atanh)
MS_FLOAT_MATH(ms_exp2, exp2f, exp2)
MS_FLOAT_MATH(ms_log2, log2f, log2)
MS_FLOAT_MATH(ms_log10, log10f, log10)
MS_FLOAT_MATH(ms_erfc, erfcf, erfc)
MS_FLOAT_MATH(ms_lgamma, lgammaf, lgamma)

#define MS_FLOAT_MATH2(name, f32, f64)                                                      \
  __device__ __forceinline__ float name(float a, float b) { return f32(a, b); }            \
  __device__ __forceinline__ double name(double a, double b) { return f64(a, b); }         \
  template <typename T> __device__ __forceinline__ float name(T a, T b) {                  \
    return f32(float(a), float(b));                                                         \
  }
MS_FLOAT_MATH2(ms_atan2, atan2f, atan2)
MS_FLOAT_MATH2(ms_hypot, hypotf, hypot)
MS_FLOAT_MATH2(ms_copysign, copysignf, copysign)

// C's remainder (the dividend's sign); numpy gives 0 for an integer divided by 0
__device__ __forceinline__ float ms_fmod(float a, float b) { return fmodf(a, b); }
__device__ __forceinline__ double ms_fmod(double a, double b) { return fmod(a, b); }
template <typename T> __device__ __forceinline__ T ms_fmod(T a, T b) {
  return b == T(0) ? T(0) : T(a % b);
}

// classification: integers are finite numbers; x - x is nan exactly for inf and nan
template <typename T> __device__ __forceinline__ bool ms_isnan(T x) { return x != x; }
template <typename T> __device__ __forceinline__ bool ms_isinf(T x) {
  return x == x && x - x != x - x;
}
template <typename T> __device__ __forceinline__ bool ms_isfinite(T x) { return x - x == x - x; }
__device__ __forceinline__ bool ms_signbit(float x) { return signbit(x); }
__device__ __forceinline__ bool ms_signbit(double x) { return signbit(x); }
template <typename T> __device__ __forceinline__ bool ms_signbit(T x) { return x < T(0); }

// rounding keeps the dtype; integers are already integral
#define MS_ROUNDING(name, f32, f64)                                                         \
  __device__ __forceinline__ float name(float x) { return f32(x); }                        \
  __device__ __forceinline__ double name(double x) { return f64(x); }                      \
  template <typename T> __device__ __forceinline__ T name(T x) { return x; }
MS_ROUNDING(ms_floor, floorf, floor)
MS_ROUNDING(ms_ceil, ceilf, ceil)
MS_ROUNDING(ms_rint, rintf, rint)  // half to even, as numpy
MS_ROUNDING(ms_trunc, truncf, trunc)

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

// a flat kernel's vector of N elements: one 16-byte load or store for four floats
template <typename T, int N> struct alignas(sizeof(T) * N) ms_vec { T v[N]; };

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


FLAT_VECTOR = 4        # elements per thread of a flat kernel
FLAT_BLOCK = 256       # threads per block (128-512 measured alike on an H100)
_FLAT_MAX = 1 << 31    # flat kernels index with 32-bit unsigned ints


def render_flat(source):
    """The CUDA source of a RawKernel running `source`'s body over flat C-contiguous arrays:
    thread j computes elements 4j..4j+3, with vector loads and stores where `vector` (every
    array aligned to a whole vector), one by one for the tail."""
    params = [f"const {ctype(d)}* __restrict__ p_{n}" for d, n in source.inputs]
    params += [f"{ctype(d)}* __restrict__ p_{n}" for d, n in source.outputs]
    params += ["const unsigned int n", "const int vector"]

    def element(load, store):
        lines = [f"const {ctype(d)} {n} = {load(n)};" for d, n in source.inputs]
        lines += [f"{ctype(d)} {n};" for d, n in source.outputs]
        lines += source.operation.split("\n")
        lines += [f"{store(n)} = {n};" for _, n in source.outputs]
        return "\n      ".join(lines)

    vec = {n: f"ms_vec<{ctype(d)}, {FLAT_VECTOR}>" for d, n in source.inputs + source.outputs}
    loads = [f"const {vec[n]} v_{n} = reinterpret_cast<const {vec[n]}*>(p_{n})[j];"
             for _, n in source.inputs]
    stores = [f"reinterpret_cast<{vec[n]}*>(p_{n})[j] = v_{n};" for _, n in source.outputs]
    outs = [f"{vec[n]} v_{n};" for _, n in source.outputs]
    return f"""extern "C" __global__ void {source.name}_flat({", ".join(params)}) {{
  const unsigned int j = blockIdx.x * blockDim.x + threadIdx.x;
  const unsigned int first = j * {FLAT_VECTOR}u;
  if (vector && first + {FLAT_VECTOR}u <= n) {{
    {" ".join(loads)}
    {" ".join(outs)}
#pragma unroll
    for (int e = 0; e < {FLAT_VECTOR}; ++e) {{
      {element(lambda n: f"v_{n}.v[e]", lambda n: f"v_{n}.v[e]")}
    }}
    {" ".join(stores)}
  }} else {{
    for (unsigned int i = first; i < n && i < first + {FLAT_VECTOR}u; ++i) {{
      {element(lambda n: f"p_{n}[i]", lambda n: f"p_{n}[i]")}
    }}
  }}
}}
"""


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
        template = to_c(CUDA_TEMPLATES.get(node.prim, node.prim.expr), group.float_dtype)
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

_kernels = {}        # source text -> cupy.ElementwiseKernel
_flat_kernels = {}   # source text -> cupy.RawKernel
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


def flat_kernel_for(source):
    """The cupy.RawKernel running a KernelSource over flat arrays (one per distinct source)."""
    with _lock:
        kernel = _flat_kernels.get(source.text)
        if kernel is None:
            import cupy
            kernel = _flat_kernels[source.text] = cupy.RawKernel(
                PREAMBLE + render_flat(source), source.name + "_flat", options=("-std=c++17",))
        return kernel


class CudaGroupStep:
    """Runs a fused group as one kernel launch into freshly allocated outputs: the flat
    kernel where every array input is contiguous and of the group's shape, else the
    ElementwiseKernel (see the module docstring).

    CuPy compiles on the first launch. If the ElementwiseKernel fails to build, the group
    runs node by node through CuPy from then on, and the reason is logged once (as the numba
    path does); if only the flat kernel fails, the ElementwiseKernel serves every call."""

    def __init__(self, group):
        self.group = group
        self.kernel_source = render_kernel(group)
        self.source = self.kernel_source.text
        self.passed = [k for k, v in enumerate(group.inputs) if not _is_inlined(v)]
        self.out_dtypes = [o.dtype for o in group.outputs]
        self.size = int(np.prod(group.shape, dtype=np.int64))
        self.vector_bytes = [FLAT_VECTOR * np.dtype(d).itemsize
                             for d, _ in self.kernel_source.inputs + self.kernel_source.outputs]
        self.kernel = None
        self.flat = None if self.size < _FLAT_MAX else False  # False: never flat
        self.failed = None

    def __call__(self, xp, *inputs):
        if self.failed is not None:
            return self.group.run_nodes(xp, inputs)
        args = [inputs[k] for k in self.passed]
        if self.flat is not False and all(
                a.shape == self.group.shape and a.flags.c_contiguous for a in args):
            outs = self._flat_call(xp, args)
            if outs is not None:
                return outs
        if self.kernel is None:
            return self._first_call(xp, inputs, args)
        return self._launch(self.kernel, xp, args)

    def _flat_call(self, xp, args):
        """The outputs computed by the flat kernel, or None once it failed to build."""
        if self.flat is not None:
            return self._flat_launch(self.flat, xp, args)
        try:
            kernel = flat_kernel_for(self.kernel_source)
            outs = self._flat_launch(kernel, xp, args)
        except Exception as e:  # the ElementwiseKernel serves instead
            self.flat = False
            logging.getLogger("minispore.jit").debug(
                "flat CUDA kernel %s_flat failed to build (%s: %s)",
                self.kernel_source.name, type(e).__name__, e)
            return None
        self.flat = kernel
        return outs

    def _flat_launch(self, kernel, xp, args):
        outs = tuple(xp.empty(self.group.shape, d) for d in self.out_dtypes)
        if self.size == 0:
            return outs
        arrays = args + list(outs)
        vector = all(a.data.ptr % b == 0 for a, b in zip(arrays, self.vector_bytes))
        threads = -(-self.size // FLAT_VECTOR)
        kernel((-(-threads // FLAT_BLOCK),), (FLAT_BLOCK,),
               (*arrays, np.uint32(self.size), np.int32(vector)))
        return outs

    def _launch(self, kernel, xp, args):
        outs = tuple(xp.empty(self.group.shape, d) for d in self.out_dtypes)
        kernel(*args, *outs)
        return outs

    def _first_call(self, xp, inputs, args):
        try:
            kernel = kernel_for(self.kernel_source)
            outs = self._launch(kernel, xp, args)
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
