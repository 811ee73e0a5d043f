"""The kernel cache serves only the code its file names promise, and repairs itself."""
import glob
import os
import subprocess
import sys
import textwrap

import pytest

PROGRAM = textwrap.dedent("""
    import numpy as np
    import minispore as ms
    from minispore import ops
    f = ms.jit(lambda x: ops.exp(x) * 3.0 + 1.0)
    x = ms.Tensor(np.array([0.0, 1.0], np.float32))
    for _ in range(3):
        out = f(x)
    print(repr(out.asnumpy().tolist()))
""")


def run(cache):
    env = dict(os.environ, MINISPORE_CACHE_DIR=str(cache / "ms"),
               NUMBA_CACHE_DIR=str(cache / "numba"), MINISPORE_SYNC_COMPILE="1")
    done = subprocess.run([sys.executable, "-c", PROGRAM], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return eval(done.stdout.strip()), done.stderr


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    folder = tmp_path_factory.mktemp("kernel_cache")
    values, _ = run(folder)                       # compiles and fills the cache
    assert values == pytest.approx([4.0, 3 * 2.718281828 + 1], rel=1e-6)
    return folder


def kernel_files(cache):
    files = glob.glob(str(cache / "ms" / "kernels" / "k_*.py"))
    assert files
    return files


def test_an_edited_kernel_file_is_detected_and_rewritten(cache):
    for path in kernel_files(cache):
        with open(path) as f:
            source = f.read()
        edited = source.replace("* ", "+ ").replace("*", "+")   # other, still valid code
        assert edited != source
        with open(path, "w") as f:
            f.write(edited)
    values, log = run(cache)
    assert values == pytest.approx([4.0, 3 * 2.718281828 + 1], rel=1e-6)
    assert "does not hold the source its name promises" in log
    for path in kernel_files(cache):              # rewritten with the promised source
        with open(path) as f:
            assert "*" in f.read()


def test_a_corrupt_kernel_file_is_repaired_for_every_later_process(cache):
    for path in kernel_files(cache):
        with open(path, "wb") as f:
            f.write(b"\x00\xff garbage")
    values, log = run(cache)
    assert values == pytest.approx([4.0, 3 * 2.718281828 + 1], rel=1e-6)
    assert "running it through numpy" not in log
    values, log = run(cache)                      # repaired: a later process is quiet
    assert "does not hold" not in log and "through numpy" not in log


def test_corrupt_machine_code_is_recompiled(cache):
    machine_code = glob.glob(str(cache / "**" / "k_*.nb*"), recursive=True)
    assert machine_code
    for path in machine_code:
        with open(path, "wb") as f:
            f.write(b"not a numba cache entry")
    values, log = run(cache)
    assert values == pytest.approx([4.0, 3 * 2.718281828 + 1], rel=1e-6)
    assert "through numpy" not in log
