"""Write docs/api_coverage.md: which of MindSpore 2.10's public names minispore provides.

    python tools/api_coverage.py [--lists PATH] [--out docs/api_coverage.md]

The lists are ../shared/mindspore-api/mindspore_2_10_api.json (one list of names per
namespace, read from the MindSpore CPU wheel). A name counts as covered when the matching
minispore object has it (the rule of shared/checks/api_coverage.py). Names that have no
meaning for a CPU runtime without sparse or complex tensors (Ascend kernels, graph-compiler
internals, collectives that belong to mindspore.communication...) are listed as exclusions,
each with its reason, and left out of the percentage of CPU-meaningful names.
"""
import argparse
import datetime
import importlib
import json
import os
import re
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_LISTS = os.path.join(ROOT, "..", "shared", "mindspore-api", "mindspore_2_10_api.json")

# (reason, regular expression over names); the first match wins. Applied to the namespaces
# in EXCLUDED_IN.
EXCLUSIONS = [
    ("sparse tensors (COO, CSR, RowTensor): minispore has no sparse tensor types",
     r"(coo|csr)_.*|coo2csr|csr2coo|make_(coo|csr|row|sparse)_tensor.*|row_tensor_.*|"
     r"dense_to_sparse_.*|coalesce|sparse_segment_mean|to_coo|to_csr|(Coo|Csr|Sparse).*"),
    ("collective communication: the mindspore.communication namespace (its own issue)",
     r"all_(gather|reduce|to_all).*|barrier|batch_isend_irecv|broadcast(_object_list)?|"
     r"destroy_process_group|gather_(into_tensor|object)|get_(backend|global_rank|group_rank|"
     r"process_group_ranks|rank|world_size)|init_process_group|i?(send|recv)(_object_list)?|"
     r"is_available|is_initialized|new_group|reduce_scatter.*|scatter_object_list|"
     r"matmul_reduce_scatter|set_comm_ops_inplace|reshard|distribute|wait_pipeline|"
     r"(All|Reduce|Broadcast|Send|Receive|Barrier|NeighborExchange|AlltoAll).*"),
    ("complex numbers and FFTs: minispore has no complex dtypes",
     r"i?r?h?fft.*|i?fftshift|r?fftfreq|stft|STFT|polar|Polar|view_as_real|eig(vals)?|Eig|"
     r"Complex.*|(I)?(R)?FFT.*"),
    ("Ascend-only fused kernels (attention, MoE, normalisation fusions)",
     r".*flash_attention.*|fused_infer_attention_score|speed_fusion_attention|"
     r"lightning_indexer|moe_.*|nsa_.*|(add_)?rms_norm|add_layer_norm|swiglu|"
     r"rotary_position_embedding|ring_attention_update|multi_scale_deformable_attn_function|"
     r"npu_.*|batch_norm_(elemt|gather_stats_with_counts|stats)|conv_tbc|"
     r".*(FlashAttention|MoeD|Moe).*|NPU.*|Fused.*|Paged.*|ReshapeAndCache|RmsNorm|"
     r"ApplyRotaryPosEmb|GroupTopk|MoveTo"),
    ("custom-kernel registration (AKG, TBE, AiCPU, CPU/GPU custom operators) and summary "
     "collection for MindInsight",
     r".*RegOp|Custom|CustomOpBuilder|DataType|.*Summary|TensorDump|DumpGradient"),
    ("graph-compiler internals of MindSpore (IR sequence, scalar and environment primitives, "
     "registries, JIT helpers), not user-level ops",
     r"_.*|J|SliceGetItem|add_flags|array_reduce|array_to_scalar|augassign_.*|bool_(and|eq|not|"
     r"or)|broadcast_gradient_args|constexpr|custom_info_register|deepcopy|derivative|"
     r"dict_(getitem|setitem)|dyn_shape|env_get|environ_.*|geswitch|get_grad|get_vm_impl_fn|"
     r"hastype|hyper_add|(not_)?in_dict|is_dynamic_sequence_element_unknown|"
     r"is_sequence_(shape|value)_unknown|is_tensor_bool_cond|isconstant|iter_converter|jet|"
     r"kernel|linearize|list_.*|tuple_.*|make_(dict|list|range|slice|tuple|map_parameter)|"
     r"merge|mixed_precision_cast|ms_(hasnext|kernel|next)|op_info_register|"
     r"prim_(arg|attr)_register|reduced_shape|shape_mul|string_(concat|eq)|switch(_layer)?|"
     r"tail|tensor_operator_registry|vm_impl_registry|zip_operation|tensordump|"
     r"recompute_block|ref_to_embed|cond|scalar_to_array|tensor_muls|tensor_slice|shape_|"
     r"reshape_|stop_gradient_|print_|PrimitiveWith(Check|Infer)|HyperMap|Map|"
     r"MultitypeFuncGraph|Partial|PyExecute|PyFunc|UpdateState|Merge|GeSwitch|Reusing|Morph|"
     r"DynamicShape|TensorShape|TensorToTuple|TupleToArray|Scalar(Cast|ToArray|ToTensor)|"
     r"DtypeToEnum|InsertGradientOf|FloatStatus|Reshard|TransposeView|TransposeExtView|"
     r"SelectView|CopyWithSlice|GetNext|Push|Pull|MapCacheIdx|MapUniform|TCPStore|P2POp|"
     r"Collective(Gather|Scatter)|BatchISendIRecv"),
    ("Tensor storage, device and framework bookkeeping with no counterpart in minispore's "
     "numpy-backed tensors",
     r"assign_value_cpp|const_arg|convert_bytes_to_tensor|data_ptr|data_sync|delete_|"
     r"delta_seed|device|flush_from_cache|get_bytes|(get|set)item_index_info|hooks|"
     r"index_of_parent_|init_finished|init_flag|is_init|is_meta|is_pinned|is_shared|move_to|"
     r"offload(_file_path)?|param_info|parent_tensor_|pin_memory|set_.*|storage|"
     r"untyped_storage|symbolic_shape|virtual_flag|from_dlpack|to_dlpack|bfloat16|value"),
]
EXCLUDED_IN = ("mindspore.ops (functions)", "mindspore.ops (Primitive classes)",
               "mindspore.Tensor (methods and properties)", "mindspore.mint",
               "mindspore.mint.nn", "mindspore.mint.nn.functional")


def namespace(ms, key):
    """The minispore object standing for a namespace key such as 'mindspore.nn (classes)'."""
    path = key.split(" ")[0]
    if path == "mindspore.Tensor":
        return ms.Tensor
    try:
        return importlib.import_module("minispore" + path[len("mindspore"):])
    except ImportError:
        obj = ms
        for part in path.split(".")[1:]:
            obj = getattr(obj, part, None)
            if obj is None:
                return None
        return obj


def exclusion_reason(key, name):
    if key not in EXCLUDED_IN:
        return None
    for reason, pattern in EXCLUSIONS:
        if re.fullmatch(pattern, name):
            return reason
    return None


def survey(lists, ms):
    """{namespace: (covered, missing, {reason: [names]})} (sorted name lists)."""
    report = {}
    for key, names in lists.items():
        obj = namespace(ms, key)
        covered, missing, excluded = [], [], {}
        for name in sorted(set(names)):
            if obj is not None and hasattr(obj, name):
                covered.append(name)
                continue
            reason = exclusion_reason(key, name)
            if reason:
                excluded.setdefault(reason, []).append(name)
            else:
                missing.append(name)
        report[key] = (covered, missing, excluded)
    return report


def _percent(part, whole):
    return f"{100 * part / whole:.0f}%" if whole else "-"


def render(report, lists_path):
    lines = [
        "# MindSpore 2.10 API coverage",
        "",
        f"Generated by `python tools/api_coverage.py` on {datetime.date.today()} from "
        f"`{os.path.relpath(lists_path, ROOT)}` (MindSpore 2.10's public names per namespace). "
        "A name is covered when minispore's namespace has it. Excluded names have no meaning "
        "for a CPU runtime without sparse or complex tensors; each is listed below with its "
        "reason and left out of the CPU-meaningful percentage.",
        "",
        "| namespace | names | covered | excluded | missing | covered of all | "
        "covered of CPU-meaningful |",
        "|---|---|---|---|---|---|---|",
    ]
    totals = [0, 0, 0, 0]
    for key, (covered, missing, excluded) in report.items():
        n_excluded = sum(len(v) for v in excluded.values())
        total = len(covered) + len(missing) + n_excluded
        meaningful = total - n_excluded
        lines.append(f"| {key} | {total} | {len(covered)} | {n_excluded} | {len(missing)} | "
                     f"{_percent(len(covered), total)} | {_percent(len(covered), meaningful)} |")
        for i, v in enumerate((total, len(covered), n_excluded, len(missing))):
            totals[i] += v
    total, covered_n, excluded_n, missing_n = totals
    lines.append(f"| all | {total} | {covered_n} | {excluded_n} | {missing_n} | "
                 f"{_percent(covered_n, total)} | {_percent(covered_n, total - excluded_n)} |")
    for key, (covered, missing, excluded) in report.items():
        lines += ["", f"## {key}", "", f"Missing ({len(missing)}): "
                  + (", ".join(f"`{n}`" for n in missing) or "none")]
        for reason, names in excluded.items():
            lines += ["", f"Excluded, {reason} ({len(names)}): "
                      + ", ".join(f"`{n}`" for n in names)]
    return "\n".join(lines) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lists", default=DEFAULT_LISTS)
    parser.add_argument("--out", default=os.path.join(ROOT, "docs", "api_coverage.md"))
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    import minispore as ms
    with open(args.lists) as f:
        lists = json.load(f)
    text = render(survey(lists, ms), args.lists)
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        f.write(text)
    print(text.split("\n## ")[0])


if __name__ == "__main__":
    main()
