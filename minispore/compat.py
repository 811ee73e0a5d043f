"""Serve `import mindspore` from minispore, so MindSpore scripts run unedited.

    >>> import minispore.compat
    >>> minispore.compat.install()
    >>> import mindspore as ms            # minispore itself
    >>> from mindspore import nn, ops     # minispore.nn, minispore.ops

`install()` puts an import hook in front of `sys.meta_path`: `mindspore` and every
`mindspore.<sub>` resolve to the very module objects of `minispore` and `minispore.<sub>`
(so `mindspore.nn.Dense is minispore.nn.Dense`, and isinstance checks agree). Nothing is
installed at import time and the wheel has no top-level `mindspore` package: a real MindSpore
installed beside minispore is never shadowed unless the user asks (`python -m minispore.run`,
or `install()` in a notebook). A submodule minispore lacks raises a `ModuleNotFoundError` that
says so; `python -m minispore.run` adds the same note to a missing name's ImportError or
AttributeError.
"""
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import sys

ALIAS = "mindspore"
TARGET = "minispore"


def target_name(fullname: str) -> str:
    """The minispore module serving a mindspore module name: 'mindspore.nn' -> 'minispore.nn'."""
    return TARGET + fullname[len(ALIAS):]


class _AliasLoader(importlib.abc.Loader):
    """Hands out the already-imported minispore module instead of creating a new one."""

    def create_module(self, spec):
        return importlib.import_module(target_name(spec.name))

    def exec_module(self, module):
        pass  # the minispore module ran its own code when it was imported


class MindSporeAliasFinder(importlib.abc.MetaPathFinder):
    """Finds `mindspore[.sub]` as `minispore[.sub]`."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != ALIAS and not fullname.startswith(ALIAS + "."):
            return None
        name = target_name(fullname)
        try:
            found = importlib.util.find_spec(name)
        except ModuleNotFoundError:
            found = None
        if found is None:
            raise ModuleNotFoundError(
                f"No module named {fullname!r}: minispore does not provide {name!r} yet "
                f"(docs/api_coverage.md lists what it has)", name=fullname)
        spec = importlib.machinery.ModuleSpec(fullname, _AliasLoader(),
                                              is_package=found.submodule_search_locations
                                              is not None)
        return spec


_FINDER = MindSporeAliasFinder()


def install() -> None:
    """Serve `mindspore` imports from minispore in this process (idempotent).

        >>> install(); import mindspore; mindspore.__name__
        'minispore'
    """
    if _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


def uninstall() -> None:
    """Undo `install()`: forget the hook and the `mindspore` modules it served."""
    if _FINDER in sys.meta_path:
        sys.meta_path.remove(_FINDER)
    for name in [n for n in sys.modules if n == ALIAS or n.startswith(ALIAS + ".")]:
        if getattr(sys.modules[name], "__name__", "").startswith(TARGET):
            del sys.modules[name]


def is_installed() -> bool:
    return _FINDER in sys.meta_path


def explain_missing_name(error: BaseException) -> BaseException:
    """Add a note to an ImportError/AttributeError about a name minispore's modules lack, so a
    script stopping at `from mindspore.nn import Foo` says why."""
    module = getattr(error, "name_from", None) or getattr(error, "name", None)
    obj = getattr(error, "obj", None)
    if isinstance(error, AttributeError) and obj is not None:
        module = getattr(obj, "__name__", None) if isinstance(obj, type(sys)) else None
    if isinstance(module, str) and module.startswith((TARGET, ALIAS)):
        error.add_note(f"minispore: {module.replace(ALIAS, TARGET, 1)} does not provide this "
                       f"name yet (docs/api_coverage.md lists what it has)")
    return error
