"""A short script's compiled kernels reach the disk cache: a program that ends while its
kernels compile in the background lets them finish for a bounded time at exit
(codegen.background), so its next run loads machine code instead of compiling again."""
import os
import subprocess
import sys
import textwrap
import time

from minispore.compiler.codegen.background import Compiler, exit_compile_seconds

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

_SCRIPT = textwrap.dedent("""
    import time
    import numpy as np
    import minispore as ms
    from minispore.compiler.codegen.background import COMPILER

    f = ms.jit(lambda x: ms.ops.tanh(x) * 3.5 + x * x)
    x = ms.Tensor(np.linspace(-1, 1, 64).astype(np.float32))
    f(x).asnumpy()
    print("PENDING", COMPILER.pending())  # the script ends here, kernels still compiling
""")


def _run(cache, extra_env=None):
    env = dict(os.environ, PYTHONPATH=ROOT, MINISPORE_CACHE_DIR=str(cache / "ms"),
               NUMBA_CACHE_DIR=str(cache / "numba"), MINISPORE_SYNC_COMPILE="0",
               **(extra_env or {}))
    done = subprocess.run([sys.executable, "-c", _SCRIPT], env=env, capture_output=True,
                          text=True, timeout=300, check=True)
    return int(done.stdout.split("PENDING")[1])


def _machine_code(cache):
    return [name for _, _, names in os.walk(cache / "numba") for name in names
            if name.endswith(".nbc")]


def test_a_script_that_ends_while_compiling_leaves_machine_code(tmp_path):
    pending = _run(tmp_path, {"MINISPORE_EXIT_COMPILE_SECONDS": "120"})
    assert pending >= 1  # it did end before its kernel was compiled
    assert _machine_code(tmp_path)


def test_the_exit_wait_is_bounded_and_configurable(monkeypatch):
    monkeypatch.setenv("MINISPORE_EXIT_COMPILE_SECONDS", "0.25")
    assert exit_compile_seconds() == 0.25
    monkeypatch.setenv("MINISPORE_EXIT_COMPILE_SECONDS", "nonsense")
    assert exit_compile_seconds() == 5.0

    class Slow:
        compiled = 0

        def compile(self):
            time.sleep(0.2)
            Slow.compiled += 1

    compiler = Compiler()
    for _ in range(50):  # 10 s of work
        compiler.submit(Slow())
    monkeypatch.setenv("MINISPORE_EXIT_COMPILE_SECONDS", "0.5")
    compiler.finish_at_exit()
    assert compiler.wait(5)  # what was left was dropped, not compiled
    assert 1 <= Slow.compiled < 10
