"""A Cell's inference graph as an ONNX model: Graph mode's traced and optimised IR,
translated node by node (`onnx_ops.RULES`), parameters as initializers named as in the Cell."""
from ..compiler import passes
from ..compiler.trace import trace
from ..core.tensor import Tensor
from .onnx_builder import OnnxBuilder
from .onnx_ops import RULES, onnx_dtype

OPSET = 18


class ExportError(RuntimeError):
    """The network cannot be written in the asked format (an op without a translation)."""


def to_onnx(net, inputs, dynamic_batch=False, name="minispore"):
    """The onnx.ModelProto of `net` called on `inputs` (in inference mode)."""
    import onnx  # the optional `onnx` extra
    was_training = getattr(net, "training", False)
    if hasattr(net, "set_train"):
        net.set_train(False)
    try:
        traced = trace(net, tuple(inputs), {}, f"export_{type(net).__name__}")
    finally:
        if hasattr(net, "set_train"):
            net.set_train(was_training)
    graph = passes.optimize(traced.graph)
    b = OnnxBuilder(onnx)
    b.dynamic_batch = dynamic_batch
    n_explicit = len(graph.inputs) - len(traced.captured)
    graph_inputs = []
    for i, var in enumerate(graph.inputs[:n_explicit]):
        b.bind_name(var, f"input_{i}")
        graph_inputs.append(_value_info(onnx, f"input_{i}", var, dynamic_batch))
    for var, tensor in zip(graph.inputs[n_explicit:], traced.captured):
        name = getattr(tensor, "name", None) or b.fresh("captured")
        b.bind_name(var, name)
        b.initializers.append(onnx.numpy_helper.from_array(tensor.asnumpy(), name))
    for node in graph.nodes:
        _translate(b, node)
    outputs = []
    for i, var in enumerate(graph.outputs[:traced.n_outputs]):
        out_name = f"output_{i}"
        b.add("Identity", [b.name_of(var)], outputs=[out_name])
        outputs.append(_value_info(onnx, out_name, var, dynamic_batch))
    onnx_graph = onnx.helper.make_graph(b.nodes, name, graph_inputs, outputs, b.initializers)
    model = onnx.helper.make_model(onnx_graph, producer_name="minispore",
                                   opset_imports=[onnx.helper.make_opsetid("", OPSET)])
    onnx.checker.check_model(model)
    return model


def _translate(b, node):
    rule = RULES.get(node.prim.name)
    where = f" (traced at {node.loc})" if node.loc else ""
    if rule is None:
        raise ExportError(f"ms.export: ops.{node.prim.name}{where} has no ONNX translation "
                          f"yet")
    try:
        names = rule(b, node, [b.name_of(v) for v in node.inputs], **node.attrs)
    except NotImplementedError as e:
        raise ExportError(f"ms.export: ops.{node.prim.name}{where}: {e} has no ONNX "
                          f"translation yet") from None
    names = names if isinstance(names, list) else [names]
    for var, name in zip(node.outputs, names):
        if name is not None:
            b.bind_name(var, name)


def _value_info(onnx, name, var, dynamic_batch):
    shape = list(var.shape)
    if dynamic_batch and shape:
        shape[0] = "batch"
    return onnx.helper.make_tensor_value_info(name, onnx_dtype(onnx, var.dtype), shape)


def example_inputs(inputs):
    """The export's example inputs as Tensors (numpy arrays are accepted too)."""
    return [x if isinstance(x, Tensor) else Tensor(x) for x in inputs]
