"""Flatten nested tuples/lists/dicts into leaves and a hashable structure, and back."""


def flatten(tree, is_leaf):
    """(leaves, structure). Leaves are the items for which is_leaf(x) is true; every other
    non-container item is kept inside the structure (it must be hashable to be a cache key)."""
    leaves = []
    return leaves, _walk(tree, is_leaf, leaves)


# Module-level recursion, not nested closures: a recursive closure is a reference cycle that
# would keep the leaves (every output array of a compiled call) alive until the cyclic GC runs.
def _walk(x, is_leaf, leaves):
    if is_leaf(x):
        leaves.append(x)
        return ("*",)
    if isinstance(x, (tuple, list)):
        return (type(x).__name__, tuple(_walk(v, is_leaf, leaves) for v in x))
    if isinstance(x, dict):
        keys = tuple(x)
        return ("dict", keys, tuple(_walk(x[k], is_leaf, leaves) for k in keys))
    return ("=", _static(x))


def unflatten(structure, leaves):
    return _build(structure, iter(leaves))


def _build(s, it):
    kind = s[0]
    if kind == "*":
        return next(it)
    if kind == "=":
        static = s[1]
        if isinstance(static, tuple) and len(static) == 2 and isinstance(static[1], _Identity):
            return static[1].value
        return static
    if kind == "dict":
        return {k: _build(v, it) for k, v in zip(s[1], s[2])}
    items = [_build(v, it) for v in s[1]]
    return tuple(items) if kind == "tuple" else items


def _static(x):
    """x itself if hashable (part of a cache key), else an identity token carrying x."""
    try:
        hash(x)
        return x
    except TypeError:
        return ("obj", _Identity(x))


class _Identity:
    """Hashes and compares by identity (for unhashable static arguments)."""
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __hash__(self):
        return id(self.value)

    def __eq__(self, other):
        return isinstance(other, _Identity) and other.value is self.value
