"""Which code is the user's: side effects are looked for in the user's code only.

Code under minispore, the standard library and site-packages, code generated without source,
and modules that set `__minispore_library__ = True` are trusted to keep their state to
themselves (see fallback.side_effects).
"""
import linecache
import os
import sys
import sysconfig

from ..core.cell_base import CellBase

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_LIBRARY_DIRS = tuple({_PACKAGE_DIR + os.sep} | {
    os.path.abspath(p) + os.sep for key in ("stdlib", "platstdlib", "purelib", "platlib")
    if (p := sysconfig.get_paths().get(key))})
_user_files = {}


def is_user_code(filename, namespace):
    """Code of the user's, not of a library: not installed, not generated without source
    (dataclass and namedtuple methods are "<string>"), and its module does not declare
    `__minispore_library__ = True` (as a test's stand-in for a device library does)."""
    user = _user_files.get(filename)
    if user is None:
        generated = filename.startswith("<") and not linecache.getlines(filename)
        user = _user_files[filename] = not (
            generated or os.path.abspath(filename).startswith(_LIBRARY_DIRS))
    return user and not namespace.get("__minispore_library__", False)


def is_user_module(module):
    filename = getattr(module, "__file__", None)
    if filename:
        return is_user_code(filename, vars(module))
    return getattr(module, "__name__", None) == "__main__"


def is_user_type(cls):
    return is_user_module(sys.modules.get(getattr(cls, "__module__", None) or ""))


def is_cell(obj):
    return isinstance(obj, CellBase)
