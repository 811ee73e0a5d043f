"""The acceptance program of the recurrent layers: minispore.examples.sentiment_lstm (an
LSTM sentiment classifier in the style of MindSpore's tutorial, on synthetic reviews whose
label depends on their tokens) trains to the same losses in both modes and classifies
held-out reviews at least 90% right."""
import numpy as np

import minispore as ms
from minispore.examples import sentiment_lstm


def test_sentiment_lstm_trains_the_same_in_both_modes():
    eager = sentiment_lstm.train(ms.PYNATIVE_MODE, epochs=4)
    graph = sentiment_lstm.train(ms.GRAPH_MODE, epochs=4)
    ms.set_context(mode=ms.PYNATIVE_MODE)
    assert eager.losses[-1] < 0.3 * eager.losses[0]
    assert eager.accuracy >= sentiment_lstm.FLOOR
    # Adam's normalised steps amplify float32 rounding a little over 48 steps
    np.testing.assert_allclose(graph.losses, eager.losses, rtol=1e-3, atol=1e-4)
    assert abs(graph.accuracy - eager.accuracy) <= 1 / 256


def test_the_script_reports_and_checks_its_floor(capsys):
    assert sentiment_lstm.main(["--epochs", "3"]) == 0
    assert "test accuracy" in capsys.readouterr().out
