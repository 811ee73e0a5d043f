"""Mode-parity cases (see test_mode_parity.py) of the normalisation layers, the losses beyond
the basic ones and the small layers: BatchNorm3d, GroupNorm, InstanceNorm1d/2d/3d, LRN,
HuberLoss ... CTCLoss, Identity, Dropout1d/2d/3d, Unflatten, CellDict, BiDense."""
import numpy as np
from nn_checks import T
from parity_harness import (
    Setup,
    bits,
    classifier,
    conv_then,
    dense_then,
    embedding,
    on_input,
    probabilities,
    randn,
    sequence_then,
)

from minispore import nn, ops


def signs(shape, seed):
    return T(np.where(np.random.default_rng(seed).random(shape) > 0.5, 1.0, -1.0)
             .astype(np.float32))


# ***** adaptors: losses of more than (logits, labels), fed from one network output *****

class SplitLoss(nn.Cell):
    """loss(*parts of the output split along axis 1 into `parts` equal pieces, labels)."""

    def __init__(self, loss, parts, transform=None):
        super().__init__()
        self.loss, self.parts, self.transform = loss, parts, transform

    def construct(self, out, labels):
        width = out.shape[1] // self.parts
        pieces = [out[:, k * width:(k + 1) * width] for k in range(self.parts)]
        if self.transform == "squeeze":
            pieces = [ops.squeeze(p, 1) for p in pieces]
        if self.transform == "no-labels":  # the labels only carry the batch
            return self.loss(*pieces)
        if self.transform == "variance":
            pieces[-1] = ops.exp(pieces[-1])
            return self.loss(pieces[0], labels, pieces[1])
        return self.loss(*pieces, labels)


class CTCHead(nn.Cell):
    """CTCLoss of (T, N, C) log-probabilities for fixed targets lengths (graph inputs)."""

    def __init__(self, reduction):
        super().__init__()
        self.loss = nn.CTCLoss(reduction=reduction)
        self.input_lengths = T(np.array([6, 4, 5], np.int32))
        self.target_lengths = T(np.array([2, 1, 3], np.int32))

    def construct(self, log_probs, targets):
        return self.loss(log_probs, targets, self.input_lengths, self.target_lengths)


def ctc(reduction):
    net = nn.SequentialCell([nn.Dense(4, 5), nn.LogSoftmax(axis=-1)])
    targets = T(np.array([[1, 2, 0], [3, 0, 0], [4, 4, 2]], np.int32))
    return Setup(net, randn((6, 3, 4), 1), targets, loss_fn=CTCHead(reduction))


class WithCellDict(nn.Cell):
    """Two Dense layers held in a CellDict, chosen by key."""

    def __init__(self):
        super().__init__()
        self.layers = nn.CellDict({"hidden": nn.Dense(4, 4), "out": nn.Dense(4, 3)})

    def construct(self, x):
        return self.layers["out"](ops.tanh(self.layers["hidden"](x)))


class BiDenseOnHalves(nn.Cell):
    """BiDense of the two halves of the input."""

    def __init__(self):
        super().__init__()
        self.bilinear = nn.BiDense(2, 2, 3)

    def construct(self, x):
        return self.bilinear(x[:, :2], x[:, 2:])


def counts(shape, seed):
    return T(np.random.default_rng(seed).integers(0, 5, shape).astype(np.float32))


CASES = [
    # ----- normalisation -----
    (nn.BatchNorm3d, "train", lambda: on_input(nn.BatchNorm3d(2, momentum=0.7), (3, 2, 2, 3, 2),
                                               (3, 2, 2, 3, 2))),
    (nn.BatchNorm3d, "eval", lambda: Setup(nn.SequentialCell([nn.BatchNorm3d(2)]),
                                           randn((3, 2, 2, 3, 2), 5), randn((3, 2, 2, 3, 2), 6),
                                           training=False)),
    (nn.GroupNorm, "", lambda: conv_then(nn.GroupNorm(1, 3), (2, 3, 5, 5))),
    (nn.GroupNorm, "per-channel-groups", lambda: sequence_then(nn.GroupNorm(3, 3), (2, 3, 6))),
    (nn.InstanceNorm1d, "", lambda: sequence_then(nn.InstanceNorm1d(3), (2, 3, 6))),
    (nn.InstanceNorm2d, "", lambda: conv_then(nn.InstanceNorm2d(3, momentum=0.3),
                                              (2, 3, 5, 5))),
    (nn.InstanceNorm3d, "", lambda: on_input(nn.InstanceNorm3d(2), (2, 2, 3, 2, 2),
                                             (2, 2, 3, 2, 2))),
    (nn.LRN, "", lambda: conv_then(nn.LRN(1, 1.0, 0.5, 0.75), (2, 3, 5, 5))),
    # ----- small layers -----
    (nn.Identity, "", lambda: dense_then(nn.Identity())),
    (nn.Dropout1d, "", lambda: sequence_then(nn.Dropout1d(0.4), (2, 3, 6))),
    (nn.Dropout2d, "", lambda: conv_then(nn.Dropout2d(0.4), (2, 3, 5, 5))),
    (nn.Dropout3d, "", lambda: conv_then(nn.SequentialCell([nn.Unflatten(2, (5, 1)),
                                                            nn.Dropout3d(0.4)]),
                                         (2, 3, 5, 1, 5))),
    (nn.Unflatten, "", lambda: on_input(nn.SequentialCell([nn.Dense(4, 6),
                                                           nn.Unflatten(1, (2, 3))]),
                                        (5, 4), (5, 2, 3))),
    # the table's rows have norms near 0.017 (normal, sigma 0.01): some are scaled down
    (nn.Embedding, "max-norm", lambda: embedding(max_norm=0.015)),
    (nn.CellDict, "", lambda: Setup(WithCellDict(), randn((5, 4), 1), randn((5, 3), 2))),
    (nn.BiDense, "", lambda: Setup(BiDenseOnHalves(), randn((5, 4), 1), randn((5, 3), 2))),
    # ----- losses -----
    (nn.HuberLoss, "", lambda: classifier(nn.HuberLoss(delta=0.5), randn((5, 3), 2))),
    (nn.RMSELoss, "", lambda: classifier(nn.RMSELoss(), randn((5, 3), 2))),
    (nn.MAELoss, "sum", lambda: classifier(nn.MAELoss("sum"), randn((5, 3), 2))),
    (nn.SoftMarginLoss, "", lambda: classifier(nn.SoftMarginLoss(), signs((5, 3), 2))),
    (nn.HingeEmbeddingLoss, "", lambda: classifier(nn.HingeEmbeddingLoss(0.5), signs((5, 3), 2))),
    (nn.KLDivLoss, "batchmean", lambda: classifier(nn.KLDivLoss("batchmean"),
                                                   probabilities((5, 3), 9),
                                                   head=nn.LogSoftmax(axis=1))),
    (nn.MultiLabelSoftMarginLoss, "weight",
     lambda: classifier(nn.MultiLabelSoftMarginLoss(T(np.array([0.5, 1.0, 2.0], np.float32))),
                        bits((5, 3), 10))),
    (nn.MultiMarginLoss, "p2-weight",
     lambda: classifier(nn.MultiMarginLoss(2, 0.8, weight=T(np.array([1.0, 0.5, 2.0],
                                                                     np.float32))),
                        T(np.array([0, 2, 1, 1, 0], np.int64)))),
    (nn.MultilabelMarginLoss, "",
     lambda: classifier(nn.MultilabelMarginLoss(),
                        T(np.array([[0, -1, 1], [2, 1, -1], [1, -1, 0], [0, 1, 2], [-1, 0, 0]],
                                   np.int32)))),
    (nn.FocalLoss, "indices-weight",
     lambda: classifier(nn.FocalLoss(T(np.array([1.0, 2.0, 0.5], np.float32))),
                        T(np.array([[0], [2], [1], [1], [0]], np.int32)))),
    (nn.FocalLoss, "per-class", lambda: classifier(nn.FocalLoss(gamma=1.5), bits((5, 3), 10))),
    (nn.DiceLoss, "", lambda: classifier(nn.DiceLoss(), bits((5, 3), 10), head=nn.Sigmoid())),
    (nn.MultiClassDiceLoss, "",
     lambda: classifier(nn.MultiClassDiceLoss(ignore_indiex=1),
                        T(np.eye(3, dtype=np.float32)[[0, 2, 1, 1, 0]]))),
    (nn.PoissonNLLLoss, "full", lambda: classifier(nn.PoissonNLLLoss(full=True),
                                                   counts((5, 3), 4))),
    (nn.CosineEmbeddingLoss, "",
     lambda: Setup(nn.Dense(4, 6), randn((5, 4), 1), signs((5,), 3),
                   loss_fn=SplitLoss(nn.CosineEmbeddingLoss(0.2), 2))),
    (nn.MarginRankingLoss, "",
     lambda: Setup(nn.Dense(4, 2), randn((5, 4), 1), signs((5,), 3),
                   loss_fn=SplitLoss(nn.MarginRankingLoss(0.3), 2, "squeeze"))),
    (nn.TripletMarginLoss, "swap",
     lambda: Setup(nn.Dense(4, 9), randn((5, 4), 1), randn((5,), 3),
                   loss_fn=SplitLoss(nn.TripletMarginLoss(swap=True, margin=2.0), 3,
                                     "no-labels"))),
    (nn.TripletMarginWithDistanceLoss, "l1-distance",
     lambda: Setup(nn.Dense(4, 9), randn((5, 4), 1), randn((5,), 3),
                   loss_fn=SplitLoss(nn.TripletMarginWithDistanceLoss(
                       lambda a, b: ops.sum(ops.abs(a - b), -1), margin=1.5), 3, "no-labels"))),
    (nn.GaussianNLLLoss, "",
     lambda: Setup(nn.Dense(4, 6), randn((5, 4), 1), randn((5, 3), 2),
                   loss_fn=SplitLoss(nn.GaussianNLLLoss(full=True), 2, "variance"))),
    (nn.CTCLoss, "mean", lambda: ctc("mean")),
    (nn.CTCLoss, "sum", lambda: ctc("sum")),
]
