"""CUDA codegen, checked without a GPU.

Every distinct fused group of the representative workloads (tests/graph_workloads.py) and of a
walk over the elementwise primitives (each with every dtype its shape rule accepts, alone, in a
chain, with inlined constants) is rendered to CUDA source. All of them go into ONE translation
unit, each wrapped in the loop cupy.ElementwiseKernel generates, and nvcc compiles it once
(syntax and type errors, without a GPU). The walk's kernels, built for the host with g++, run
on edge-case inputs and are compared with the eager (numpy) results: the device functions'
semantics (floor division and modulo, nan in maximum, casts, integer overflow, literals) are
checked here; CUDA's own libm accuracy is checked by tests/gpu. Last, Graph-mode programs run
end to end on fake_device's CuPy, whose ElementwiseKernel is such a host build.
"""
import os
import re
import shutil
import subprocess

import numpy as np
import pytest
from fake_device import HOST_SHIMS, HostElementwiseKernel, elementwise_loop
from graph_workloads import WORKLOADS

import minispore as ms
from minispore.compiler import codegen
from minispore.compiler.codegen import cuda_gpu, cuda_graph
from minispore.compiler.fuse import FusedGroup, partition
from minispore.context import cache_dir, device
from minispore.core.ir import Graph, Node, Var
from minispore.ops.primitive import REGISTRY, Aval, OpError

NVCC = shutil.which("nvcc")
GXX = shutil.which("g++")
DTYPES = ("bool", "int8", "int16", "int32", "int64", "uint8", "float32", "float64")
ELEMENTWISE = sorted(name for name, p in REGISTRY.items() if p.expr is not None)
SHAPES = ((4, 3), (3,), (4, 1))  # operand k has SHAPES[k]: broadcasting in every case


# ***** fused groups: of the workloads, and of a walk over the primitives *****

def _workload_groups():
    """The fused groups of every workload graph (codegen intercepted: the graphs run through
    their primitive impls, fast; their partition is what a device's codegen would get)."""
    graphs = []

    lower = codegen.lower

    def record(graph, items, target, donations=()):
        graphs.append(graph)
        return lower(graph, graph.nodes, None, donations)  # every node runs its impl

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(codegen, "lower", record)
        for run in WORKLOADS.values():
            for dtype in (np.float32, np.float64):
                run(dtype)
    return [item for g in graphs for item in partition(g) if isinstance(item, FusedGroup)]


def _arity(prim):
    return 1 + max(int(k) for k in re.findall(r"\{(\d+)\}", prim.expr))


class Case:
    """One primitive on given input dtypes, followed by `equal(out, out)` so it forms a group
    of two (a lone op is not fused) whose operands are kernel parameters or inlined
    constants (`const`: the value of the last operand)."""

    def __init__(self, prim, in_dtypes, attrs=None, const=None):
        self.prim, self.attrs = prim, attrs or {}
        self.inputs = [Var(SHAPES[k], d) for k, d in enumerate(in_dtypes)]
        if const is not None:
            self.inputs[-1] = Var((), in_dtypes[-1], const=np.asarray(const, in_dtypes[-1]))
        out_aval = prim.infer(*[Aval(v.shape, v.dtype) for v in self.inputs], **self.attrs)
        self.out = Var(out_aval.shape, out_aval.dtype)
        check = Var(self.out.shape, np.bool_)
        graph = Graph("walk")
        graph.inputs = [v for v in self.inputs if v.const is None]
        graph.nodes = [Node(prim, self.inputs, self.attrs, [self.out]),
                       Node(REGISTRY["equal"], [self.out, self.out], {}, [check])]
        graph.outputs = [self.out, check]
        groups = [item for item in partition(graph) if isinstance(item, FusedGroup)]
        self.group = groups[0] if groups else None  # None: a mixed-float node is not fused

    def __repr__(self):
        dtypes = ",".join(v.dtype.name for v in self.inputs)
        return f"{self.prim.name}({dtypes}){self.attrs or ''}"


def _special_consts(dtype):
    if dtype.startswith("float"):
        return (0.1, -2.5, np.nan, np.inf, -np.inf, 1e-30)
    if dtype == "bool":
        return (True,)
    info = np.iinfo(dtype)
    return (7, -3 if info.min else 3, info.max, info.min + 1)  # 7 first: a valid exponent


def _walk_cases():
    """Every elementwise primitive x every dtype its shape rule accepts (cast: every pair);
    binary ones also with an inlined constant (all special values for add and select)."""
    cases = []
    for name in ELEMENTWISE:
        prim = REGISTRY[name]
        for dtype in DTYPES:
            if name == "select":
                signatures = [(("bool", dtype, dtype), {})]
            elif name == "cast":
                signatures = [((dtype,), {"dtype": np.dtype(to)}) for to in DTYPES]
            else:
                signatures = [((dtype,) * _arity(prim), {})]
            for in_dtypes, attrs in signatures:
                consts = [None]
                if len(in_dtypes) > 1:
                    specials = _special_consts(dtype)
                    consts += list(specials if name in ("add", "select") else specials[:1])
                for const in consts:
                    try:
                        case = Case(prim, in_dtypes, attrs, const)
                    except OpError:  # the shape rule refuses these dtypes
                        break
                    if case.group is not None:
                        cases.append(case)
    return cases


@pytest.fixture(scope="module")
def walk():
    return _walk_cases()


@pytest.fixture(scope="module")
def all_sources(walk):
    """KernelSource of every distinct group, by name (equal sources have equal names)."""
    groups = _workload_groups() + [case.group for case in walk]
    return {s.name: s for s in (cuda_gpu.render_kernel(g) for g in groups)}


def test_the_walk_covers_every_elementwise_primitive_and_both_float_dtypes(walk):
    assert {case.prim.name for case in walk} == set(ELEMENTWISE)
    floats = {(case.prim.name, case.group.float_dtype.name) for case in walk
              if case.group.float_dtype is not None}
    assert {(n, d) for n, _ in floats for d in ("float32", "float64")} == floats
    assert len({n for n, _ in floats}) > 35


def test_workloads_give_fused_groups_of_many_shapes(all_sources):
    assert any("ms_tanh" in s.operation and "ms_log1p" in s.operation
               for s in all_sources.values()), "the 14-op chain is one kernel"
    assert any(len(s.outputs) > 1 for s in all_sources.values())
    assert len(all_sources) > 100


# ***** the generated C++ *****

def test_a_group_renders_to_typed_locals_with_inlined_constants():
    x = Var((2, 3), np.float32)
    half = Var((), np.float32, const=np.asarray(0.5, np.float32))
    t, u = Var((2, 3), np.float32), Var((2, 3), np.float32)
    group = FusedGroup(nodes=[Node(REGISTRY["mul"], [x, half], {}, [t]),
                              Node(REGISTRY["tanh"], [t], {}, [u])],
                       inputs=[x, half], outputs=[u], shape=(2, 3),
                       float_dtype=np.dtype(np.float32))
    source = cuda_gpu.render_kernel(group)
    assert source.in_params == "float32 a0" and source.out_params == "float32 o0"
    assert source.operation == ("const float t0 = a0 * 0.5f;\n"
                                "const float t1 = ms_tanh(t0);\n"
                                "o0 = t1;")


@pytest.mark.parametrize("template, c", [
    ("where({0} > 0, {0}, 0)", "ms_where({0} > 0, {0}, 0)"),
    ("not {0}", "! {0}"),
    ("{0} and {1}", "{0} && {1}"),
    ("(not {0}) != (not {1})", "(! {0}) != (! {1})"),
    ("{0} * 0.5 + 1", "{0} * 0.5f + 1"),
    ("{dtype}({0})", "{dtype}({0})"),
])
def test_templates_are_spelled_in_cpp(template, c):
    assert cuda_gpu.to_c(template, np.dtype(np.float32)) == c


@pytest.mark.parametrize("template",
                         ["{0} ** {1}", "{0} // {1}", "{0} % {1}", "{0} if {1} else {2}"])
def test_python_syntax_without_a_c_spelling_is_refused(template):
    with pytest.raises(ValueError, match="CUDA_TEMPLATES"):
        cuda_gpu.to_c(template)


@pytest.mark.parametrize("value, dtype, literal", [
    (0.1, "float32", "0.1f"), (-2.5, "float64", "(-2.5)"),
    (np.inf, "float32", "__int_as_float(0x7f800000)"),
    (-np.inf, "float64", "(-__longlong_as_double(0x7ff0000000000000LL))"),
    (np.nan, "float32", "__int_as_float(0x7fc00000)"), (True, "bool", "true"),
    (-3, "int8", "static_cast<signed char>(-3LL)"), (3.4e38, "float32", "3.4e+38f"),
    (np.iinfo(np.int64).min, "int64", "(-9223372036854775807LL - 1)"),
])
def test_constants_become_literals_of_their_exact_type(value, dtype, literal):
    assert cuda_gpu.c_literal(value, dtype) == literal


# ***** one translation unit: nvcc for the device, g++ for a host run *****

def _compile(tmp_path, command, text, suffix):
    src = tmp_path / f"kernels{suffix}"
    src.write_text(text)
    result = subprocess.run(command + [str(src)], capture_output=True, text=True, cwd=tmp_path,
                            check=False)
    assert result.returncode == 0, result.stderr[-6000:]
    return result


@pytest.mark.skipif(NVCC is None, reason="nvcc not installed")
def test_every_kernel_compiles_with_nvcc(all_sources, tmp_path):
    kernels = [elementwise_loop(s, host=False) for s in all_sources.values()]
    kernels += [cuda_gpu.render_flat(s) for s in all_sources.values()]
    text = cuda_gpu.PREAMBLE + "\n" + "\n".join(kernels)
    result = _compile(tmp_path, [NVCC, "--ptx", "-std=c++17", "-o", "kernels.ptx"], text, ".cu")
    ptx = (tmp_path / "kernels.ptx").read_text()
    for name in all_sources:
        assert f".entry {name}(" in ptx and f".entry {name}_flat(" in ptx, result.stderr


# inputs for the host run: edge values of each dtype, cycled over each operand's shape
_POOLS = {
    "float": [-2.5, -1.5, -1.0, -0.5, -0.0, 0.0, 0.3, 1.0, 1.5, 2.5, 7.0, np.nan, np.inf, -np.inf],
    "int": [-7, -3, -2, -1, 0, 1, 2, 3, 5, 7, 100, "max"],
    "bool": [True, False, True, True, False],
}


def _operand(var, k, finite=False, nonnegative=False):
    kind = var.dtype.kind
    pool = list(_POOLS["float" if kind == "f" else "bool" if kind == "b" else "int"])
    if kind in "iu":
        pool = [np.iinfo(var.dtype).max if v == "max" else v for v in pool]
    if finite:
        pool = [v for v in pool if np.isfinite(v)]
    if nonnegative:
        pool = [v for v in pool if v >= 0]
    pool = np.roll(np.asarray(pool, np.float64 if kind == "f" else object), 3 * k)
    values = np.resize(pool, var.size).reshape(var.shape)
    if kind == "f":
        return values.astype(var.dtype)
    return np.array(values.tolist(), np.int64).astype(var.dtype)  # uint8 wraps negatives


def _inputs(case):
    """Operands of the case; casts from float to an integer get only values they are defined
    for (C leaves the others undefined, and CUDA saturates where x86 wraps)."""
    name, to = case.prim.name, case.attrs.get("dtype")
    float_to_int = name == "cast" and case.inputs[0].dtype.kind == "f" and to.kind in "iu"
    operands = []
    for k, v in enumerate(case.group.inputs):
        integer_exponent = name == "pow" and k == 1 and v.dtype.kind in "iu"  # numpy refuses < 0
        if v.const is None:
            operands.append(_operand(v, k, finite=float_to_int, nonnegative=integer_exponent
                                     or (float_to_int and to.kind == "u")))
    return operands


def _host_program(cases):
    """C++ running every case's kernel on its inputs (read from in.bin) into out.bin."""
    lines = ["int main() {", '  FILE* in = fopen("in.bin", "rb");',
             '  FILE* out = fopen("out.bin", "wb");']
    for j, case in enumerate(cases):
        source = cuda_gpu.render_kernel(case.group)
        n = int(np.prod(case.group.shape))
        args = []
        for k, (dtype, name) in enumerate(source.inputs + source.outputs):
            c = cuda_gpu.ctype(dtype)
            lines.append(f"  static {c} v{j}_{k}[{n}];")
            if k < len(source.inputs):
                lines.append(f"  if (fread(v{j}_{k}, sizeof({c}), {n}, in) != {n}) return 1;")
            args.append(f"v{j}_{k}")
        lines.append(f"  {source.name}({', '.join(args)}, {n});")
        for k in range(len(source.inputs), len(args)):
            c = cuda_gpu.ctype(source.outputs[k - len(source.inputs)][0])
            lines.append(f"  fwrite(v{j}_{k}, sizeof({c}), {n}, out);")
    lines += ["  fclose(in); fclose(out);", "  return 0;", "}"]
    kernels = {s.name: s for s in (cuda_gpu.render_kernel(c.group) for c in cases)}
    functions = [elementwise_loop(s, host=True) for s in kernels.values()]
    return HOST_SHIMS + cuda_gpu.PREAMBLE + "\n" + "\n".join(functions + lines) + "\n"


@pytest.mark.skipif(GXX is None, reason="g++ not installed")
def test_kernel_semantics_match_numpy_on_the_host(walk, tmp_path):
    cases = walk
    inputs = [_inputs(c) for c in cases]
    with open(tmp_path / "in.bin", "wb") as f:
        for case, arrays in zip(cases, inputs):
            f.writelines(np.ascontiguousarray(np.broadcast_to(a, case.group.shape)).tobytes()
                         for a in arrays)
    # -fwrapv: integer overflow wraps, as on the GPU and in numpy
    _compile(tmp_path, [GXX, "-std=c++17", "-O1", "-fwrapv", "-w", "-o", "run"],
             _host_program(cases), ".cpp")
    subprocess.run(["./run"], cwd=tmp_path, check=True)
    raw, offset = (tmp_path / "out.bin").read_bytes(), 0
    failures = []
    for case, arrays in zip(cases, inputs):
        group = case.group
        feed = iter(arrays)
        with np.errstate(all="ignore"):
            want = group.run_nodes(np, [v.const if v.const is not None else next(feed)
                                        for v in group.inputs])
        for v, w in zip(group.outputs, want):
            n = int(np.prod(group.shape))
            got = np.frombuffer(raw, v.dtype, n, offset).reshape(group.shape)
            offset += n * v.dtype.itemsize
            w = np.broadcast_to(np.asarray(w), group.shape)
            if not _agree(got, w, v.dtype):
                failures.append(f"{case}: inputs {[a.tolist() for a in arrays]}\n"
                                f"  got  {got.tolist()}\n  want {w.tolist()}")
    assert offset == len(raw)
    assert not failures, (f"{len(failures)} of {len(cases)} cases differ:\n"
                          + "\n".join(failures[:10]))


def _agree(got, want, dtype):
    if dtype.kind != "f":
        return np.array_equal(got, want.astype(dtype))
    # glibc's libm against numpy's: a few ulp apart at most
    rtol = 4e-6 if dtype == np.float32 else 1e-13
    return np.allclose(got, want.astype(dtype), rtol=rtol, atol=0, equal_nan=True)


# ***** the GPU device target *****

def _gpu_usable():
    try:
        import cupy
        return cupy.cuda.runtime.getDeviceCount() > 0
    except Exception:
        return False


@pytest.mark.skipif(_gpu_usable(), reason="a GPU is usable here")
def test_gpu_target_without_cupy_or_gpu_raises_a_clear_error():
    with pytest.raises(RuntimeError, match=r"device_target='GPU' needs CuPy and an NVIDIA GPU.*"
                                           r"minispore\[gpu\]"):
        ms.set_context(device_target="GPU")
    assert ms.get_context("device_target") == "CPU"
    assert ms.Tensor([1.0, 2.0]).asnumpy().tolist() == [1.0, 2.0]  # still on the CPU


def test_cuda_lowering_builds_no_kernel_before_its_first_call():
    x = Var((5,), np.float32)
    t, u = Var((5,), np.float32), Var((5,), np.float32)
    graph = Graph("g")
    graph.inputs = [x]
    graph.nodes = [Node(REGISTRY["exp"], [x], {}, [t]), Node(REGISTRY["neg"], [t], {}, [u])]
    graph.outputs = [u]
    program, source = codegen.lower(graph, partition(graph), codegen._GPU)
    (step,) = program.steps
    assert isinstance(step.fn, cuda_gpu.CudaGroupStep) and step.fn.kernel is None
    assert "const float t0 = ms_exp(a0);" in source


@pytest.mark.skipif(GXX is None, reason="g++ not installed")
def test_graph_programs_run_their_cuda_kernels_end_to_end(fake_gpu):
    assert device.xp() is fake_gpu
    assert os.environ["CUPY_CACHE_DIR"] == os.path.join(cache_dir.path(), "cupy")
    builds = HostElementwiseKernel.builds
    names = ("chain_forward", "chain_gradient", "mlp_sgd", "layer_norm_gelu")
    on_gpu = {name: WORKLOADS[name](np.float32) for name in names}
    assert len(cuda_gpu._kernels) >= 6  # each distinct kernel built once...
    assert HostElementwiseKernel.builds - builds == len(cuda_gpu._kernels)
    WORKLOADS["chain_gradient"](np.float32)
    assert HostElementwiseKernel.builds - builds == len(cuda_gpu._kernels)  # ...and reused
    ms.set_context(device_target="CPU")
    for name in names:
        for got, want in zip(on_gpu[name], WORKLOADS[name](np.float32)):
            np.testing.assert_allclose(got, want, rtol=2e-5, atol=1e-6, err_msg=name)


# ***** CUDA-graph replay policy (the replay itself: tests/gpu/test_cuda_graphs.py) *****

def test_replay_is_for_many_steps_over_small_arrays():
    assert cuda_graph.worth_replaying(40, [np.zeros(1000, np.float32)] * 10) is None
    big = np.zeros(1 << 20, np.float32)  # 4 MB
    assert "cost more than it saves" in cuda_graph.worth_replaying(1, [big, big])
