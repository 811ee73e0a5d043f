"""The errors of bad input to an op: each names the op, its inputs' shapes and dtypes and the
user's source line, and is a ValueError (shapes) or TypeError (types, arity) in both modes."""
from .source import user_frame_summary


class OpError(Exception):
    """Bad input to an op. The message names the op, the input shapes/dtypes and user's line."""


class OpShapeError(OpError, ValueError):
    pass


class OpTypeError(OpError, TypeError):
    pass


def with_context(op_name, avals, attrs, message):
    """`message` prefixed with the op, followed by its inputs and the user's source line."""
    inputs = ", ".join(str(a) for a in avals)
    shown = {k: v for k, v in attrs.items() if v is not None}
    attr_text = f" with {', '.join(f'{k}={v!r}' for k, v in shown.items())}" if shown else ""
    where = user_frame_summary()
    return (f"ops.{op_name}: {message}\n  inputs: ({inputs}){attr_text}"
            + (f"\n  at {where}" if where else ""))
