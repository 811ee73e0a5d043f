"""`python -m minispore.run script.py`: MindSpore scripts run unedited, in both modes."""
import subprocess
import sys
import textwrap

import pytest

from minispore import compat

SCRIPT = textwrap.dedent("""
    import sys
    import numpy as np
    import mindspore as ms
    import mindspore.ops.functional as F
    from mindspore import nn
    from mindspore.nn import Dense

    ms.set_context(mode=ms.GRAPH_MODE if sys.argv[1] == "graph" else ms.PYNATIVE_MODE)
    ms.set_seed(1)

    class Net(nn.Cell):
        def __init__(self):
            super().__init__()
            self.fc = Dense(3, 2)

        def construct(self, x):
            return F.relu(self.fc(x)).sum()

    net = Net()
    grad_fn = ms.value_and_grad(net, None, net.trainable_params())
    x = ms.Tensor(np.arange(6, dtype=np.float32).reshape(2, 3))
    loss, grads = grad_fn(x)
    print(__name__, ms.__name__, f"{float(loss):.6f}", f"{float(grads[0].sum()):.6f}")
""")


def run(*args, cwd):
    return subprocess.run([sys.executable, "-m", "minispore.run", *args], cwd=cwd,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module")
def script(tmp_path_factory):
    folder = tmp_path_factory.mktemp("scripts")
    (folder / "train.py").write_text(SCRIPT)
    (folder / "missing.py").write_text("from mindspore.nn import NotALayerYet\n")
    (folder / "missing_attr.py").write_text("import mindspore.ops as ops\nops.not_an_op_yet(1)\n")
    return folder


def test_a_mindspore_script_runs_unedited_with_the_same_numbers_in_both_modes(script):
    outputs = []
    for mode in ("pynative", "graph"):
        done = run("train.py", mode, cwd=script)
        assert done.returncode == 0, done.stderr
        name, module, loss, grad_sum = done.stdout.split()
        assert (name, module) == ("__main__", "minispore")
        outputs.append((float(loss), float(grad_sum)))
    assert outputs[0] == pytest.approx(outputs[1], rel=1e-6)
    assert outputs[0][0] > 0


def test_a_module_runs_with_dash_m(script):
    done = run("-m", "train", "pynative", cwd=script)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("__main__ minispore")


def test_a_missing_name_says_minispore_lacks_it(script):
    done = run("missing.py", cwd=script)
    assert done.returncode != 0
    assert "cannot import name 'NotALayerYet'" in done.stderr
    assert "minispore.nn does not provide this name yet" in done.stderr
    done = run("missing_attr.py", cwd=script)
    assert done.returncode != 0
    assert "AttributeError: module 'minispore.ops' has no attribute 'not_an_op_yet'" in done.stderr
    assert "minispore.ops does not provide this name yet" in done.stderr


def test_install_serves_the_same_module_objects_and_uninstall_forgets_them():
    import minispore
    compat.install()
    try:
        import mindspore
        import mindspore.nn as msnn
        assert mindspore is minispore and msnn is minispore.nn
        with pytest.raises(ModuleNotFoundError, match="minispore does not provide "
                                                      "'minispore.no_such_module' yet"):
            import mindspore.no_such_module  # noqa: F401
    finally:
        compat.uninstall()
    assert "mindspore" not in sys.modules and not compat.is_installed()
