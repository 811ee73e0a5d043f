"""vmap: every primitive's batching rule against a Python loop over the lanes (values and
shapes, batch axis in several places, both modes), the API (in_axes/out_axes, errors),
nesting, Cells, random ops, jit, and composition with grad in both orders."""
import warnings

import numpy as np
import pytest
from helpers import assert_close, run_in_mode, to_numpy
from ops.test_registry import normal, sample, samples_of, with_index

import minispore as ms
from minispore import Parameter, Tensor, nn, ops
from minispore.ops import batching
from minispore.ops.batching import VmapError
from minispore.ops.primitive import REGISTRY

LANES = 3


# ***** every primitive's rule against a loop over the lanes *****

def lane_variant(a, k):
    """Input a for lane k: the sample itself for lane 0; others scaled (floats: same signs,
    no new ties) or permuted (indices and masks stay valid)."""
    a = np.asarray(a)
    if k == 0 or a.size == 0:
        return a
    if a.dtype.kind == "f":
        return (a * (1 + 0.25 * k)).astype(a.dtype)
    return np.random.default_rng(k).permutation(a.ravel()).reshape(a.shape)


def batch_configurations(n_inputs, ranks):
    """(name, in_axes) combinations: every input batched first / last, and each input alone
    batched in its middle (the others the same for every lane)."""
    configs = {"first": tuple(0 for _ in ranks), "last": tuple(r for r in ranks)}
    for i in range(n_inputs):
        configs[f"only{i}"] = tuple(ranks[i] // 2 if j == i else None for j in range(n_inputs))
    return configs


def stacked(prim, lanes, attrs):
    """The loop: the primitive's impl on each lane, outputs stacked on a new first axis."""
    outs = [prim.impl(np, *inputs, **attrs) for inputs in lanes]
    if prim.multiple_results:
        return tuple(np.stack([np.asarray(o[k]) for o in outs]) for k in range(len(outs[0])))
    return np.stack([np.asarray(o) for o in outs])


# an unbatched variable cannot take a different value per lane (see test_assign_error)
SKIPPED_CONFIGS = {"assign": {"only1"}}


def check_rule(prim, sample, mode):
    inputs = sample.inputs
    lanes = [[lane_variant(a, k) for a in inputs] for k in range(LANES)]
    for name, in_axes in batch_configurations(len(inputs), [np.ndim(a) for a in inputs]).items():
        if name in SKIPPED_CONFIGS.get(prim.name, ()):
            continue
        args = [Tensor(np.stack([lane[i] for lane in lanes], axis=ax)) if ax is not None
                else Tensor(inputs[i]) for i, ax in enumerate(in_axes)]
        lane_inputs = [[lane[i] if ax is not None else inputs[i]
                        for i, ax in enumerate(in_axes)] for lane in lanes]
        want = stacked(prim, lane_inputs, sample.attrs)
        got = run_in_mode(ms.vmap(lambda *xs: prim(*xs, **sample.attrs), in_axes), mode, *args)
        for g, w in zip(got if prim.multiple_results else (got,),
                        want if prim.multiple_results else (want,)):
            w = np.asarray(w)
            tol = max(64 * np.finfo(w.dtype).eps, 1e-12) if w.dtype.kind == "f" else 0
            assert to_numpy(g).shape == w.shape, f"{prim.name} {name} {in_axes}"
            assert_close(g, w, rtol=tol, atol=tol)


@pytest.mark.parametrize("name", sorted(n for n, p in REGISTRY.items() if not p.user_defined))
def test_batching_rule_matches_a_loop_over_lanes(name, mode, capsys):
    for sample in samples_of(name):
        if sample.inputs:  # vmap needs an input to batch (a random draw may have none)
            check_rule(REGISTRY[name], sample, mode)


def extra_samples(rng):
    """Inputs for rule branches the registry's samples miss. Indexing: numpy moves advanced
    indices (tensors, and ints next to them) to the front when something separates them, and
    the batch axis must land where each lane's selection puts it. Matmul: a 2-D matrix that
    is the same for every lane, on either side."""
    t = ms.Tensor
    x = normal(rng, (4, 5, 3))
    return {
        "getitem": [
            with_index(x, (slice(1, 3), t([0, 2]))),                  # slice before a tensor
            with_index(x, (t([0, 2]), slice(None), t([1, 1]))),       # separated: to the front
            with_index(x, (1, slice(None), t([[0, 1], [2, 2]]))),     # an int counts as one
            with_index(x, (Ellipsis, t([0, 2]))),                     # after an ellipsis
            with_index(x, (t([3, 0]), Ellipsis, t([2, 2]))),          # an ellipsis separates
            with_index(x, (slice(None), None, t([1, 4]), 0)),         # None, tensor, int
        ],
        "index_add": [
            with_index(x, (slice(1, 3), t([0, 2])), normal(rng, (2, 2, 3))),
            with_index(x, (t([0, 2]), slice(None), t([1, 1])), normal(rng, (5,))),
            with_index(x, (Ellipsis, t([0, 0])), normal(rng, (4, 5, 2))),
        ],
        "setitem": [
            with_index(x, (t([0, 2]), slice(None), t([1, 1])), normal(rng, (2, 5))),
            with_index(x, (slice(None), t([4, 1]), 2), normal(rng, ())),
        ],
        "matmul": [sample(normal(rng, (3, 4)), normal(rng, (4, 5))),
                   sample(normal(rng, (3, 4)), normal(rng, (2, 4, 5))),
                   sample(normal(rng, (2, 3, 4)), normal(rng, (2, 4, 5))),
                   sample(normal(rng, (4, 3)), normal(rng, (5, 4)), transpose_a=True,
                          transpose_b=True),
                   sample(normal(rng, (2, 4, 3)), normal(rng, (4, 5)), transpose_a=True)],
    }


@pytest.mark.parametrize("name", ["getitem", "index_add", "setitem", "matmul"])
def test_more_rule_branches_match_a_loop_over_lanes(name, mode):
    for s in extra_samples(np.random.default_rng(0))[name]:
        check_rule(REGISTRY[name], s, mode)


FAMILIES_WITH_RULES = {
    "reduction": {"reduce_sum", "reduce_max", "reduce_min", "reduce_prod", "reduce_all",
                  "reduce_any", "argmax", "argmin", "cumsum"},
    "shape": {"reshape", "transpose", "broadcast_to", "concat", "pad", "getitem", "index_add",
              "setitem", "take_along_axis", "scatter_add_along_axis", "sort"},
    "matmul": {"matmul"},
    "elementwise": {n for n, p in REGISTRY.items() if p.expr is not None},
}


def test_no_core_primitive_runs_on_the_loop_fallback():
    on_fallback = sorted(n for n, p in REGISTRY.items() if p.batch is None and p.expr is None)
    for family, names in FAMILIES_WITH_RULES.items():
        assert names <= set(REGISTRY), f"unknown {family} primitives {names - set(REGISTRY)}"
        assert not names & set(on_fallback), \
            f"{family} primitives on the loop fallback: {sorted(names & set(on_fallback))}"
    # the others may be on it (e.g. a new nn primitive); they are listed here when they are
    print("primitives on the vmap loop fallback:", on_fallback)


def test_loop_fallback_gives_the_same_values_and_warns_once(monkeypatch):
    prim = REGISTRY["cumsum"]
    monkeypatch.setattr(prim, "batch", None)
    batching.LOOPED.discard("cumsum")
    x = np.arange(12.0).reshape(3, 4)
    with pytest.warns(UserWarning, match="ops.cumsum has no batching rule"):
        got = ms.vmap(lambda t: ops.cumsum(t, 0), in_axes=1)(Tensor(x))
    assert_close(got, np.cumsum(x, 0).T)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ms.vmap(lambda t: ops.cumsum(t, 0))(Tensor(x))  # no second warning


# ***** in_axes / out_axes *****

X = np.random.default_rng(1).standard_normal((3, 4))
W = np.random.default_rng(2).standard_normal((4, 5))


def test_in_axes_per_argument_and_out_axes(mode):
    f = ms.vmap(lambda x, w: ops.matmul(x, w), in_axes=(1, None), out_axes=1)
    assert_close(run_in_mode(f, mode, Tensor(X.T), Tensor(W)), (X @ W).T)


def test_nested_in_axes_follow_the_argument_structure(mode):
    def f(pair, scale):
        a, b = pair
        return a * scale + b["bias"]
    g = ms.vmap(f, in_axes=((0, {"bias": None}), 1))
    a, bias, scale = X, np.arange(4.0), np.arange(12.0).reshape(4, 3)
    got = run_in_mode(lambda a_, b_, s_: g((a_, {"bias": b_}), s_), mode,
                      Tensor(a), Tensor(bias), Tensor(scale))
    assert_close(got, a * scale.T + bias)


def test_outputs_follow_out_axes_and_unbatched_outputs_are_broadcast(mode):
    f = ms.vmap(lambda x, w: (ops.sum(x), w * 2, {"x": x}), in_axes=(0, None),
                out_axes=(0, 1, {"x": -1}))
    total, doubled, nested = run_in_mode(f, mode, Tensor(X), Tensor(W[0]))
    assert_close(total, X.sum(1))
    assert_close(doubled, np.repeat((W[0] * 2)[:, None], 3, axis=1))  # broadcast along axis 1
    assert_close(nested["x"], X.T)


def test_out_axes_none_keeps_an_unbatched_output():
    out, same = ms.vmap(lambda x, w: (x + w, w), in_axes=(0, None), out_axes=(0, None))(
        Tensor(X), Tensor(W[:, 0]))
    assert_close(same, W[:, 0])
    assert_close(out, X + W[:, 0])


def test_numpy_inputs_and_keyword_arguments():
    got = ms.vmap(lambda x, *, shift: x + shift)(X, shift=Tensor(1.0))
    assert_close(got, X + 1)


def test_nested_vmap_levels_make_an_outer_product(mode):
    a, b = np.arange(3.0), np.arange(4.0)
    outer = ms.vmap(ms.vmap(lambda u, v: u * v, in_axes=(None, 0)), in_axes=(0, None))
    assert_close(run_in_mode(outer, mode, Tensor(a), Tensor(b)), np.outer(a, b))
    # an inner vmap over the axis an outer one left: a batched matrix-vector product
    mv = ms.vmap(ms.vmap(lambda row, v: ops.sum(row * v), in_axes=(0, None)))
    m, v = np.arange(24.0).reshape(2, 3, 4), np.arange(8.0).reshape(2, 4)
    assert_close(run_in_mode(mv, mode, Tensor(m), Tensor(v)), np.einsum("bij,bj->bi", m, v))


def test_vmap_of_a_cell_shares_its_parameters(mode):
    net = nn.SequentialCell([nn.Dense(4, 6, activation="tanh"), nn.Dense(6, 2)])
    x = np.random.default_rng(3).standard_normal((5, 4)).astype(np.float32)
    want = np.stack([net(Tensor(x[i])).asnumpy() for i in range(5)])
    assert_close(ms.vmap(net)(Tensor(x)), want, rtol=1e-5, atol=1e-6)  # Cell in `mode`
    assert_close(run_in_mode(ms.vmap(net), mode, Tensor(x)), want, rtol=1e-5, atol=1e-6)


def test_jit_of_vmap_is_one_graph_whatever_the_batch_size():
    f = ms.jit(ms.vmap(lambda x, w: ops.sum(ops.tanh(ops.matmul(x, w))), in_axes=(0, None)))
    for batch in (2, 7):
        x = np.random.default_rng(batch).standard_normal((batch, 3, 4))
        assert_close(f(Tensor(x), Tensor(W)), np.tanh(x @ W).sum(axis=(1, 2)))
    graphs = [executable.traced.graph for executable in f.cache.values()]
    assert len(graphs) == 2 and len(graphs[0].nodes) == len(graphs[1].nodes)  # not unrolled


def test_jitted_function_inside_vmap(mode):
    inner = ms.jit(lambda x: ops.sum(x * x))
    assert_close(run_in_mode(ms.vmap(inner), mode, Tensor(X)), (X * X).sum(1))


# ***** errors *****

def test_inconsistent_batch_sizes_name_the_arguments():
    def f(first, second):
        return first + second
    with pytest.raises(VmapError, match=r"argument 0 \('first'\) has size 3.*argument 1 "
                                        r"\('second'\) has size 4"):
        ms.vmap(f)(Tensor(X), Tensor(np.ones((4, 4))))


@pytest.mark.parametrize("in_axes, out_axes, message", [
    ((0, 2), 0, r"in_axes maps argument 1 \('w'\) along axis 2, out of range .*\(valid: -1..0\)"),
    ((0,), 0, "in_axes has 1 entries but fn got 2"),
    (None, 0, "maps no tensor argument"),
    ((0, None), None, "depends on the batch, but out_axes gives None"),
    ((0, None), 3, "out_axes puts the batch axis of output at 3, out of range"),
    ((0, (0, 1)), 0, r"in_axes gives \(0, 1\) for argument 1 \('w'\), which is a single tensor"),
])
def test_bad_axes_are_reported(in_axes, out_axes, message):
    with pytest.raises(VmapError, match=message):
        ms.vmap(lambda x, w: x + w, in_axes, out_axes)(Tensor(X), Tensor(np.ones(4)))


def test_bad_specs_and_options_are_refused_early():
    with pytest.raises(VmapError, match="in_axes must be an int, None"):
        ms.vmap(ops.neg, in_axes="0")
    with pytest.raises(VmapError, match="randomness"):
        ms.vmap(ops.neg, randomness="sometimes")
    with pytest.raises(VmapError, match="it is a Python float"):
        ms.vmap(lambda x, s: x * s)(Tensor(X), 2.0)


def test_python_cannot_read_a_batched_value():
    with pytest.raises(VmapError, match="one value per lane"):
        ms.vmap(lambda x: x if float(ops.sum(x)) > 0 else -x)(Tensor(X))


def test_shape_errors_show_one_lanes_shapes():
    lane_shapes = r"ops.add: shapes \(4,\) and \(3,\)(.|\n)*inputs: \(Float64\[4\], Float64\[3\]\)"
    with pytest.raises(ms.ops.OpShapeError, match=lane_shapes):
        ms.vmap(lambda x: x + ops.ones((3,)))(Tensor(X))


def test_assign_of_a_per_lane_value_to_a_shared_variable_is_refused():
    p = Parameter(Tensor(np.zeros(4)), name="p")
    with pytest.raises(VmapError, match="ops.assign inside vmap"):
        ms.vmap(lambda x: ops.assign(p, x))(Tensor(X))
    assert_close(p, np.zeros(4))


# ***** random ops *****

def test_dropout_draws_a_mask_per_lane_unless_asked_for_one(mode):
    x = Tensor(np.ones((4, 64), np.float32))
    masks = to_numpy(run_in_mode(ms.vmap(lambda t: ops.dropout(t, p=0.5)), mode, x))
    assert set(np.unique(masks)) <= {0.0, 2.0}
    assert len({m.tobytes() for m in masks}) == 4  # 4 lanes, 4 masks (equal: 2^-64 chance)
    same = to_numpy(run_in_mode(ms.vmap(lambda t: ops.dropout(t, p=0.5), randomness="same"),
                                mode, x))
    assert (same == same[:1]).all() and set(np.unique(same)) == {0.0, 2.0}


def test_dropout_of_an_unbatched_input_still_differs_per_lane():
    masks = ms.vmap(lambda t, u: ops.dropout(u, p=0.5) + t * 0, in_axes=(0, None))(
        Tensor(np.zeros((3, 1), np.float32)), Tensor(np.ones(64, np.float32))).asnumpy()
    assert masks.shape == (3, 64) and len({m.tobytes() for m in masks}) == 3


# ***** composition with grad *****

def loss_fn(x, y):
    return ops.sum(ops.tanh(ops.matmul(x, Tensor(W))) * y)


def per_example_grads_by_loop(x, y):
    return np.stack([ms.grad(loss_fn)(Tensor(x[i]), Tensor(y[i])).asnumpy()
                     for i in range(len(x))])


YS = np.random.default_rng(4).standard_normal((3, 5))


def test_vmap_of_grad_gives_per_example_gradients(mode):
    got = run_in_mode(ms.vmap(ms.grad(loss_fn)), mode, Tensor(X), Tensor(YS))
    assert_close(got, per_example_grads_by_loop(X, YS), rtol=1e-12, atol=1e-12)


def test_grad_of_vmap_and_vmap_of_grad_agree(mode):
    summed = ms.grad(lambda x, y: ops.sum(ms.vmap(loss_fn)(x, y)))
    got = run_in_mode(summed, mode, Tensor(X), Tensor(YS))
    assert_close(got, to_numpy(ms.vmap(ms.grad(loss_fn))(Tensor(X), Tensor(YS))),
                 rtol=1e-12, atol=1e-12)
    # closed form: d/dx sum(tanh(x W) * y) = ((1 - tanh^2) * y) W^T
    t = np.tanh(X @ W)
    assert_close(got, ((1 - t * t) * YS) @ W.T, rtol=1e-12, atol=1e-12)


def test_per_example_parameter_gradients_of_a_network_match_a_loop(mode):
    net = nn.Dense(4, 2)
    params = net.trainable_params()
    loss = lambda x, y: ops.sum((net(x) - y) ** 2)  # noqa: E731
    per_example = ms.grad(loss, grad_position=None, weights=params)
    x = np.random.default_rng(5).standard_normal((6, 4)).astype(np.float32)
    y = np.random.default_rng(6).standard_normal((6, 2)).astype(np.float32)
    got = run_in_mode(ms.vmap(per_example), mode, Tensor(x), Tensor(y))
    want = [per_example(Tensor(x[i]), Tensor(y[i])) for i in range(6)]
    for k in range(len(params)):
        assert_close(got[k], np.stack([w[k].asnumpy() for w in want]), rtol=1e-5, atol=1e-6)
    # and their sum is the gradient of the vmapped (summed) loss
    total = run_in_mode(ms.grad(lambda a, b: ops.sum(ms.vmap(loss)(a, b)), grad_position=None,
                                weights=params), mode, Tensor(x), Tensor(y))
    for k in range(len(params)):
        assert_close(total[k], to_numpy(got[k]).sum(0), rtol=1e-5, atol=1e-5)


def test_second_derivatives_through_vmap(mode):
    x = np.linspace(-1.0, 1.0, 5)
    d2 = ms.vmap(ms.grad(ms.grad(lambda t: ops.sin(t) * t)))
    assert_close(run_in_mode(d2, mode, Tensor(x)), 2 * np.cos(x) - x * np.sin(x))
