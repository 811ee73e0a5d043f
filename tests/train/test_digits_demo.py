"""The main demo, shortened: train the digits CNN in-process, save, reload, compare."""
import os

from minispore.examples import digits


def test_digits_demo_trains_saves_and_reloads(tmp_path, mode):
    ckpt_path = str(tmp_path / "digits.ckpt")
    messages = []
    result = digits.run(mode=mode, epochs=2, ckpt_path=ckpt_path, progress_bar=False,
                        log=messages.append)
    assert result.accuracy >= 0.85
    assert os.path.exists(ckpt_path)
    assert result.reload_identical and result.reload_accuracy == result.accuracy
    assert result.passed == (result.accuracy >= 0.95)
    assert any("test accuracy" in m for m in messages)


def test_digits_main_exit_status(tmp_path, capsys, monkeypatch):
    args = ["--quick", "--epochs", "1", "--no-progress", "--ckpt", str(tmp_path / "quick.ckpt")]
    monkeypatch.setattr(digits, "QUICK_FLOOR", 0.5)
    assert digits.main(args) == 0
    assert "PASS: test accuracy" in capsys.readouterr().out
    monkeypatch.setattr(digits, "QUICK_FLOOR", 1.01)  # unreachable: the run must report failure
    assert digits.main(args) == 1
    assert "FAIL: test accuracy" in capsys.readouterr().out
