"""The package's import discipline (the layers themselves are import-linter's contract in
pyproject.toml, run by CI): imports at the top of each module, and none inside functions
except of optional dependencies or where import time is documented to matter."""
import ast
import pathlib

import pytest

PACKAGE = pathlib.Path(__file__).resolve().parent.parent / "minispore"
MODULES = sorted(PACKAGE.rglob("*.py"))

# imported where used: optional dependencies, and libraries whose import costs start-up time
LAZY = {"cupy", "cupyx", "cuda", "numba", "scipy", "sklearn", "mpi4py", "onnx", "onnxruntime", "PIL",
        "torch", "jax", "ml_dtypes", "tqdm", "threadpoolctl"}


def _name(path):
    return str(path.relative_to(PACKAGE.parent))


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_imports_come_before_definitions(path):
    tree = ast.parse(path.read_text())
    seen_definition = False
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            seen_definition = True
        elif isinstance(node, (ast.Import, ast.ImportFrom)) and seen_definition:
            pytest.fail(f"{_name(path)}:{node.lineno}: an import after a definition")


@pytest.mark.parametrize("path", MODULES, ids=_name)
def test_no_imports_inside_functions_but_optional_ones(path):
    tree = ast.parse(path.read_text())
    for func in ast.walk(tree):
        if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(func):
            if isinstance(node, ast.Import):
                roots = {alias.name.split(".")[0] for alias in node.names}
            elif isinstance(node, ast.ImportFrom):
                roots = {"." if node.level else (node.module or "").split(".")[0]}
            else:
                continue
            assert roots <= LAZY, f"{_name(path)}:{node.lineno}: imports {roots} inside a function"
