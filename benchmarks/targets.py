"""What the figures are compared with: BENCHMARKS.md's peer figures and the project's targets.

`table` below is run.aggregate's result: {(workload, adapter): {"metrics": {name: value}}}.
"""
TABLE_ORDER = ("op_overhead", "ew_fwd", "ew_fwd_bwd", "mlp_train_step", "compile_ew_fwd",
               "compile_mlp_step", "conv_small", "fallback_if", "lstm_lm",
               "transformer_block", "resnet_cnn")

# workload -> (the metric its table leads with and ratios use, unit)
PRIMARY = {
    "op_overhead": ("us_per_op", "µs"),
    "ew_fwd": ("ms", "ms"),
    "ew_fwd_bwd": ("ms", "ms"),
    "mlp_train_step": ("ms", "ms"),
    "compile_ew_fwd": ("first_call_s", "s"),
    "compile_mlp_step": ("first_call_s", "s"),
    "conv_small": ("ms", "ms"),
    "fallback_if": ("ms", "ms"),
    "lstm_lm": ("ms", "ms"),
    "transformer_block": ("ms", "ms"),
    "resnet_cnn": ("ms", "ms"),
}

# shared/BENCHMARKS.md: numpy, PyTorch 2.13 eager, torch.compile, JAX 0.10 jit,
# MindSpore 2.10 PyNative and Graph; the hand-written numba kernel where it is quoted
PEERS = {
    "op_overhead": {"numpy": 0.28, "torch_eager": 1.22, "torch_compile": 0.029,
                    "jax_jit": 0.017, "minispore_pynative": 31.5, "minispore_graph": 7.7},
    "ew_fwd": {"numpy": 7.29, "torch_eager": 8.96, "torch_compile": 3.85, "jax_jit": 1.34,
               "minispore_pynative": 24.0, "minispore_graph": 8.83, "numba_handwritten": 1.57},
    "ew_fwd_bwd": {"numpy": 16.6, "torch_eager": 20.9, "torch_compile": 7.70, "jax_jit": 1.12,
                   "minispore_pynative": 86.4, "minispore_graph": 14.0,
                   "numba_handwritten": 1.28},
    "mlp_train_step": {"numpy": 1.94, "torch_eager": 2.48, "torch_compile": 2.91,
                       "jax_jit": 1.85, "minispore_pynative": 136, "minispore_graph": 15.8},
    "compile_mlp_step": {"torch_compile": 13.3, "jax_jit": 0.43, "minispore_graph": 0.65},
    "conv_small": {"torch_eager": 3.74, "torch_compile": 5.05, "jax_jit": 4.31,
                   "minispore_pynative": 408, "minispore_graph": 200},
}


def _value(table, workload, adapter, metric=None):
    entry = table.get((workload, adapter))
    if entry is None:
        return None
    return entry["metrics"].get(metric or PRIMARY[workload][0])


def _at_most(name, table, workload, adapter, limit, limit_text, unit):
    value = _value(table, workload, adapter)
    if value is None or limit is None:
        return name, "not measured", None
    return name, f"{value:.3g} {unit} vs {limit_text} {limit:.3g} {unit}", value <= limit


def _peer_limit(table, workload, peer):
    """The peer's time: measured in this run, else its BENCHMARKS.md ratio to numpy times
    this run's numpy (None when neither is known)."""
    measured = _value(table, workload, peer)
    if measured is not None:
        return measured, peer
    numpy_now = _value(table, workload, "numpy")
    ratio = PEERS.get(workload, {}).get(peer)
    base = PEERS.get(workload, {}).get("numpy")
    if numpy_now is None or ratio is None or base is None:
        return None, peer
    return numpy_now * ratio / base, f"{peer} (BENCHMARKS.md ratio × this run's numpy)"


def evaluate_targets(table):
    """[(target, measured text, met: bool or None when not measured)]."""
    rows = [
        _at_most("PyNative op overhead without grad recording ≤ 1.2 µs/op", table,
                 "op_overhead", "minispore_pynative", 1.2, "target", "µs/op"),
        _at_most("PyNative op overhead while recording (inside ms.grad) ≤ 2.5 µs/op", table,
                 "op_overhead", "minispore_pynative_recording", 2.5, "target", "µs/op"),
    ]
    for workload, peer, peer_name in (("ew_fwd", "jax_jit", "JAX jit"),
                                      ("ew_fwd_bwd", "jax_jit", "JAX jit"),
                                      ("mlp_train_step", "jax_jit", "JAX jit"),
                                      ("conv_small", "torch_eager", "PyTorch eager"),
                                      ("lstm_lm", "torch_eager", "PyTorch eager"),
                                      ("transformer_block", "torch_eager", "PyTorch eager"),
                                      ("transformer_block", "torch_compile", "torch.compile"),
                                      ("resnet_cnn", "torch_eager", "PyTorch eager"),
                                      ("resnet_cnn", "jax_jit", "JAX jit")):
        limit, source = _peer_limit(table, workload, peer)
        rows.append(_at_most(f"Graph ≤ {peer_name} on {workload}", table, workload,
                             "minispore_graph", limit, source, PRIMARY[workload][1]))
    for workload in ("op_overhead", "ew_fwd", "ew_fwd_bwd", "mlp_train_step", "conv_small",
                     "lstm_lm", "transformer_block", "resnet_cnn"):
        rows.append(_at_most(f"Graph never slower than PyNative: {workload}", table, workload,
                             "minispore_graph", _value(table, workload, "minispore_pynative"),
                             "PyNative", PRIMARY[workload][1]))
    for adapter, what in (("minispore_graph_converted", "converted to a select"),
                          ("minispore_graph_break", "breaking at the if")):
        rows.append(_at_most(f"Tensor-dependent if, {what}, not slower than PyNative", table,
                             "fallback_if", adapter, _value(table, "fallback_if", "minispore_pynative"),
                             "PyNative", "ms"))
    for metric, limit, what in (("first_call_s", 2.0, "cold, first call"),
                                ("warm_first_call_s", 0.3, "warm, first call"),
                                ("compiled_s", 2.0, "cold, until its kernels are compiled"),
                                ("warm_compiled_s", 0.3, "warm, until its kernels are loaded")):
        value = _value(table, "compile_mlp_step", "minispore_graph", metric)
        limit_text = f"< {limit} s"
        rows.append((f"MLP step {what} {limit_text}",
                     "not measured" if value is None else f"{value:.3g} s",
                     None if value is None else value < limit))
    return rows
