"""minispore dtypes: MindSpore-named wrappers over numpy dtypes, and the promotion rules.

    >>> import minispore as ms
    >>> str(ms.float32), ms.float32.np
    ('Float32', dtype('float32'))

Promotion follows MindSpore: a Python scalar takes the tensor's dtype (except a float scalar
with an integer tensor, which gives Float32); two tensors promote along
bool < integers < floats; true division of integers gives Float32.

bfloat16 is numpy's through the ml_dtypes package (numpy sees its kind as 'V'): use
`is_float_np` rather than `dtype.kind == "f"` on numpy dtypes. With float16 it promotes to
float32 (neither holds the other), as in MindSpore.
"""
from typing import Any

import ml_dtypes
import numpy as np
import numpy.typing as npt

BF16 = np.dtype(ml_dtypes.bfloat16)
HALF_TYPES = (np.dtype(np.float16), BF16)  # the 16-bit floats (CPU kernels compute in float32)


def is_float_np(np_dtype):
    """Whether a numpy dtype is a floating-point one (bfloat16 included)."""
    return np_dtype.kind == "f" or np_dtype == BF16


class Type:
    """A tensor element type. Compares equal to itself and to the matching numpy dtype."""

    __slots__ = ("name", "np", "kind", "itemsize")

    def __init__(self, name: str, np_dtype: npt.DTypeLike) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)
        self.kind = "f" if is_float_np(self.np) else self.np.kind  # 'b', 'i', 'u', 'f'
        self.itemsize = self.np.itemsize

    @property
    def is_float(self):
        return self.kind == "f"

    @property
    def is_int(self):
        return self.kind in "iu"

    def __repr__(self):
        return self.name

    __str__ = __repr__

    def __eq__(self, other):
        if isinstance(other, Type):
            return self.np == other.np
        try:
            return self.np == np.dtype(other)
        except TypeError:
            return False

    def __hash__(self):
        return hash(self.np)

    def __reduce__(self):
        return (to_type, (self.name,))


bool_ = Type("Bool", np.bool_)
int8 = Type("Int8", np.int8)
int16 = Type("Int16", np.int16)
int32 = Type("Int32", np.int32)
int64 = Type("Int64", np.int64)
uint8 = Type("UInt8", np.uint8)
float16 = Type("Float16", np.float16)
bfloat16 = Type("BFloat16", BF16)
float32 = Type("Float32", np.float32)
float64 = Type("Float64", np.float64)

# MindSpore's aliases (numpy's C-style names) of the types above
half, single, double = float16, float32, float64
byte, short, intc, long, intp, ubyte = int8, int16, int32, int64, int64, uint8

ALL_TYPES = (bool_, int8, int16, int32, int64, uint8, float16, bfloat16, float32, float64)
_BY_NUMPY = {t.np: t for t in ALL_TYPES}
_BY_NAME = {t.name.lower(): t for t in ALL_TYPES}
_BY_NAME.update({"bool": bool_, "bool_": bool_, "float": float32, "int": int64,
                 "half": float16, "double": float64})


def to_type(dtype):
    """Map a minispore Type, numpy dtype, Python type or name to a minispore Type."""
    if isinstance(dtype, Type):
        return dtype
    if isinstance(dtype, str) and dtype.lower() in _BY_NAME:
        return _BY_NAME[dtype.lower()]
    if dtype is float:
        return float32
    if dtype is int:
        return int64
    if dtype is bool:
        return bool_
    try:
        return _BY_NUMPY[np.dtype(dtype)]
    except (KeyError, TypeError):
        raise TypeError(f"minispore has no dtype matching {dtype!r}; "
                        f"supported: {', '.join(t.name for t in ALL_TYPES)}") from None


def dtype_to_nptype(type_: Any) -> type:
    """The numpy scalar type of a minispore dtype: `ms.dtype_to_nptype(ms.float32)` is
    numpy.float32."""
    return to_type(type_).np.type


def dtype_to_pytype(type_: Any) -> type:
    """The Python type of a minispore dtype's values: bool, int or float."""
    kind = to_type(type_).kind
    return bool if kind == "b" else int if kind in "iu" else float


def pytype_to_dtype(obj: Any) -> "Type":
    """The minispore dtype of a Python or numpy type, as MindSpore maps it: bool -> Bool,
    int -> Int64, float -> Float64, numpy.float32 -> Float32..."""
    if obj is float:
        return float64
    if isinstance(obj, type) and not issubclass(obj, (bool, int, np.generic)):
        raise TypeError(f"pytype_to_dtype: no dtype for Python type {obj.__name__}")
    return to_type(obj)


def get_py_obj_dtype(obj: Any) -> "Type":
    """The dtype of a Python object: a Tensor's dtype, a type's (pytype_to_dtype), or that of
    the object's type."""
    dtype = getattr(obj, "dtype", None)
    if isinstance(dtype, Type):
        return dtype
    return pytype_to_dtype(obj if isinstance(obj, type) else type(obj))


def to_np(dtype):
    """numpy dtype for a minispore Type / numpy dtype / name (None stays None)."""
    return None if dtype is None else to_type(dtype).np


def from_np(np_dtype):
    """minispore Type for a numpy dtype; unsupported numpy dtypes raise TypeError."""
    try:
        return _BY_NUMPY[np_dtype]
    except KeyError:
        return to_type(np_dtype)


# ----- promotion -----

_RANK = {"b": 0, "u": 1, "i": 1, "f": 2}


def _rank(np_dtype):
    return 2 if is_float_np(np_dtype) else _RANK[np_dtype.kind]


def promote_np(a, b):
    """Result numpy dtype of a binary op on two tensors of numpy dtypes a and b."""
    if a == b:
        return a
    ka, kb = _rank(a), _rank(b)
    if ka != kb:
        return a if ka > kb else b
    if BF16 in (a, b):   # the other is float16 (-> float32), float32 or float64
        other = b if a == BF16 else a
        return np.promote_types(other, np.float32)
    return np.promote_types(a, b)


def scalar_np_dtype(tensor_dtype, scalar):
    """numpy dtype a Python (or numpy) scalar takes when combined with a tensor of
    `tensor_dtype`."""
    if isinstance(scalar, (bool, np.bool_)):
        return tensor_dtype
    if isinstance(scalar, (float, np.floating)) and not is_float_np(tensor_dtype):
        return np.dtype(np.float32)
    if isinstance(scalar, (int, np.integer)) and tensor_dtype.kind == "b":
        return np.dtype(np.int64)
    return tensor_dtype


def default_np_dtype(value):
    """MindSpore's default dtype for a Python scalar: int -> Int64, float -> Float32."""
    if isinstance(value, bool):
        return np.dtype(np.bool_)
    if isinstance(value, int):
        return np.dtype(np.int64)
    return np.dtype(np.float32)
