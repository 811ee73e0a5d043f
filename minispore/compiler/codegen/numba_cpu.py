"""numba codegen: each fused group becomes a generated, self-contained Python module.

The module holds the vectorisable math preamble (codegen.fastmath) and one kernel: a loop nest
over the group's domain (LoopNest: size-1 axes dropped, axes that broadcast alike merged, so a
chain over same-shaped inputs is one flat loop) computing the expression DAG, each input read
as a C-contiguous array of its own shape, and accumulating the group's trailing reductions;
then the group's epilogue, a loop over the reduced shape reading the finished reductions.
Sizes never appear in the source, so one compile serves every batch size; numba specialises on
dtype and ndim. Source is keyed by a structural hash (plus versions), written to the cache
directory and imported, and compiled with `cache=True`, so a second process loads machine code.

Compilation is tiered: a group first runs its nodes through numpy while its kernel compiles
on a background thread, then switches to the kernel (DESIGN.md: first calls must not be slow).
"""
import hashlib
import importlib.util
import logging
import os
import re
import sys
import threading
from typing import NamedTuple

import numpy as np

from ...context import cache_dir
from ...core.dtype import BF16
from ...ops.elementwise import power_recipe
from ...ops.families import P
from ...version import __version__
from . import fastmath
from .background import COMPILER
from .cpu_kernels import CPU_KERNELS

KERNEL_FLAGS = "fastmath=_FLAGS, error_model='numpy', cache=True, nogil=True"
# No 'afn'/'arcp': approximate sqrt and division would make Graph mode drift from PyNative
# in optimizers such as Adam (m / sqrt(v) amplifies the last bits). Vectorisation needs
# neither; 'contract' (FMA) and 'nsz' are kept.
KERNEL_FASTMATH = {"nsz", "contract"}
ALIAS_CHECKS = 512  # LLVM's limits on a vectorised loop's runtime alias checks (_version_tag)
# template names not in the fastmath preamble: exact numpy (or math) functions numba compiles
# inline, as `name = module.function` lines
_LIBRARY_FUNCTIONS = {
    "sqrt": "np.sqrt", "floor": "np.floor", "ceil": "np.ceil", "rint": "np.rint",
    "trunc": "np.trunc", "sign": "np.sign", "tan": "np.tan", "asin": "np.arcsin",
    "acos": "np.arccos", "atan": "np.arctan", "sinh": "np.sinh", "cosh": "np.cosh",
    "asinh": "np.arcsinh", "acosh": "np.arccosh", "atanh": "np.arctanh", "exp2": "np.exp2",
    "log2": "np.log2", "log10": "np.log10", "erfc": "math.erfc", "lgamma": "math.lgamma",
    "isnan": "np.isnan", "isinf": "np.isinf", "isfinite": "np.isfinite",
    "signbit": "np.signbit", "atan2": "np.arctan2", "hypot": "np.hypot",
    "copysign": "np.copysign", "fmod": "np.fmod",
}
_LIBRARY_PREAMBLE = "import math\n" + "".join(f"{name} = {function}\n"
                                              for name, function in _LIBRARY_FUNCTIONS.items())


class _HalfCodec(NamedTuple):
    """The kernel functions of a half type held as its uint16 bits: load (bits -> float32),
    store (float32 -> bits, rounded to nearest even) and round (float32 -> float32 rounded
    to the half type, a half node's result)."""
    load: str
    store: str
    round: str


HALF_CODECS = {np.dtype(np.float16): _HalfCodec("_h2f", "_f2h", "_rh"),
               BF16: _HalfCodec("_b2f", "_f2b", "_rb")}

# float16 converts by LLVM's fpext / fptrunc (one vcvtph2ps / vcvtps2ph per 8 or 16 lanes on
# x86 with F16C); bfloat16 is the high half of a float32, rounded to nearest even as
# ml_dtypes rounds it (a nan stays a quiet nan of its sign).
_HALF_CONVERSIONS = '''
from llvmlite import ir as _half_ir
from numba import types as _half_types
from numba.extending import intrinsic as _half_intrinsic


def _half_conversion(signature, convert):
    @_half_intrinsic
    def conversion(typingctx, x):
        def codegen(context, builder, sig, args):
            return convert(builder, args[0])
        return signature, codegen
    return conversion


_f16, _f32, _u16, _u32 = (_half_ir.HalfType(), _half_types.float32, _half_types.uint16,
                          _half_types.uint32)
_half_bits = _half_conversion(_u16(_f32), lambda b, x: b.bitcast(b.fptrunc(x, _f16),
                                                                  _half_ir.IntType(16)))
_half_value = _half_conversion(_f32(_u16), lambda b, x: b.fpext(b.bitcast(x, _f16),
                                                                _half_ir.FloatType()))
_float_bits = _half_conversion(_u32(_f32), lambda b, x: b.bitcast(x, _half_ir.IntType(32)))
_bits_float = _half_conversion(_f32(_u32), lambda b, x: b.bitcast(x, _half_ir.FloatType()))


@numba.njit(inline="always")
def _h2f(bits):
    return _half_value(bits)


@numba.njit(inline="always")
def _f2h(x):
    return _half_bits(np.float32(x))


@numba.njit(inline="always")
def _rh(x):
    return _half_value(_half_bits(np.float32(x)))


@numba.njit(inline="always")
def _b2f(bits):
    return _bits_float(np.uint32(bits) << np.uint32(16))


@numba.njit(inline="always")
def _f2b(x):
    b = _float_bits(np.float32(x))
    if x != x:
        return np.uint16((b >> np.uint32(16)) | np.uint32(0x40))
    return np.uint16((b + np.uint32(0x7FFF) + ((b >> np.uint32(16)) & np.uint32(1)))
                     >> np.uint32(16))


@numba.njit(inline="always")
def _rb(x):
    return _b2f(_f2b(x))
'''
_NUMBER = re.compile(r"(?<![\w.])(\d+\.\d*|\d*\.\d+|\d+)(?![\w.])")


# ***** source generation *****

def _scalar_const(value, dtype):
    if np.dtype(dtype) in HALF_CODECS:  # computed in float32, which holds it exactly
        value, dtype = np.asarray(value).astype(np.float32), np.float32
    value = np.asarray(value).reshape(()).item()
    # nan and inf have no literal: float('nan') does
    text = repr(value) if not isinstance(value, float) or np.isfinite(value) else \
        f"float({repr(value)!r})"
    return f"np.{np.dtype(dtype).name}({text})"


def _typed_literals(expr, float_dtype):
    """Numeric literals in a template become typed constants: a bare `0.5` is float64 in
    numba and would widen a float32 kernel (halving its vector width)."""
    if float_dtype is None:
        return expr
    name = np.dtype(float_dtype).name
    return _NUMBER.sub(lambda m: f"np.{name}({m.group(1)})", expr)


def _power_template(node):
    """pow by a constant exponent of POWER_RECIPES as products / reciprocal / sqrt (the
    simplification pass rewrites most; this covers a pow it leaves, e.g. a scalar base)."""
    c = node.inputs[1]
    recipe = power_recipe(node.inputs[0].dtype, c.const) if c.const is not None else None
    if recipe is None or node.inputs[0].dtype != node.outputs[0].dtype:
        return None
    return recipe("{0}", lambda a, b: f"({a} * {b})", lambda a: f"(1 / {a})",
                  lambda a: f"sqrt({a})")


def _render_expr(node, names, float_dtype):
    """The node's template with its operands' names and typed literals filled in; a half
    type's result rounded to it (computed in float32, as numpy computes it)."""
    expr = (_power_template(node) if node.prim is P.pow else None) or node.prim.expr
    if "{dtype}" in expr:
        dtype = np.dtype(node.attrs["dtype"])
        expr = expr.replace("{dtype}", "np.float32" if dtype in HALF_CODECS else f"np.{dtype.name}")
    expr = _typed_literals(expr.format(*[names[v.id] for v in node.inputs]), float_dtype)
    codec = HALF_CODECS.get(node.outputs[0].dtype)
    return f"{codec.round}({expr})" if codec else expr


def _load(v, source):
    """`source` (an element of input v) as the kernel computes with it."""
    codec = HALF_CODECS.get(v.dtype)
    return f"{codec.load}({source})" if codec else source


def _storage(dtype):
    """The dtype of the array a kernel holds `dtype` values in: half types as their bits."""
    return np.dtype(np.uint16) if dtype in HALF_CODECS else np.dtype(dtype)


def _stored(v, name):
    """The value `name` of output v as its array holds it."""
    codec = HALF_CODECS.get(v.dtype)
    return f"{codec.store}({name})" if codec else name


def _is_scalar(v):
    return v.size == 1


def _is_inlined(v):
    return v.const is not None and _is_scalar(v)


def _reductions(group):
    return [node for node in group.nodes if node.prim.expr is None]


# How a kernel accumulates each fusible reduction (fuse.FUSIBLE_REDUCTIONS): the combine
# intrinsic of _ACCUMULATORS and its identity. Sums accumulate in float64 whatever the data
# dtype: numpy sums float32 pairwise, a float32 running sum over many elements drifts far from
# that, and float64 partial sums (vector lanes, then rows) stay within float32 rounding of the
# exact sum. max/min are exact in their own dtype and propagate nan, as numpy's do.
_REDUCERS = {P.reduce_sum: ("_acc_sum", "0"), P.reduce_max: ("_acc_max", "-np.inf"),
             P.reduce_min: ("_acc_min", "np.inf")}

# The kernel's flags forbid reassociation (fastmath's range reductions depend on that), so a
# plain `acc += x` is one serial chain that LLVM does not vectorise (measured 11x slower on a
# row sum). Only the accumulating instruction carries 'reassoc', which lets LLVM keep a vector
# of partial sums; llvm.maximum/minimum are nan-propagating max/min that it vectorises too.
_ACCUMULATORS = '''
from llvmlite import ir as _acc_ir
from numba.extending import intrinsic as _acc_intrinsic


@_acc_intrinsic
def _acc_sum(typingctx, acc, x):
    def codegen(context, builder, sig, args):
        return builder.fadd(args[0], args[1], flags=("reassoc", "nsz", "contract"))
    return acc(acc, acc), codegen


def _acc_llvm(name):
    @_acc_intrinsic
    def combine(typingctx, acc, x):
        def codegen(context, builder, sig, args):
            fnty = _acc_ir.FunctionType(args[0].type, [args[0].type] * 2)
            return builder.call(builder.module.declare_intrinsic(name, [args[0].type], fnty), args)
        return acc(acc, acc), codegen
    return combine


_acc_max = _acc_llvm("llvm.maximum")
_acc_min = _acc_llvm("llvm.minimum")
'''


def _accumulator_dtype(node, float_dtype):
    return np.dtype(np.float64 if node.prim is P.reduce_sum else float_dtype)


class LoopNest:
    """The loops of a group's kernel: the domain with its size-1 axes dropped and adjacent axes
    merged where every array input broadcasts alike along both and both are reduced or both
    kept (a bias add over (N, C, H, W) runs as loops over (N, C, H*W)).

    Each array input is passed C-contiguous in the shape of the loops it varies along and
    indexed by their variables only (a bias: `a1[i1]`), so LLVM sees unit strides and
    vectorises the innermost loop. Elementwise outputs are written in the loops' shape,
    reductions in the shape of the kept loops. Sizes are the kernel's `s` argument, never
    source text, so a kernel serves every batch size.
    """

    def __init__(self, group):
        reduced = set(group.reduced_axes or ())
        arrays = [v for v in group.inputs if not _is_scalar(v)]
        loops = []   # [size, reduced?, varies? for each array input]
        for d, n in enumerate(group.shape):
            if n == 1:
                continue
            from_end = d - len(group.shape)
            varies = tuple(v.ndim >= -from_end and v.shape[from_end] != 1 for v in arrays)
            if loops and loops[-1][1:] == [d in reduced, varies]:
                loops[-1][0] *= n
            else:
                loops.append([n, d in reduced, varies])
        if not loops:  # a one-element domain
            loops = [[1, False, (True,) * len(arrays)]]
        self.shape = tuple(n for n, _, _ in loops)
        self.reduced = tuple(r for _, r, _ in loops)
        self.kept = tuple(j for j, r in enumerate(self.reduced) if not r)
        # the loops along which each array input (by Var id) varies
        self.varying = {v.id: tuple(j for j, (_, _, varies) in enumerate(loops) if varies[k])
                        for k, v in enumerate(arrays)}
        # outputs written in the shape of the kept loops: reductions and the epilogue's
        self.reduced_outputs = {node.outputs[0].id for node in _reductions(group) + group.epilogue}

    def arg_shape(self, v):
        """The shape in which the kernel takes input `v` (() for a scalar)."""
        return tuple(self.shape[j] for j in self.varying.get(v.id, ()))

    def out_shape(self, v):
        """The shape in which the kernel writes output `v` (a reduction that reduces every
        loop writes one element)."""
        if v.id in self.reduced_outputs:
            return tuple(self.shape[j] for j in self.kept) or (1,)
        return self.shape


def _index(loops):
    return "[" + ", ".join(f"i{j}" for j in loops) + "]" if loops else "[0]"


class _Accumulation:
    """Source lines that accumulate one reduction node `j` into its output `result`: before
    the loops, before / in / after the innermost loop, and after the loops."""

    def __init__(self, node, j, value, result, nest, float_dtype):
        combine, identity = _REDUCERS[node.prim]
        dtype = f"np.{_accumulator_dtype(node, float_dtype).name}"
        acc, row, kept = f"acc{j}", f"row{j}", _index(nest.kept)
        value = f"{dtype}({value})"
        self.setup, self.row_start, self.row_end, self.finish = [], [], [], []
        if dtype == f"np.{node.outputs[0].dtype.name}":
            self.setup.append(f"{acc} = {result}")
        else:  # rounded to the output dtype once, at the end
            self.setup.append(f"{acc} = np.empty({result}.shape, {dtype})")
            self.finish = [f"{result}_, {acc}_ = {result}.reshape({result}.size), {acc}.reshape({acc}.size)",
                           f"for j in range({result}.size):",
                           f"    {result}_[j] = {_stored(node.outputs[0], f'{acc}_[j]')}"]
        self.setup.append(f"{acc}.fill({dtype}({identity}))")
        if nest.reduced[-1]:  # the innermost loop runs along a row: accumulate in a scalar
            self.row_start.append(f"{row} = {dtype}({identity})")
            self.step = f"{row} = {combine}({row}, {value})"
            self.row_end.append(f"{acc}{kept} = {combine}({acc}{kept}, {row})")
        else:
            self.step = f"{acc}{kept} = {combine}({acc}{kept}, {value})"


def render_module(group, written_into=None):
    """Python source of the kernel module for `group` (readable: it is dumped for users).

    written_into: {output position: input position} for outputs the kernel stores into the
    array of an input of their shape instead of an output argument (a state update computed
    in its current value's buffer; see `can_write_into`). Each element is read before it is
    overwritten, at the same index, so LLVM vectorises the loop without alias checks on it.

    Size-1 inputs are passed as scalars and constants of size 1 are inlined; other inputs are
    read as LoopNest says. A reduction accumulates while the innermost loop runs: in a scalar
    when that loop runs along a reduced axis, else into the output row; both vectorise. The
    epilogue then loops over the kept loops, reading each finished reduction (a local array
    where the kernel does not return it).
    """
    dtype = group.float_dtype
    nest = LoopNest(group)
    names, consts, params, scalars = {}, [], [], []
    for k, v in enumerate(group.inputs):
        if _is_inlined(v):
            names[v.id] = f"c{k}"
            consts.append(f"c{k} = {_scalar_const(v.const, v.dtype)}")
        else:
            names[v.id] = f"a{k}_"
            params.append(f"a{k}")
            if _is_scalar(v):
                scalars.append((f"a{k}", v))
    written_into = written_into or {}
    out_params = {v.id: f"o{k}" for k, v in enumerate(group.outputs) if k not in written_into}
    stores = {**out_params, **{group.outputs[k].id: f"a{j}" for k, j in written_into.items()}}
    touches_half = any(v.dtype in HALF_CODECS for node in group.nodes
                       for v in list(node.inputs) + list(node.outputs))
    src = ["# generated by minispore: one fused elementwise kernel", "import numpy as np",
           "import numba", "", f"_FLAGS = set({sorted(KERNEL_FASTMATH)!r})", "",
           fastmath.preamble(np.dtype(dtype or np.float64).name).strip(), "", _LIBRARY_PREAMBLE,
           *([_ACCUMULATORS.strip(), ""] if _reductions(group) else []),
           *([_HALF_CONVERSIONS.strip(), ""] if touches_half else []), *consts, "",
           f"@numba.njit({KERNEL_FLAGS})",
           f"def kernel({', '.join(['s'] + params + list(out_params.values()))}):"]
    src += [f"    {n}_ = {_load(v, f'{n}[()]')}" for n, v in scalars]
    epilogue = {id(node) for node in group.epilogue}
    looped = [node for node in group.nodes if id(node) not in epilogue]
    body = _array_loads(group, looped, nest)
    accumulations, locals_ = [], []
    finished = {}  # reduction output id -> the array holding it after the loops
    for j, node in enumerate(looped):
        if node.prim.expr is None:
            result = out_params.get(node.outputs[0].id)
            if result is None:  # read by the epilogue only
                result = f"r{j}"
                locals_.append(f"{result} = np.empty({_kept_sizes(nest)}, "
                               f"np.{_storage(node.outputs[0].dtype).name})")
            accumulations.append(_Accumulation(node, j, names[node.inputs[0].id], result, nest,
                                               dtype))
            body.append(accumulations[-1].step)
            finished[node.outputs[0].id] = result
        else:
            names[node.outputs[0].id] = f"t{j}"
            body.append(f"t{j} = {_render_expr(node, names, dtype)}")
    index = _index(range(len(nest.shape)))
    body += [f"{stores[v.id]}{index} = {_stored(v, names[v.id])}"
             for v in group.outputs if v.id not in nest.reduced_outputs]
    src += ["    " + line for line in locals_]
    src += ["    " + line for a in accumulations for line in a.setup]
    indent = "    "
    for j in range(len(nest.shape)):
        if j == len(nest.shape) - 1:
            src += [indent + line for a in accumulations for line in a.row_start]
        src.append(f"{indent}for i{j} in range(s[{j}]):")
        indent += "    "
    src += [indent + line for line in body]
    src += [indent[4:] + line for a in accumulations for line in a.row_end]
    src += ["    " + line for a in accumulations for line in a.finish]
    if group.epilogue:
        src += _render_epilogue(group, nest, names, finished, out_params, dtype)
    return "\n".join(src) + "\n"


def _over_members(source):
    """A kernel module's source with its kernel run over tuples of arguments, element m of
    each being member m's argument: several kernels of one structure in one call."""
    lines = source.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("def kernel("))
    params = lines[at][len("def kernel("):-len("):")].split(", ")
    loop = ["def kernel(" + ", ".join(f"m_{p}" for p in params) + "):",
            "    for m in range(len(m_s)):", *[f"        {p} = m_{p}[m]" for p in params]]
    body = ["    " + line if line else line for line in lines[at + 1:]]
    return "\n".join(lines[:at] + loop + body).replace(
        "one fused elementwise kernel", "one fused elementwise kernel, over several tensors", 1) + "\n"


def can_write_into(group, k, j):
    """Whether the kernel can store output k into input j's array: an elementwise output of
    the input's shape and dtype, the input read along every loop (no broadcast) and not by
    the epilogue, which runs after the loops have overwritten it."""
    out, source = group.outputs[k], group.inputs[j]
    nest = LoopNest(group)
    epilogue_reads = {v.id for node in group.epilogue for v in node.inputs}
    return (out.id not in nest.reduced_outputs and not _is_scalar(source)
            and out.shape == source.shape and out.dtype == source.dtype
            and nest.arg_shape(source) == nest.shape and source.id not in epilogue_reads)


def _array_loads(group, nodes, nest):
    """`aK_ = aK[...]` for each array input that `nodes` read, indexed by the loops it varies
    along."""
    read = {v.id for node in nodes for v in node.inputs}
    return [f"a{k}_ = {_load(v, f'a{k}{_index(nest.varying[v.id])}')}"
            for k, v in enumerate(group.inputs) if v.id in read and not _is_scalar(v)]


def _kept_sizes(nest):
    return "(" + "".join(f"s[{j}], " for j in nest.kept) + ")" if nest.kept else "(1,)"


def _render_epilogue(group, nest, names, finished, out_params, dtype):
    """The epilogue's loops over the kept loops (none for a full reduction)."""
    body = _array_loads(group, group.epilogue, nest)
    read = {v.id for node in group.epilogue for v in node.inputs}
    reduced = {node.outputs[0].id: node.outputs[0] for node in _reductions(group)}
    for k, (vid, result) in enumerate(finished.items()):
        if vid in read:
            names[vid] = f"fin{k}"
            body.append(f"fin{k} = {_load(reduced[vid], f'{result}{_index(nest.kept)}')}")
    for j, node in enumerate(group.epilogue):
        names[node.outputs[0].id] = f"e{j}"
        body.append(f"e{j} = {_render_expr(node, names, dtype)}")
    body += [f"{out_params[node.outputs[0].id]}{_index(nest.kept)} = {_stored(node.outputs[0], f'e{j}')}"
             for j, node in enumerate(group.epilogue) if node.outputs[0].id in out_params]
    lines, indent = [], "    "
    for j in nest.kept:
        lines.append(f"{indent}for i{j} in range(s[{j}]):")
        indent += "    "
    return lines + [indent + line for line in body]


# ***** module cache *****

_VERSION_TAG = None
_modules = {}
_lock = threading.Lock()


def _version_tag():
    global _VERSION_TAG
    if _VERSION_TAG is None:
        import llvmlite.binding as llvm
        import numba  # (not at import: numba's own start-up is ~0.4 s, paid on first compile)
        # LLVM vectorises a loop only if it needs at most 8 runtime pointer-alias checks (128
        # with vectorize's own limit); a kernel with many arrays, such as an LSTM step's
        # forward with the residuals its gradient keeps (9 inputs, 12 outputs), then ran
        # scalar: 163 us instead of 22 us per (32, 256) step, measured. The checks are a few
        # compares per call.
        for option in ("-runtime-memory-check-threshold", "-vectorize-memory-check-threshold"):
            llvm.set_option("minispore", f"{option}={ALIAS_CHECKS}")
        _VERSION_TAG = (f"minispore {__version__} numba {numba.__version__} numpy {np.__version__}"
                        f" alias checks {ALIAS_CHECKS}")
    return _VERSION_TAG


def kernel_module(source):
    """Import (writing it first if needed) the module for `source`; one per structure.

    The file's name holds the hash of the source it must contain: a file that differs (edited,
    truncated, corrupt) is rewritten before it is imported, so the cache can never serve other
    code than its name promises, and a damaged entry repairs itself (numba sees the new file
    and compiles it afresh)."""
    key = hashlib.sha256((_version_tag() + "\n" + source).encode()).hexdigest()[:20]
    with _lock:
        module = _modules.get(key)
        if module is not None:
            return module
        directory = os.path.join(cache_dir.path(), "kernels")
        os.makedirs(directory, exist_ok=True)
        path = os.path.join(directory, f"k_{key}.py")
        text = source.replace("fused kernel ", f"fused kernel k_{key} ", 1)
        found = _read(path)
        if found != text:
            if found is not None:
                logging.getLogger("minispore.jit").warning(
                    "kernel cache file %s does not hold the source its name promises "
                    "(edited or corrupt); rewriting it", path)
            tmp = f"{path}.{os.getpid()}.{threading.get_ident()}.tmp"
            with open(tmp, "w") as f:
                f.write(text)
            os.replace(tmp, path)  # atomic: concurrent processes never import half a file
        spec = importlib.util.spec_from_file_location(f"minispore_kernels.k_{key}", path)
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module
        spec.loader.exec_module(module)
        _modules[key] = module
        return module


def _forget_machine_code(source):
    """Empty numba's on-disk cache index of `source`'s kernel and forget the module, so that
    the next import compiles it afresh. False if there was nothing to forget."""
    key = hashlib.sha256((_version_tag() + "\n" + source).encode()).hexdigest()[:20]
    with _lock:
        module = _modules.pop(key, None)
    if module is None:
        return False
    sys.modules.pop(f"minispore_kernels.k_{key}", None)
    cache = getattr(getattr(module, "kernel", None), "_cache", None)
    if cache is not None:
        cache.flush()  # numba's index, emptied: its machine code files are no longer read
    return True


def _read(path):
    """The text of a kernel file, or None if there is none or it cannot be read as text."""
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, UnicodeDecodeError):
        return None


# ***** the step that runs a group *****

class TieredStep:
    """A step that runs through numpy until its numba kernel is compiled, then the kernel."""

    def __init__(self, source):
        self.source = source
        self.kernel = None
        self.failed = None
        # the in-place writer this kernel waits for (in_place_kernel): compiled only once a
        # call needs it while that writer can run (a buffer that could not be donated)
        self.deferred_for = None

    def compile(self):
        """Import the module and compile the kernel for this step's types (any thread). A
        failure is retried once without numba's cached machine code for the module (a
        damaged cache entry repairs itself instead of failing in every later process)."""
        for attempt in range(2):
            try:
                kernel = kernel_module(self.source).kernel
                self._warm_up(kernel)  # compiles, or loads machine code from the disk cache
                self.kernel = kernel
                return
            except Exception as e:  # noqa: BLE001  (whatever failed: numpy runs it, say why)
                if attempt == 0 and _forget_machine_code(self.source):
                    continue
                self.failed = e
                logging.getLogger("minispore.jit").warning(
                    "%s failed to compile (%s: %s); running it through numpy", self.what,
                    type(e).__name__, e)
                return

    def __call__(self, xp, *inputs, **attrs):
        kernel = self.kernel
        if kernel is None or xp is not np:
            writer = self.deferred_for
            if writer is not None and (writer.kernel is not None or writer.failed is not None):
                self.deferred_for = None
                _submit(self, self.background)
            return self._numpy(xp, inputs, attrs)
        return self._run(kernel, inputs, attrs)


class GroupStep(TieredStep):
    """Runs a fused group: its nodes through numpy, then the generated kernel.

    written_into: {output position: input position} (see `render_module`): the variant that
    stores those outputs into the inputs' buffers, run by the executor's donating steps
    through `in_place` once its kernel is compiled."""

    what = "fused kernel"

    def __init__(self, group, source, written_into=None):
        super().__init__(source)
        self.group = group
        self.written_into = written_into or {}
        nest = LoopNest(group)
        self.loop_shape = nest.shape
        # (position, shape to pass it in, or None where it has that shape) of each passed input
        self.passed = [(k, None if v.ndim and v.shape == nest.arg_shape(v) else nest.arg_shape(v))
                       for k, v in enumerate(group.inputs) if not _is_inlined(v)]
        # (position, shape the kernel writes, dtype, shape to return or None where the same)
        # per output it takes as an argument
        self.out_specs = [(k, nest.out_shape(v), v.dtype,
                           None if v.shape == nest.out_shape(v) else v.shape)
                          for k, v in enumerate(group.outputs) if k not in self.written_into]

    def writing_into(self, wanted):
        """The twin of this step that stores output k into input j's buffer for each {k: j}
        of `wanted` where `can_write_into` holds (its `written_into`), or None where it holds
        for none. Not compiled yet: `in_place_kernel` compiles it, alone or with others."""
        written_into = {k: j for k, j in wanted.items() if can_write_into(self.group, k, j)}
        if not written_into:
            return None
        twin = GroupStep(self.group, render_module(self.group, written_into), written_into)
        twin.background, twin.origin = self.background, self
        return twin

    def _kernel_args(self, inputs, given=None):
        """The kernel's arguments: the loop sizes, the inputs, then its outputs (new arrays,
        or for output k the C-contiguous array given[k])."""
        args = [self.loop_shape]
        for k, shape in self.passed:
            a = inputs[k]
            # views (transposed, broadcast) are copied: the kernel takes C arrays only, so its
            # argument types never change and it compiles once (reading a transposed input in
            # place measured only ~15% faster than the copy plus a contiguous kernel)
            if type(a) is not np.ndarray or not a.flags.c_contiguous:
                a = np.ascontiguousarray(a)
            if a.dtype in HALF_CODECS:
                a = a.view(np.uint16)
            args.append(a if shape is None else a.reshape(shape))
        outs = [(given[k].reshape(shape) if given and k in given else np.empty(shape, dtype))
                for k, shape, dtype, _ in self.out_specs]
        return args, [o.view(np.uint16) if o.dtype in HALF_CODECS else o for o in outs]

    def _warm_up(self, kernel):
        args, outs = self._kernel_args([np.ones(v.shape, v.dtype) for v in self.group.inputs])
        kernel(*args, *outs)

    def _run(self, kernel, inputs, attrs):
        args, outs = self._kernel_args(inputs)
        kernel(*args, *outs)
        return self._results(inputs, outs)

    def _results(self, inputs, outs):
        returned = iter(_as_output(o, dtype, shape) for o, (_, _, dtype, shape)
                        in zip(outs, self.out_specs))
        return tuple(inputs[self.written_into[k]] if k in self.written_into else next(returned)
                     for k in range(len(self.group.outputs)))

    def _numpy(self, xp, inputs, attrs):
        return self.group.run_nodes(xp, inputs)

    def into(self, xp, given, *inputs):
        """The outputs, output k computed into the array given[k] (C-contiguous, of its
        shape); None until the kernel is compiled."""
        kernel = self.kernel
        if kernel is None or xp is not np:
            return None
        args, outs = self._kernel_args(inputs, given)
        kernel(*args, *outs)
        return self._results(inputs, outs)

    def in_place(self, xp, *inputs, **attrs):
        """A function of no arguments running the kernel that overwrites the written-into
        inputs (C-contiguous arrays owning their memory: the executor checks) and returning
        the outputs; None until that kernel is compiled."""
        kernel = self.kernel
        if kernel is None or xp is not np:
            return None
        args, outs = self._kernel_args(inputs)
        return lambda: (kernel(*args, *outs), self._results(inputs, outs))[1]


def _as_output(out, dtype, shape):
    """A kernel's output array as the graph's value: its dtype (half types were written as
    bits) and shape (None: as written)."""
    out = out if out.dtype == dtype else out.view(dtype)
    return out if shape is None else out.reshape(shape)


class MemberSteps(TieredStep):
    """In-place GroupSteps of one source (`writing_into` twins) run by one kernel call over
    all of them: a multi-tensor update, each optimizer update of a parameter being a member.
    `in_place` takes the members' inputs one after the other."""

    what = "fused multi-tensor kernel"

    def __init__(self, members):
        super().__init__(_over_members(members[0].source))
        self.members = members
        counts = [len(m.group.inputs) for m in members]
        self.starts = [sum(counts[:i]) for i in range(len(counts) + 1)]

    def _packed(self, per_member):
        """The kernel's arguments: for each of a member kernel's arguments, the tuple of the
        members' (read-only arrays copied: a tuple's arrays must all be of one type)."""
        columns = zip(*[args + outs for args, outs in per_member])
        return [tuple(a if type(a) is tuple or a.flags.writeable else a.copy() for a in column)
                for column in columns]

    def _warm_up(self, kernel):
        kernel(*self._packed([m._kernel_args([np.ones(v.shape, v.dtype) for v in m.group.inputs])
                              for m in self.members]))

    def in_place(self, xp, *inputs, **attrs):
        kernel = self.kernel
        if kernel is None or xp is not np:
            return None
        own = [inputs[a:b] for a, b in zip(self.starts, self.starts[1:])]
        per_member = [m._kernel_args(ins) for m, ins in zip(self.members, own)]
        packed = self._packed(per_member)

        def write():
            kernel(*packed)
            return tuple(r for m, ins, (_, outs) in zip(self.members, own, per_member)
                         for r in m._results(ins, outs))
        return write


def in_place_kernel(twins):
    """The step whose `in_place` writes the updates of `twins` (`writing_into` twins of one
    source): the twin itself, or a MemberSteps over several; compiled as their kernels were.
    The kernels the twins stand in for compile only once a call needs one (a buffer that
    could not be donated): a state update's allocating kernel is rarely run, and compiling
    it would delay the time until the program runs at compiled speed."""
    writer = twins[0] if len(twins) == 1 else MemberSteps(twins)
    for twin in twins:
        twin.origin.deferred_for = writer
    return _submit(writer, twins[0].background)


class PrimitiveStep(TieredStep):
    """Runs one node of a primitive with a `CpuKernel`: its impl, then the kernel."""

    def __init__(self, node, source):
        super().__init__(source)
        self.node = node
        self.call = CPU_KERNELS[node.prim].call
        self.what = f"the kernel of ops.{node.prim.name}"

    def _warm_up(self, kernel):
        # the kernel alone: where it does not cover the inputs (NotImplemented), the impl that
        # runs instead is no kernel to compile, and may refuse them (softmax over 0 classes)
        self.call(kernel, *[np.zeros(v.shape, v.dtype) for v in self.node.inputs],
                  **self.node.attrs)

    def _run(self, kernel, inputs, attrs):
        out = self.call(kernel, *inputs, **attrs)
        return self.node.prim.impl(np, *inputs, **attrs) if out is NotImplemented else out

    def _numpy(self, xp, inputs, attrs):
        return self.node.prim.impl(xp, *inputs, **attrs)


def primitive_module(node):
    """The module source of a node's CpuKernel, or None if its dtype has no fast math."""
    dtype = np.dtype(node.inputs[0].dtype)
    if dtype not in (np.float32, np.float64):
        return None
    return "\n".join([
        f"# generated by minispore: a primitive's Graph-mode kernel, {dtype.name}",
        "import numpy as np", "import numba", "", f"_FLAGS = set({sorted(KERNEL_FASTMATH)!r})",
        f"KERNEL_FLAGS = dict({KERNEL_FLAGS})", f"DTYPE = np.{dtype.name}", "",
        fastmath.preamble(dtype.name).strip(), "", _ACCUMULATORS.strip(), "", "",
        CPU_KERNELS[node.prim].source.strip(), ""])


def _submit(step, background):
    step.background = background
    if background:
        COMPILER.submit(step)
    else:
        step.compile()
    return step


def _lowered(step, background):
    step.background = background
    return step


def lower_group(group, background=True):
    """A GroupStep for `group`; `start` compiles its kernel (now, or on the background
    thread)."""
    return _lowered(GroupStep(group, render_module(group)), background)


def lower_primitive(node, background=True):
    """A PrimitiveStep for a node whose primitive has a CpuKernel, or None (no kernel, or none
    for its dtype: the impl runs); `start` compiles its kernel."""
    if node.prim not in CPU_KERNELS:
        return None
    source = primitive_module(node)
    return None if source is None else _lowered(PrimitiveStep(node, source), background)


def start(steps):
    """Compile the kernels of a program's lowered steps (now, or in order on the background
    thread), except those deferred until a call needs them (see `in_place_kernel`)."""
    for step in steps:
        if step.deferred_for is None and step.kernel is None:
            _submit(step, step.background)
