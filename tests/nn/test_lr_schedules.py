"""Learning-rate schedules (Cells of the step) and precomputed lists, with MindSpore's formulas."""
import math

import pytest

import minispore as ms
from minispore import nn


def at(schedule, step):
    return float(schedule(ms.Tensor(step, ms.int32)))


def test_exponential_decay():
    lr = nn.ExponentialDecayLR(0.1, 0.9, 4)
    assert at(lr, 2) == pytest.approx(0.1 * 0.9 ** 0.5, rel=1e-6)
    assert at(nn.ExponentialDecayLR(0.1, 0.9, 4, is_stair=True), 7) == pytest.approx(0.09, rel=1e-6)


def test_cosine_decay():
    lr = nn.CosineDecayLR(0.01, 0.1, 4)
    assert [at(lr, s) for s in (0, 2, 4, 9)] == pytest.approx([0.1, 0.055, 0.01, 0.01], rel=1e-6)


def test_polynomial_decay():
    lr = nn.PolynomialDecayLR(0.1, 0.01, 4, 0.5)
    assert at(lr, 2) == pytest.approx(0.09 * 0.5 ** 0.5 + 0.01, rel=1e-6)
    assert at(lr, 10) == pytest.approx(0.01, rel=1e-6)
    growing = nn.PolynomialDecayLR(0.1, 0.01, 4, 1.0, update_decay_steps=True)
    assert at(growing, 6) == pytest.approx(0.09 * (1 - 6 / 8) + 0.01, rel=1e-6)


def test_warmup():
    lr = nn.WarmUpLR(0.1, 4)
    assert [at(lr, s) for s in (0, 1, 4, 8)] == pytest.approx([0.0, 0.025, 0.1, 0.1], rel=1e-6)


def test_dynamic_lr_lists_match_mindspore_examples():
    assert nn.piecewise_constant_lr([2, 5, 10], [0.1, 0.05, 0.01]) == \
        [0.1, 0.1, 0.05, 0.05, 0.05, 0.01, 0.01, 0.01, 0.01, 0.01]
    assert nn.exponential_decay_lr(0.1, 0.9, 6, 2, 1) == pytest.approx(
        [0.1, 0.1, 0.09, 0.09, 0.081, 0.081])
    assert nn.exponential_decay_lr(0.1, 0.9, 6, 1, 2, is_stair=True) == pytest.approx(
        [0.1, 0.1, 0.09, 0.09, 0.081, 0.081])
    assert nn.cosine_decay_lr(0.01, 0.1, 6, 2, 2) == pytest.approx(
        [0.1, 0.1, 0.055, 0.055, 0.01, 0.01])
    assert nn.warmup_lr(0.1, 6, 2, 2) == pytest.approx([0.0, 0.0, 0.05, 0.05, 0.1, 0.1])


def test_errors():
    with pytest.raises(ValueError, match="milestones must increase"):
        nn.piecewise_constant_lr([3, 2], [0.1, 0.2])
    with pytest.raises(ValueError, match="decay_steps must be a positive int"):
        nn.ExponentialDecayLR(0.1, 0.9, 0)
    with pytest.raises(ValueError, match="max_lr must be in"):
        nn.CosineDecayLR(0.1, 0.01, 4)
    assert math.isclose(at(nn.CosineDecayLR(0.0, 1.0, 2), 1), 0.5, rel_tol=1e-6)


def test_natural_exp_and_inverse_decay_cells():
    # MindSpore's code takes p = step (floored to a multiple of decay_steps with is_stair)
    lr = nn.NaturalExpDecayLR(0.1, 0.5, 4)
    assert [at(lr, s) for s in (0, 3, 6)] == pytest.approx(
        [0.1 * math.exp(-0.5 * s) for s in (0, 3, 6)], rel=1e-6)
    stair = nn.NaturalExpDecayLR(0.1, 0.5, 4, is_stair=True)
    assert [at(stair, s) for s in (3, 4, 9)] == pytest.approx(
        [0.1, 0.1 * math.exp(-2.0), 0.1 * math.exp(-4.0)], rel=1e-6)
    inverse = nn.InverseDecayLR(0.1, 0.5, 4)
    assert [at(inverse, s) for s in (0, 2, 8)] == pytest.approx([0.1, 0.08, 0.05], rel=1e-6)
    assert at(nn.InverseDecayLR(0.1, 0.5, 4, is_stair=True), 7) == pytest.approx(0.1 / 1.5,
                                                                                rel=1e-6)


def test_natural_exp_inverse_polynomial_lists_match_mindspore_examples():
    # the examples printed in MindSpore's docs
    assert nn.natural_exp_decay_lr(0.1, 0.9, 6, 2, 2, True) == pytest.approx(
        [0.1, 0.1, 0.1, 0.1, 0.016529888822158657, 0.016529888822158657])
    assert nn.inverse_decay_lr(0.1, 0.5, 6, 1, 1, True) == pytest.approx(
        [0.1, 0.06666666666666667, 0.05, 0.04, 0.03333333333333333, 0.028571428571428574])
    assert nn.polynomial_decay_lr(0.1, 0.01, 6, 2, 2, 0.5) == pytest.approx(
        [0.1, 0.1, 0.07363961030678928, 0.07363961030678928, 0.01, 0.01])
    # and the formulas elsewhere: no stair, and a decay span that grows with the epoch
    assert nn.natural_exp_decay_lr(0.1, 0.9, 4, 1, 3) == pytest.approx(
        [0.1 * math.exp(-0.9 * e) for e in range(4)])
    assert nn.inverse_decay_lr(0.1, 0.5, 4, 2, 2) == pytest.approx(
        [0.1, 0.1, 0.1 / 1.25, 0.1 / 1.25])
    assert nn.polynomial_decay_lr(0.1, 0.0, 5, 1, 2, 1.0, update_decay_epoch=True) == \
        pytest.approx([0.1, 0.05, 0.0, 0.1 * (1 - 3 / 4), 0.0])
