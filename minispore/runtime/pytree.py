"""Flatten nested tuples/lists/dicts into leaves and a hashable structure, and back."""


def flatten(tree, is_leaf):
    """(leaves, structure). Leaves are the items for which is_leaf(x) is true; every other
    non-container item is kept inside the structure (it must be hashable to be a cache key)."""
    leaves = []

    def walk(x):
        if is_leaf(x):
            leaves.append(x)
            return ("*",)
        if isinstance(x, (tuple, list)):
            return (type(x).__name__, tuple(walk(v) for v in x))
        if isinstance(x, dict):
            keys = tuple(x)
            return ("dict", keys, tuple(walk(x[k]) for k in keys))
        return ("=", _static(x))

    return leaves, walk(tree)


def unflatten(structure, leaves):
    it = iter(leaves)

    def build(s):
        kind = s[0]
        if kind == "*":
            return next(it)
        if kind == "=":
            static = s[1]
            if isinstance(static, tuple) and len(static) == 2 and isinstance(static[1], _Identity):
                return static[1].value
            return static
        if kind == "dict":
            return {k: build(v) for k, v in zip(s[1], s[2])}
        items = [build(v) for v in s[1]]
        return tuple(items) if kind == "tuple" else items

    return build(structure)


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
