"""The eager (PyNative) interpreter: run each primitive's impl now.

The hot path is one attribute lookup per input plus the impl call. Shape/dtype rules are
consulted only when an impl fails, to turn a numpy error into a message naming the op, the
input shapes/dtypes and the user's line.
"""
import numpy as np

from ..context import device
from ..context.interpreter import Interpreter, set_default
from ..core.tensor import Tensor

_ndarray = np.ndarray


def _unwrap(a):
    return a._data if isinstance(a, Tensor) else a


_new_tensor = Tensor.__new__


def _wrap(out):
    if type(out) is not _ndarray:
        out = device.xp().asarray(out)
    t = _new_tensor(Tensor)
    t._data = out
    t._node = None
    return t


class EagerInterpreter(Interpreter):
    def process(self, prim, args, attrs):
        xp = device.current_xp
        try:
            if len(args) == 2 and not attrs:
                a, b = args
                out = prim.impl(xp, a._data if isinstance(a, Tensor) else a,
                                b._data if isinstance(b, Tensor) else b)
            elif len(args) == 1 and not attrs:
                a = args[0]
                out = prim.impl(xp, a._data if isinstance(a, Tensor) else a)
            else:
                out = prim.impl(xp, *[_unwrap(a) for a in args], **attrs)
        except Exception as e:
            if any(getattr(_unwrap(a), "is_symbolic", False) for a in args):
                raise  # a symbolic value escaped into eager code: not an input problem
            raise prim.explain_failure(args, attrs, e) from None
        if prim.multiple_results:
            return tuple(_wrap(o) for o in out)
        if type(out) is not _ndarray:
            out = xp.asarray(out)
        t = _new_tensor(Tensor)
        t._data = out
        t._node = None
        return t


EAGER = EagerInterpreter()
set_default(EAGER)
