"""Buckets: a concatenation along the first axis whose parts are computed straight into it.

`nn.DistributedGradReducer` flattens the gradients and concatenates them into buckets, one
all-reduce each; an unrolled recurrence concatenates its steps' outputs, and the operands of
its weight gradient's one product (passes.concat_product_sums). Each part of such a
concatenation is a contiguous block of the result. Copying every part in costs a pass over
all of them; instead the producer of each part (a GEMM, a fused kernel) writes its result
into the part's block of the bucket, which is allocated just before the first of them runs,
and the concatenation finds its parts in place. A producer that cannot write there on some call (its
kernel still compiling, operands BLAS does not take) returns its own array, and the
concatenation copies that part in.

    %27 = matmul(%23, %0, transpose_a=True)     ->   %b = bucket of 9610 float32
    %29 = reshape(%27, shape=(8192,))                %27 = matmul(..., %b)   # into %b[0:8192]
    %31 = concat(%29, %25, ..., axis=0)              %29 = reshape(%27, shape=(8192,))
                                                     %31 = concat(%b, %29, %25, ...)  # no copy

Only on the CPU (numpy): the parts are written through `Primitive.into` and the numba
kernels' `into`.
"""
import numpy as np


def plan(steps, new_slot, make_step):
    """`steps` with each first-axis concatenation's producers writing into a bucket: an allocating
    step (made by `make_step(fn, ins, outs, label)`, its slot from `new_slot()`) before the
    first of them, their functions wrapped to take the bucket as a last input, the
    concatenation's to take it first. Steps are changed in place; returns the new list."""
    index = {id(step): i for i, step in enumerate(steps)}
    producer = {s: step for step in steps for s in step.outs}
    allocations = []  # (position of the first producer, allocating step)
    for step in steps:
        node = step.nodes[0]
        if not (len(step.nodes) == 1 and node.prim.name == "concat"
                and node.attrs["axis"] % len(node.outputs[0].shape) == 0
                and len(set(step.ins)) == len(step.ins)):
            continue
        writes = {}  # producer step -> {output position: (offset, size, shape)}
        offset = 0
        for part, var in zip(step.ins, node.inputs):
            source, shape = _viewed(producer.get(part), part, var.shape)
            writer = producer.get(source)
            if writer is not None and not isinstance(writer.fn, _Into) and _can_write(writer):
                writes.setdefault(writer, {})[writer.outs.index(source)] = \
                    (offset, var.size, shape)
            offset += var.size
        if not writes:
            continue
        bucket = new_slot()
        first = min(index[id(writer)] for writer in writes)
        out = node.outputs[0]
        allocations.append((first, make_step(_Allocate(out.shape, out.dtype), [], [bucket],
                                             f"bucket of {offset} elements")))
        for writer, outputs in writes.items():
            writer.fn = _Into(writer, outputs)
            writer.ins = writer.ins + [bucket]
        step.fn = _Gather([var.size for var in node.inputs])
        step.ins = [bucket] + step.ins
        step.attrs = {}
    for position, allocate in sorted(allocations, key=lambda a: a[0], reverse=True):
        steps.insert(position, allocate)
    return steps


def _viewed(step, slot, shape):
    """(slot, shape) of the array whose reshaped view `slot` holds: a reshape's input (a
    view of it, the array being contiguous), else `slot` itself."""
    if step is not None and len(step.nodes) == 1 and step.nodes[0].prim.name == "reshape":
        return step.ins[0], step.nodes[0].inputs[0].shape
    return slot, shape


def _can_write(step):
    if len(step.nodes) == 1 and not step.multiple:
        return step.nodes[0].prim.into is not None
    return getattr(step.fn, "into", None) is not None  # a fused kernel (codegen.numba_cpu)


class _Allocate:
    def __init__(self, shape, dtype):
        self.shape, self.dtype = shape, dtype

    def __call__(self, xp):
        return xp.empty(self.shape, self.dtype)


class _Into:
    """A producer's function taking the bucket as its last input: its outputs k are computed
    into the bucket's slices outputs[k] = (offset, size, shape) where it can."""

    def __init__(self, step, outputs):
        self.fn, self.outputs = step.fn, outputs
        prim = step.nodes[0].prim if len(step.nodes) == 1 and not step.multiple else None
        self.into = (lambda xp, given, *ins, **attrs: prim.into(xp, given[0], *ins, **attrs)) \
            if prim is not None else step.fn.into

    def __call__(self, xp, *args, **attrs):
        *ins, bucket = args
        flat = bucket.reshape(-1)
        given = {k: flat[offset:offset + size].reshape(shape)
                 for k, (offset, size, shape) in self.outputs.items()}
        result = self.into(xp, given, *ins, **attrs)
        return self.fn(xp, *ins, **attrs) if result is None else result


class _Gather:
    """The concatenation into the bucket: parts already in their slices are left alone
    (`copied`: how many the last call copied in)."""

    def __init__(self, sizes):
        self.offsets = np.cumsum([0] + sizes[:-1]).tolist()
        self.sizes = sizes
        self.copied = 0

    def __call__(self, xp, bucket, *parts):
        start, itemsize, flat = _address(bucket), bucket.itemsize, bucket.reshape(-1)
        copied = 0
        for part, offset, size in zip(parts, self.offsets, self.sizes):
            if part.base is not bucket or _address(part) != start + offset * itemsize:
                flat[offset:offset + size] = part.reshape(-1)
                copied += 1
        self.copied = copied
        return bucket


def _address(a):
    return a.__array_interface__["data"][0]
