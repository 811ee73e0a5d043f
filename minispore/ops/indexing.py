"""Python index expressions <-> the hashable `spec` of the getitem/setitem primitives.

A spec is a tuple of items: ("int", i), ("slice", start, stop, step), ("none",),
("ellipsis",), or ("tensor", k) for the k-th index tensor, which is passed to the primitive
as a positional input (so it can be symbolic in Graph mode and differentiable-free).
"""
import numpy as np

from ..context import device
from ..core.tensor import Tensor


def parse_index(index):
    """(spec, index_tensors) for a user's index expression."""
    items = index if isinstance(index, tuple) else (index,)
    spec, tensors = [], []
    for item in items:
        if item is None:
            spec.append(("none",))
        elif item is Ellipsis:
            spec.append(("ellipsis",))
        elif isinstance(item, slice):
            spec.append(("slice", _static_int(item.start), _static_int(item.stop), _static_int(item.step)))
        elif isinstance(item, (bool, np.bool_)):
            raise IndexError("indexing with a Python bool is not supported; use a bool tensor mask")
        elif isinstance(item, (int, np.integer)):
            spec.append(("int", int(item)))
        else:
            index_tensor = _index_tensor(item)
            if index_tensor.dtype.kind == "b":
                # a mask selects a data-dependent number of elements: use its positions
                positions = index_tensor.asnumpy().nonzero()
                for p in positions:
                    spec.append(("tensor", len(tensors)))
                    tensors.append(Tensor._wrap(device.to_device(p.astype(np.int64))))
                continue
            spec.append(("tensor", len(tensors)))
            tensors.append(index_tensor)
    return tuple(spec), tuple(tensors)


def _static_int(v):
    if v is None or isinstance(v, (int, np.integer)):
        return None if v is None else int(v)
    if isinstance(v, Tensor):
        return int(v)
    raise IndexError(f"slice bounds must be integers, got {type(v).__name__}")


def _index_tensor(item):
    if isinstance(item, Tensor):
        if item.dtype.kind not in "biu":
            raise IndexError(f"tensor indices must be integer or bool, got {item.dtype}")
        return item
    arr = np.asarray(item)
    if arr.dtype.kind not in "biu":
        raise IndexError(f"unsupported index {item!r}: use ints, slices, None, ..., or integer/bool tensors")
    arr = arr if arr.dtype.kind == "b" else arr.astype(np.int64)
    return Tensor._wrap(device.to_device(arr))


def build_index(spec, tensors):
    """The index tuple for numpy/CuPy, given the spec and the index arrays."""
    out = []
    for item in spec:
        kind = item[0]
        if kind == "int":
            out.append(item[1])
        elif kind == "slice":
            out.append(slice(item[1], item[2], item[3]))
        elif kind == "none":
            out.append(None)
        elif kind == "ellipsis":
            out.append(Ellipsis)
        else:
            out.append(tensors[item[1]])
    return tuple(out)


def has_tensors(spec):
    return any(item[0] == "tensor" for item in spec)
