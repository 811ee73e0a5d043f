"""Argument checks shared by layers, losses and optimizers: one clear message per mistake."""
import numbers

from ..core.errors import OpShapeError, with_context
from ..ops.primitive import aval_of


def input_error(owner, x, message, **attrs):
    """The error for an input `x` that layer `owner` cannot take: an OpShapeError (a
    ValueError) naming the layer, the input's shape and dtype and the user's line, as an
    op's error does, in both modes."""
    return OpShapeError(with_context(owner, [aval_of(x)], attrs, message, namespace="nn"))


def positive_int(value, name, owner):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value <= 0:
        raise ValueError(f"{owner}: {name} must be a positive int, got {value!r}")
    return int(value)


def int_pair(value, name, owner):
    """An int or a pair of ints, as a pair of positive ints."""
    pair = (value, value) if isinstance(value, numbers.Integral) else tuple(value)
    if len(pair) != 2:
        raise ValueError(f"{owner}: {name} must be an int or a pair of ints, got {value!r}")
    return tuple(positive_int(v, name, owner) for v in pair)


def boolean(value, name, owner):
    if not isinstance(value, bool):
        raise TypeError(f"{owner}: {name} must be a bool, got {value!r}")
    return value


def number_in(value, name, owner, low, high, low_open=False, high_open=False):
    """A float in the interval from low to high (ends closed unless *_open)."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{owner}: {name} must be a number, got {value!r}")
    too_low = value <= low if low_open else value < low
    too_high = value >= high if high_open else value > high
    if too_low or too_high:
        interval = f"{'(' if low_open else '['}{low}, {high}{')' if high_open else ']'}"
        raise ValueError(f"{owner}: {name} must be in {interval}, got {value!r}")
    return float(value)


def one_of(value, name, owner, choices):
    if value not in choices:
        raise ValueError(f"{owner}: {name} must be one of {choices}, got {value!r}")
    return value
