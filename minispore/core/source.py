"""Where the user's code is: the innermost stack frame outside minispore, for error messages,
graph nodes (every node records the line that made it) and fallback reports."""
import linecache
import os
import sys

_PACKAGE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_SKIP_DIRS = (_PACKAGE_DIR, os.path.dirname(os.__file__))


def user_frame():
    """The innermost stack frame outside minispore and the standard library."""
    frame = sys._getframe(1)
    while frame is not None:
        filename = frame.f_code.co_filename
        if not filename.startswith(_SKIP_DIRS) and not filename.startswith("<frozen"):
            return frame
        frame = frame.f_back
    return None


def user_frame_summary():
    """'file.py:12: source text' for the user's line that led here, or ''."""
    frame = user_frame()
    if frame is None:
        return ""
    line = linecache.getline(frame.f_code.co_filename, frame.f_lineno).strip()
    return f"{frame.f_code.co_filename}:{frame.f_lineno}: {line}"
