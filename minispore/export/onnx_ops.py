"""How each minispore primitive is written in ONNX (opset 18).

A rule takes the builder, the graph node and its inputs' ONNX names, and returns the names of
the node's outputs. The graph reaching here is Graph mode's optimised IR: layers are already
decomposed into these few primitives (BatchNorm and LayerNorm into arithmetic, GELU into erf,
Dense into matmul and add), so the table stays small.
"""
import numpy as np

UNARY = {"exp": "Exp", "log": "Log", "sqrt": "Sqrt", "neg": "Neg", "abs": "Abs", "tanh": "Tanh",
         "sigmoid": "Sigmoid", "relu": "Relu", "erf": "Erf", "sin": "Sin", "cos": "Cos",
         "tan": "Tan", "floor": "Floor", "ceil": "Ceil", "sign": "Sign", "round": "Round",
         "logical_not": "Not", "isnan": "IsNaN", "identity": "Identity",
         "stop_gradient": "Identity", "asin": "Asin", "acos": "Acos", "atan": "Atan",
         "sinh": "Sinh", "cosh": "Cosh"}
BINARY = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "pow": "Pow",
          "maximum": "Max", "minimum": "Min", "equal": "Equal", "less": "Less",
          "greater": "Greater", "less_equal": "LessOrEqual",
          "greater_equal": "GreaterOrEqual", "logical_and": "And", "logical_or": "Or",
          "logical_xor": "Xor", "fmod": "Mod"}
REDUCTIONS = {"reduce_sum": "ReduceSum", "reduce_max": "ReduceMax", "reduce_min": "ReduceMin",
              "reduce_prod": "ReduceProd"}


def onnx_dtype(onnx, np_dtype):
    return onnx.helper.np_dtype_to_tensor_dtype(np.dtype(np_dtype))


def _unary(op_type):
    return lambda b, node, ins: b.add(op_type, ins)


def _binary(op_type):
    return lambda b, node, ins: b.add(op_type, ins)


def _reduction(op_type):
    def rule(b, node, ins, axis, keep_dims):
        if not axis:  # nothing to reduce (ONNX would read no axes as all of them)
            return b.add("Identity", ins)
        return b.add(op_type, [ins[0], b.ints(axis)], keepdims=int(keep_dims))
    return rule


def _rsqrt(b, node, ins):
    return b.add("Reciprocal", [b.add("Sqrt", ins)])


def _not_equal(b, node, ins):
    return b.add("Not", [b.add("Equal", ins)])


def _log1p(b, node, ins):
    one = b.scalar_like(1, node.inputs[0].dtype)
    return b.add("Log", [b.add("Add", [ins[0], one])])


def _expm1(b, node, ins):
    one = b.scalar_like(1, node.inputs[0].dtype)
    return b.add("Sub", [b.add("Exp", ins), one])


def _cast(b, node, ins, dtype):
    return b.add("Cast", ins, to=onnx_dtype(b.onnx, node.outputs[0].dtype))


def _reshape(b, node, ins, shape):
    target = list(node.outputs[0].shape)
    if b.dynamic_batch and target:
        # the batch axis: kept from the input where it stays first, else inferred (-1)
        target[0] = 0 if target[0] == node.inputs[0].shape[0] else -1
    return b.add("Reshape", [ins[0], b.ints(target)])


def _transpose(b, node, ins, perm):
    return b.add("Transpose", ins, perm=list(perm))


def _broadcast_to(b, node, ins, shape):
    return b.add("Expand", [ins[0], b.ints(node.outputs[0].shape)])


def _swap_last(b, name, rank):
    perm = list(range(rank - 2)) + [rank - 1, rank - 2]
    return b.add("Transpose", [name], perm=perm)


def _product(b, node, first, transpose_a, transpose_b, ins):
    """MatMul of the node's inputs `first` and `first + 1`, transposed as flagged."""
    a, c = ins[first], ins[first + 1]
    if transpose_a:
        a = _swap_last(b, a, len(node.inputs[first].shape))
    if transpose_b:
        c = _swap_last(b, c, len(node.inputs[first + 1].shape))
    return b.add("MatMul", [a, c])


def _matmul(b, node, ins, transpose_a=False, transpose_b=False):
    return _product(b, node, 0, transpose_a, transpose_b, ins)


def _addmm(b, node, ins, transpose_a=False, transpose_b=False):
    """c + alpha * (a @ b), alpha a scalar input."""
    product = _product(b, node, 1, transpose_a, transpose_b, ins)
    return b.add("Add", [ins[0], b.add("Mul", [ins[3], product])])


def _softmax(op_type):
    def rule(b, node, ins, axis):
        axes = axis if isinstance(axis, (tuple, list)) else (axis,)
        if len(axes) != 1:
            raise NotImplementedError(f"{node.prim.name} over several axes {tuple(axes)}")
        return b.add(op_type, ins, axis=int(axes[0]))
    return rule


def _conv2d(b, node, ins, stride, padding, dilation, groups):
    top, bottom, left, right = padding
    return b.add("Conv", ins, strides=list(stride), pads=[top, left, bottom, right],
                 dilations=list(dilation), group=int(groups))


def _max_pool2d(b, node, ins, kernel_size, stride, padding, dilation):
    top, bottom, left, right = padding
    values = b.add("MaxPool", ins, kernel_shape=list(kernel_size), strides=list(stride),
                   pads=[top, left, bottom, right], dilations=list(dilation))
    return [values, None]  # the argmax output is for the gradient; inference never reads it


def _pad(b, node, ins, paddings, value):
    pads = [a for a, _ in paddings] + [z for _, z in paddings]
    return b.add("Pad", [ins[0], b.ints(pads), b.scalar_like(value, node.inputs[0].dtype)],
                 mode="constant")


def _concat(b, node, ins, axis):
    return b.add("Concat", ins, axis=int(axis))


def _select(b, node, ins):
    return b.add("Where", ins)


def _argmax(op_type):
    def rule(b, node, ins, axis, keep_dims, dtype):
        out = b.add(op_type, ins, axis=int(axis), keepdims=int(keep_dims))
        return b.add("Cast", [out], to=onnx_dtype(b.onnx, node.outputs[0].dtype))
    return rule


def _cumsum(b, node, ins, axis, reverse):
    return b.add("CumSum", [ins[0], b.constant(np.asarray(axis, np.int64))],
                 reverse=int(reverse))


def _split_v(b, node, ins, axis, sections):
    return list(b.add("Split", [ins[0], b.ints(sections)], n_outputs=len(sections),
                      axis=int(axis)))


def _biased_softmax(b, node, ins, scale):
    """softmax(x * scale + bias) over the last axis."""
    dtype = node.inputs[0].dtype
    scaled = b.add("Mul", [ins[0], b.scalar_like(scale, dtype)])
    bias = ins[1] if node.inputs[1].dtype == dtype else \
        b.add("Cast", [ins[1]], to=onnx_dtype(b.onnx, dtype))
    return b.add("Softmax", [b.add("Add", [scaled, bias])], axis=-1)


def _einsum(b, node, ins, equation):
    return b.add("Einsum", ins, equation=equation)


def _take_along_axis(b, node, ins, axis):
    return b.add("GatherElements", ins, axis=int(axis))


def _getitem(b, node, ins, index):
    """Basic indexing (ints, slices, None, ...) as Slice + Squeeze + Unsqueeze; one index
    tensor on one axis as Gather."""
    shape = node.inputs[0].shape
    n_ellipsis = len(shape) - sum(item[0] in ("int", "slice", "tensor") for item in index)
    items = []
    for item in index:
        items += [("slice", None, None, None)] * n_ellipsis if item[0] == "ellipsis" else [item]
    items += [("slice", None, None, None)] * (len(shape) - sum(i[0] != "none" for i in items))
    tensors = [i for i in items if i[0] == "tensor"]
    if len(tensors) > 1:
        raise NotImplementedError("indexing with several index tensors")
    x, axis, starts, ends, axes, steps, squeeze, unsqueeze, gather = ins[0], 0, [], [], [], [], \
        [], [], None
    out_axis = 0
    for item in items:
        if item[0] == "none":
            unsqueeze.append(out_axis)
            out_axis += 1
            continue
        if item[0] == "int":
            i = item[1] + shape[axis] if item[1] < 0 else item[1]
            starts, ends, axes, steps = starts + [i], ends + [i + 1], axes + [axis], steps + [1]
            squeeze.append(axis)
        elif item[0] == "slice":
            start, stop, step = slice(item[1], item[2], item[3]).indices(shape[axis])
            if (start, stop, step) != (0, shape[axis], 1):
                if step < 0 and stop < 0:
                    stop = -(2 ** 62)  # past the front: ONNX's "to the start" for negative steps
                starts, ends, axes, steps = (starts + [start], ends + [stop], axes + [axis],
                                             steps + [step])
            out_axis += 1
        else:
            gather = axis
            out_axis += 1
        axis += 1
    if axes:
        x = b.add("Slice", [x, b.ints(starts), b.ints(ends), b.ints(axes), b.ints(steps)])
    if gather is not None:
        if squeeze and any(a < gather for a in squeeze) or unsqueeze:
            raise NotImplementedError("an index tensor mixed with integer or None indices")
        x = b.add("Gather", [x, ins[1 + tensors[0][1]]], axis=gather)
    if squeeze:
        x = b.add("Squeeze", [x, b.ints(squeeze)])
    if unsqueeze:
        x = b.add("Unsqueeze", [x, b.ints(unsqueeze)])
    return x if x is not ins[0] else b.add("Identity", [x])


def _onnx_recurrence(b, op_type, node, gi, states, w_hh, biases, lengths, chunks, reverse,
                     **attrs):
    """ONNX's RNN/GRU/LSTM over the projected inputs gi: its input weight W is the
    permutation taking gi's gate chunks to ONNX's gate order (`chunks`: ours, in ONNX's
    order), the recurrent weight and the biases are gathered into that order. ONNX's
    `sequence_lens` masks as the primitives do; their reserve outputs (for the gradient) have
    no ONNX counterpart."""
    hidden = node.inputs[0].shape[2] // len(chunks)
    dtype = node.inputs[0].dtype
    order = b.constant(np.concatenate([np.arange(k * hidden, (k + 1) * hidden)
                                       for k in chunks]))
    eye = np.eye(len(chunks) * hidden, dtype=dtype)
    w = b.constant(eye[np.concatenate([np.arange(k * hidden, (k + 1) * hidden)
                                       for k in chunks])][None], "rnn_w")
    zero_axis = b.ints([0])
    r = b.add("Unsqueeze", [b.add("Gather", [w_hh, order], axis=0), zero_axis])
    bias = b.add("Concat", [b.add("Gather", [x, order], axis=0) for x in biases], axis=0)
    lengths = b.add("Cast", [lengths], to=onnx_dtype(b.onnx, np.int32))
    outs = b.add(op_type, [gi, w, r, b.add("Unsqueeze", [bias, zero_axis]), lengths,
                           *(b.add("Unsqueeze", [s, zero_axis]) for s in states)],
                 n_outputs=1 + len(states), hidden_size=hidden,
                 direction="reverse" if reverse else "forward", **attrs)
    return [b.add("Squeeze", [outs[0], b.ints([1])]),
            *(b.add("Squeeze", [s, zero_axis]) for s in outs[1:])]


def _lstm_recurrence(b, node, ins, reverse):
    gi, h0, c0, w_hh, bias, lengths = ins
    no_bias = b.constant(np.zeros(node.inputs[4].shape, node.inputs[4].dtype))
    # ONNX's gates: i, o, f, c (ours: i, f, g, o)
    return _onnx_recurrence(b, "LSTM", node, gi, (h0, c0), w_hh, (bias, no_bias), lengths,
                            (0, 3, 1, 2), reverse) + [None] * 3


def _rnn_recurrence(b, node, ins, mode, reverse):
    gi, h0, w_hh, b_ih, b_hh, lengths = ins
    if mode == "GRU":  # ONNX's gates: z, r, h (ours: r, z, n); n's hidden part after r
        return _onnx_recurrence(b, "GRU", node, gi, (h0,), w_hh, (b_ih, b_hh), lengths,
                                (1, 0, 2), reverse, linear_before_reset=1) + [None] * 2
    return _onnx_recurrence(b, "RNN", node, gi, (h0,), w_hh, (b_ih, b_hh), lengths, (0,),
                            reverse, activations=["Tanh" if mode == "RNN_TANH" else "Relu"]) \
        + [None] * 2


RULES = {**{name: _unary(op) for name, op in UNARY.items()},
         **{name: _binary(op) for name, op in BINARY.items()},
         **{name: _reduction(op) for name, op in REDUCTIONS.items()},
         "rsqrt": _rsqrt, "not_equal": _not_equal, "log1p": _log1p, "expm1": _expm1,
         "cast": _cast, "reshape": _reshape, "transpose": _transpose,
         "broadcast_to": _broadcast_to, "matmul": _matmul, "addmm": _addmm,
         "softmax": _softmax("Softmax"), "log_softmax": _softmax("LogSoftmax"),
         "conv2d": _conv2d, "max_pool2d": _max_pool2d, "pad": _pad, "concat": _concat,
         "select": _select, "argmax": _argmax("ArgMax"), "argmin": _argmax("ArgMin"),
         "cumsum": _cumsum, "einsum": _einsum, "take_along_axis": _take_along_axis,
         "getitem": _getitem, "split_v": _split_v, "biased_softmax": _biased_softmax,
         "lstm_recurrence": _lstm_recurrence, "rnn_recurrence": _rnn_recurrence}
