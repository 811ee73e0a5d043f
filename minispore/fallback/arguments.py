"""The arguments a Graph-mode trace calls the user's function with.

A list, tuple or dict holding no tensor is passed as the caller's own object, so Python effects
on it land; one holding tensors is a copy (its tensors are symbolic), and changing it raises
SideEffectError, as the change could not reach the caller.
"""
from ..core.tensor import Tensor
from .state_snapshot import same_items


class SideEffectError(RuntimeError):
    """A Python side effect that Graph mode cannot carry out."""


class TracedArguments:
    """The (args, kwargs) a trace calls the function with, from the caller's and `rebuilt`
    (pytree.unflatten of symbolic leaves): each list, tuple or dict holding no tensor is the
    caller's own object, so effects on it reach the caller; the others are copies."""

    def __init__(self, original, rebuilt):
        self._copies = []  # (path, copied list/dict, its items when made)
        self.args, self.kwargs = self._merge(original, rebuilt, "")

    def _merge(self, original, rebuilt, path):
        if not isinstance(original, (list, tuple, dict)):
            return rebuilt
        if not _holds_tensor(original):
            return original
        if type(rebuilt) is not type(original):
            return rebuilt
        if isinstance(original, dict):
            merged = {k: self._merge(original[k], v, f"{path}[{k!r}]") for k, v in rebuilt.items()}
        else:
            merged = type(rebuilt)(self._merge(o, r, f"{path}[{i}]")
                                   for i, (o, r) in enumerate(zip(original, rebuilt)))
        if isinstance(merged, (list, dict)):
            self._copies.append((path, merged, _items(merged)))
        return merged

    def check_unchanged(self, function):
        """Raise if the function changed a copied argument (the caller would not see it)."""
        for path, copy, items in self._copies:
            if not same_items(items, _items(copy)):
                where = _argument_path(path)
                raise SideEffectError(
                    f"{function}: the {type(copy).__name__} argument {where} holds tensors and was "
                    f"changed by the function; Graph mode traces with a copy holding symbolic "
                    f"tensors, so the change cannot reach the caller. Return the new values "
                    f"instead, or pass a list without tensors")


def _holds_tensor(x):
    if isinstance(x, Tensor):
        return True
    if isinstance(x, (list, tuple)):
        return any(_holds_tensor(v) for v in x)
    if isinstance(x, dict):
        return any(_holds_tensor(v) for v in x.values())
    return False


def _items(container):
    return tuple(container.items()) if isinstance(container, dict) else tuple(enumerate(container))


def _argument_path(path):
    """'[0][1]' of (args, kwargs) -> 'args[1]'; '[1]['k']' -> "kwargs['k']"."""
    if path.startswith("[0]"):
        return "args" + path[3:]
    return "kwargs" + path[3:]
