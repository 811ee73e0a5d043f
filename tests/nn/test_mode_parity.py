"""Every layer, loss, optimizer and learning-rate schedule that minispore.nn exports trains to
the same losses, parameters and state (BatchNorm moving statistics, optimizer moments, the
step counter) in PYNATIVE_MODE and in GRAPH_MODE.

Each case builds a tiny seeded model around the class under test and runs three steps of
`TrainOneStepCell(WithLossCell(net, loss), optimizer)`: eagerly, then from the same initial
parameters with the context in GRAPH_MODE (the whole step compiled: forward, backward and
update). Optimizer cases also compile a functional step (`value_and_grad` + optimizer) with
`ms.jit` inside PyNative. The class list is read from `minispore.nn`, so a new Cell without a
case here fails `test_every_exported_cell_has_a_parity_case`.
"""
import importlib
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from nn_checks import T
from parity_harness import (
    PooledWithIndices,
    Setup,
    ThroughCellList,
    WithK,
    assert_same_training,
    bits,
    classifier,
    conv_then,
    dense_then,
    embedding,
    integers,
    on_input,
    probabilities,
    randn,
    sequence_then,
    with_optimizer,
)

from minispore import nn

# (class, variant, build): every build runs in both modes
LAYER_CASES = [
    (nn.Dense, "activation-3d-input",
     lambda: on_input(nn.Dense(4, 3, activation="tanh"), (2, 5, 4), (2, 5, 3))),
    (nn.Dense, "no-bias", lambda: on_input(nn.Dense(4, 2, has_bias=False), (5, 4), (5, 2))),
    (nn.ReLU, "", lambda: dense_then(nn.ReLU())),
    # inputs scaled so that some pre-activations pass 6 and the upper clip is trained through
    (nn.ReLU6, "", lambda: dense_then(nn.ReLU6(), scale=8.0)),
    (nn.Sigmoid, "", lambda: dense_then(nn.Sigmoid())),
    # large inputs: the compiled kernels' own exp/tanh must saturate as numpy's do
    (nn.Sigmoid, "saturated", lambda: dense_then(nn.Sigmoid(), scale=30.0)),
    (nn.Tanh, "", lambda: dense_then(nn.Tanh())),
    (nn.Tanh, "saturated", lambda: dense_then(nn.Tanh(), scale=30.0)),
    (nn.SiLU, "", lambda: dense_then(nn.SiLU())),
    (nn.LeakyReLU, "", lambda: dense_then(nn.LeakyReLU(0.3))),
    (nn.ELU, "", lambda: dense_then(nn.ELU(0.7))),
    (nn.GELU, "tanh", lambda: dense_then(nn.GELU())),
    (nn.GELU, "erf", lambda: dense_then(nn.GELU(approximate=False))),
    (nn.Softmax, "", lambda: dense_then(nn.Softmax())),
    (nn.LogSoftmax, "", lambda: dense_then(nn.LogSoftmax(axis=0))),
    (nn.Flatten, "", lambda: conv_then(nn.Flatten(), (2, 75))),
    (nn.Dropout, "train", lambda: dense_then(nn.Dropout(p=0.3))),
    (nn.Dropout, "eval", lambda: replace(dense_then(nn.Dropout(p=0.3)), training=False)),
    (nn.Embedding, "gather", lambda: embedding()),
    # id 4 occurs in the input: the zeroed padding row is looked up and trained
    (nn.Embedding, "one-hot-padding", lambda: embedding(use_one_hot=True, padding_idx=4)),
    (nn.Conv2d, "same-bias", lambda: conv_then(nn.ReLU(), (2, 3, 5, 5))),
    (nn.Conv2d, "pad-stride-dilation-group",
     lambda: on_input(nn.Conv2d(2, 4, 3, stride=2, pad_mode="pad", padding=(1, 0, 2, 1),
                                dilation=(1, 2), group=2, has_bias=True), (2, 2, 6, 7),
                      (2, 4, 3, 3))),
    (nn.BatchNorm1d, "nc", lambda: dense_then(nn.BatchNorm1d(3, momentum=0.8))),
    (nn.BatchNorm1d, "ncl", lambda: on_input(nn.BatchNorm1d(3), (4, 3, 5), (4, 3, 5))),
    (nn.BatchNorm2d, "train", lambda: conv_then(nn.BatchNorm2d(3), (2, 3, 5, 5))),
    (nn.BatchNorm2d, "eval", lambda: conv_then(
        nn.BatchNorm2d(3, moving_mean_init=T(np.array([0.1, -0.2, 0.3], np.float32)),
                       moving_var_init=T(np.array([0.5, 2.0, 1.5], np.float32))),
        (2, 3, 5, 5), training=False)),
    (nn.BatchNorm2d, "eval-batch-statistics-no-affine", lambda: conv_then(
        nn.BatchNorm2d(3, affine=False, use_batch_statistics=True), (2, 3, 5, 5),
        training=False)),
    (nn.LayerNorm, "last-axis", lambda: dense_then(nn.LayerNorm((3,)))),
    (nn.LayerNorm, "two-axes",
     lambda: on_input(nn.LayerNorm((4,), begin_norm_axis=1, begin_params_axis=-1),
                      (2, 3, 4), (2, 3, 4))),
    (nn.MaxPool2d, "valid", lambda: conv_then(nn.MaxPool2d(2, 2), (2, 3, 2, 2))),
    (nn.MaxPool2d, "same", lambda: conv_then(nn.MaxPool2d(3, 2, pad_mode="same"),
                                             (2, 3, 3, 3))),
    (nn.MaxPool2d, "pad", lambda: conv_then(nn.MaxPool2d(2, 2, pad_mode="pad", padding=1),
                                            (2, 3, 3, 3))),
    (nn.MaxPool2d, "dilation-ceil", lambda: conv_then(nn.MaxPool2d(2, 2, dilation=2,
                                                                   ceil_mode=True),
                                                      (2, 3, 2, 2))),
    (nn.MaxPool2d, "return-indices", lambda: conv_then(PooledWithIndices(), (2, 3, 3, 3))),
    (nn.MaxPool1d, "valid", lambda: sequence_then(nn.MaxPool1d(2, 2), (2, 3, 3))),
    (nn.MaxPool1d, "same", lambda: sequence_then(nn.MaxPool1d(3, 2, pad_mode="same"), (2, 3, 3))),
    (nn.AvgPool1d, "pad", lambda: sequence_then(nn.AvgPool1d(3, 2, pad_mode="pad", padding=1),
                                                (2, 3, 3))),
    (nn.AvgPool2d, "valid", lambda: conv_then(nn.AvgPool2d(2, 2), (2, 3, 2, 2))),
    (nn.AvgPool2d, "same", lambda: conv_then(nn.AvgPool2d(3, 2, pad_mode="same"),
                                             (2, 3, 3, 3))),
    (nn.AvgPool2d, "pad-exclude-padding",
     lambda: conv_then(nn.AvgPool2d(2, 2, pad_mode="pad", padding=1, count_include_pad=False),
                       (2, 3, 3, 3))),
    (nn.AvgPool2d, "divisor", lambda: conv_then(nn.AvgPool2d(2, 1, divisor_override=3),
                                                (2, 3, 4, 4))),
    (nn.AvgPool2d, "ceil", lambda: conv_then(nn.AvgPool2d(2, 2, ceil_mode=True),
                                             (2, 3, 3, 3))),
    (nn.CellList, "", lambda: Setup(ThroughCellList(), randn((5, 4), 1), randn((5, 3), 2))),
    (nn.Tril, "", lambda: on_input(nn.SequentialCell([nn.Dense(4, 3), WithK(nn.Tril(), 1)]),
                                   (2, 3, 4), (2, 3, 3))),
    (nn.Triu, "", lambda: on_input(nn.SequentialCell([nn.Dense(4, 3), WithK(nn.Triu(), -1)]),
                                   (2, 3, 4), (2, 3, 3))),
    (nn.Roll, "", lambda: dense_then(nn.Roll((1, -1), (0, 1)))),
]

LOSS_CASES = [
    (nn.MSELoss, "", lambda: classifier(nn.MSELoss(), randn((5, 3), 2))),
    (nn.L1Loss, "sum", lambda: classifier(nn.L1Loss(reduction="sum"), randn((5, 3), 2))),
    # beta below the typical |logits - labels| so both branches are trained through; the
    # default reduction 'none' gives a loss per element, which the step differentiates as
    # the sum (a sensitivity of ones)
    (nn.SmoothL1Loss, "none", lambda: classifier(nn.SmoothL1Loss(0.5), randn((5, 3), 2))),
    (nn.SoftmaxCrossEntropyWithLogits, "sparse-none",
     lambda: classifier(nn.SoftmaxCrossEntropyWithLogits(sparse=True), integers(3, (5,), 9))),
    (nn.SoftmaxCrossEntropyWithLogits, "dense",
     lambda: classifier(nn.SoftmaxCrossEntropyWithLogits(reduction="sum"),
                        probabilities((5, 3), 9))),
    (nn.CrossEntropyLoss, "indices", lambda: classifier(nn.CrossEntropyLoss(),
                                                        integers(3, (5,), 9))),
    (nn.CrossEntropyLoss, "weight-ignore-smoothing",
     lambda: classifier(nn.CrossEntropyLoss(T(np.array([0.5, 1.0, 2.0], np.float32)),
                                            ignore_index=1, label_smoothing=0.1),
                        integers(3, (5,), 9))),
    (nn.CrossEntropyLoss, "probabilities",
     lambda: classifier(nn.CrossEntropyLoss(reduction="sum"), probabilities((5, 3), 9))),
    (nn.NLLLoss, "", lambda: classifier(nn.NLLLoss(T(np.array([1.0, 0.5, 2.0], np.float32))),
                                        integers(3, (5,), 9), head=nn.LogSoftmax(axis=1))),
    (nn.BCEWithLogitsLoss, "weight-pos-weight",
     lambda: classifier(nn.BCEWithLogitsLoss(weight=T(np.array([1.0, 2.0, 0.5], np.float32)),
                                             pos_weight=T(np.array([2.0, 1.0, 3.0],
                                                                   np.float32))),
                        bits((5, 3), 10))),
    # logits past 100, where exp overflows float32: the stable formula in both modes
    (nn.BCEWithLogitsLoss, "large-logits",
     lambda: replace(classifier(nn.BCEWithLogitsLoss(), bits((5, 3), 10)),
                     data=randn((5, 4), 1, scale=100.0))),
    (nn.BCELoss, "", lambda: classifier(nn.BCELoss(), bits((5, 3), 10), head=nn.Sigmoid())),
]

# optimizers, and learning-rate schedules (each drives an optimizer)
OPTIMIZER_CASES = [
    (nn.SGD, "weight-decay", lambda: with_optimizer(lambda ps: nn.SGD(ps, 0.1,
                                                                      weight_decay=0.01))),
    (nn.SGD, "momentum-dampening",
     lambda: with_optimizer(lambda ps: nn.SGD(ps, 0.1, momentum=0.9, dampening=0.5))),
    (nn.SGD, "nesterov-loss-scale",
     lambda: with_optimizer(lambda ps: nn.SGD(ps, 0.1, momentum=0.9, nesterov=True,
                                              loss_scale=4.0))),
    (nn.SGD, "lr-list", lambda: with_optimizer(lambda ps: nn.SGD(ps, [0.1, 0.05, 0.02]))),
    (nn.Momentum, "", lambda: with_optimizer(lambda ps: nn.Momentum(ps, 0.1, 0.9))),
    (nn.Momentum, "nesterov-weight-decay",
     lambda: with_optimizer(lambda ps: nn.Momentum(ps, 0.1, 0.9, weight_decay=0.01,
                                                   use_nesterov=True))),
    (nn.Adam, "", lambda: with_optimizer(lambda ps: nn.Adam(ps, 0.01))),
    (nn.Adam, "nesterov-weight-decay",
     lambda: with_optimizer(lambda ps: nn.Adam(ps, 0.01, use_nesterov=True, weight_decay=0.01))),
    (nn.AdamWeightDecay, "", lambda: with_optimizer(lambda ps: nn.AdamWeightDecay(
        ps, 0.01, weight_decay=0.1))),
    (nn.ExponentialDecayLR, "stair", lambda: with_optimizer(lambda ps: nn.SGD(
        ps, nn.ExponentialDecayLR(0.1, 0.5, 2, is_stair=True)))),
    (nn.CosineDecayLR, "", lambda: with_optimizer(lambda ps: nn.SGD(
        ps, nn.CosineDecayLR(0.01, 0.1, 2)))),
    (nn.PolynomialDecayLR, "update-decay-steps", lambda: with_optimizer(lambda ps: nn.SGD(
        ps, nn.PolynomialDecayLR(0.1, 0.01, 2, 2.0, update_decay_steps=True)))),
    (nn.WarmUpLR, "", lambda: with_optimizer(lambda ps: nn.Momentum(
        ps, nn.WarmUpLR(0.1, 2), 0.9))),
    (nn.NaturalExpDecayLR, "stair", lambda: with_optimizer(lambda ps: nn.SGD(
        ps, nn.NaturalExpDecayLR(0.1, 0.5, 2, is_stair=True)))),
    (nn.InverseDecayLR, "", lambda: with_optimizer(lambda ps: nn.SGD(
        ps, nn.InverseDecayLR(0.1, 0.5, 2)))),
    (nn.Adagrad, "weight-decay", lambda: with_optimizer(lambda ps: nn.Adagrad(
        ps, learning_rate=0.1, weight_decay=0.01))),
    (nn.ProximalAdagrad, "l1-l2", lambda: with_optimizer(lambda ps: nn.ProximalAdagrad(
        ps, learning_rate=0.1, l1=0.001, l2=0.01))),
    (nn.Adadelta, "", lambda: with_optimizer(lambda ps: nn.Adadelta(ps, learning_rate=1.0))),
    (nn.AdaMax, "", lambda: with_optimizer(lambda ps: nn.AdaMax(ps, learning_rate=0.01))),
    (nn.LazyAdam, "", lambda: with_optimizer(lambda ps: nn.LazyAdam(ps, learning_rate=0.01))),
    (nn.RMSProp, "centered-momentum", lambda: with_optimizer(lambda ps: nn.RMSProp(
        ps, learning_rate=0.01, momentum=0.5, centered=True))),
    (nn.FTRL, "l1-l2", lambda: with_optimizer(lambda ps: nn.FTRL(
        ps, learning_rate=0.1, l1=0.001, l2=0.001))),
    (nn.Lamb, "weight-decay", lambda: with_optimizer(lambda ps: nn.Lamb(
        ps, learning_rate=0.01, weight_decay=0.01))),
    (nn.LARS, "", lambda: with_optimizer(lambda ps: nn.LARS(
        nn.Momentum(ps, 0.1, 0.9, weight_decay=0.01), coefficient=0.1))),
    (nn.ASGD, "", lambda: with_optimizer(lambda ps: nn.ASGD(ps, learning_rate=0.1, t0=1.0))),
    (nn.Rprop, "", lambda: with_optimizer(lambda ps: nn.Rprop(ps, learning_rate=0.01))),
]

# Exported Cells that get no case of their own, and why
NOT_A_CASE = {
    "Cell": "the base class: every case is one",
    "LossBase": "abstract base of the losses (no construct); get_loss is in test_losses.py",
    "Optimizer": "abstract base of the optimizers (no _update)",
    "LearningRateSchedule": "abstract base of the schedules (no construct)",
    "SequentialCell": "container: most cases above train through one",
    "WithLossCell": "wrapper every case trains through",
    "TrainOneStepCell": "wrapper every case trains through (sens: test_training.py)",
    "WithEvalCell": "evaluation wrapper, no training step (test_training.py)",
    "ClipByNorm": "two inputs (x, clip_norm), no parameters: both modes in test_grad_tools.py",
    "TrainOneStepWithLossScaleCell": "a training wrapper: both modes, overflow and skipped "
                                     "steps included, in tests/train/test_amp.py",
    "DynamicLossScaleUpdateCell": "updates a loss scale, no layer: both modes in test_amp.py",
    "FixedLossScaleUpdateCell": "a constant loss scale, no layer: test_amp.py",
}


# Layer families keep their cases in parity_cases_<family>.py: CASES, a list of the same
# (class, variant, build) triples, and NOT_A_CASE, a dict like the one above
FAMILY_CASES = []
for family in sorted(Path(__file__).parent.glob("parity_cases_*.py")):
    module = importlib.import_module(family.stem)
    FAMILY_CASES += module.CASES
    NOT_A_CASE.update(getattr(module, "NOT_A_CASE", {}))


def params(cases):
    return [pytest.param(build, id="-".join(filter(None, (cls.__name__, variant))))
            for cls, variant, build in cases]


# ***** the tests *****

def test_every_exported_cell_has_a_parity_case():
    exported = {name for name in dir(nn) if not name.startswith("_")
                and isinstance(getattr(nn, name), type) and issubclass(getattr(nn, name), nn.Cell)}
    covered = {cls.__name__ for cls, _, _ in LAYER_CASES + LOSS_CASES + OPTIMIZER_CASES
               + FAMILY_CASES}
    assert not covered & set(NOT_A_CASE)
    missing = exported - covered - set(NOT_A_CASE)
    assert not missing, f"Cells of minispore.nn without a mode-parity case: {sorted(missing)}"
    assert set(NOT_A_CASE) <= exported, "NOT_A_CASE names a Cell minispore.nn no longer exports"


@pytest.mark.parametrize("build", params(LAYER_CASES + LOSS_CASES + FAMILY_CASES))
def test_layer_and_loss_train_the_same_in_both_modes(build):
    assert_same_training(build)


@pytest.mark.parametrize("build", params(OPTIMIZER_CASES))
@pytest.mark.parametrize("jit_step", [False, True], ids=["graph-mode", "ms.jit"])
def test_optimizer_trains_the_same_in_both_modes(build, jit_step):
    assert_same_training(build, jit_step)
