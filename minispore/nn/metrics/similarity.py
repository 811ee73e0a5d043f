"""Similarity metrics: Dice (segmentation overlap), CosineSimilarity (a matrix of rows),
BleuScore (machine translation).

    >>> import numpy as np
    >>> from minispore.nn import Dice
    >>> round(Dice()(np.array([[0.2, 0.5], [0.3, 0.1], [0.9, 0.6]]),
    ...              np.array([[0, 1], [1, 0], [0, 1]])), 6)
    0.204678
"""
from __future__ import annotations

from collections import Counter
from typing import Any, Sequence

import numpy as np

from .metric import Metric, rearrange_inputs

__all__ = ["Dice", "CosineSimilarity", "BleuScore"]


class Dice(Metric):
    r"""Dice coefficient 2 |pred . true| / (|pred|^2 + |true|^2 + smooth) of each batch,
    summed over batches and divided by the number of samples (MindSpore's convention).

    update(y_pred, y): two arrays of the same shape (N, ...).

        >>> import numpy as np
        >>> Dice()(np.array([[1.0, 0.0]]), np.array([[1.0, 0.0]])) > 0.9999
        True
    """

    def __init__(self, smooth: float = 1e-5) -> None:
        if isinstance(smooth, bool) or not isinstance(smooth, (int, float)) or not smooth > 0:
            raise ValueError(f"Dice: smooth must be a float > 0, got {smooth!r}")
        self.smooth = float(smooth)
        super().__init__()

    def clear(self) -> None:
        self._dice_coeff_sum = 0.0
        self._samples_num = 0

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        y_pred, y = self._check_inputs(inputs, 2)
        if y_pred.shape != y.shape:
            raise ValueError(f"Dice: y_pred shape {y_pred.shape} and y shape {y.shape} differ")
        p, t = y_pred.reshape(-1).astype(float), y.reshape(-1).astype(float)
        self._dice_coeff_sum += 2.0 * float(p @ t) / float(p @ p + t @ t + self.smooth)
        self._samples_num += y.shape[0]

    def eval(self) -> float:
        return self._ratio(self._dice_coeff_sum, self._samples_num, "samples")


class CosineSimilarity(Metric):
    """Similarity matrix of the rows of one (N, D) input: cosine (or dot) of every pair.

    `zero_diagonal` zeroes each row's similarity with itself; `reduction` "sum"/"mean" reduces
    each row of the matrix. Each update replaces the matrix.

        >>> import numpy as np
        >>> CosineSimilarity()(np.array([[1.0, 0.0], [1.0, 1.0]])).round(4)
        array([[0.    , 0.7071],
               [0.7071, 0.    ]])
    """

    def __init__(self, similarity: str = "cosine", reduction: str = "none",
                 zero_diagonal: bool = True) -> None:
        if similarity not in ("dot", "cosine"):
            raise ValueError(f"CosineSimilarity: similarity must be 'dot' or 'cosine', "
                             f"got {similarity!r}")
        if reduction not in ("none", "sum", "mean"):
            raise ValueError(f"CosineSimilarity: reduction must be 'none', 'sum' or 'mean', "
                             f"got {reduction!r}")
        if not isinstance(zero_diagonal, bool):
            raise TypeError(f"CosineSimilarity: zero_diagonal must be a bool, got {zero_diagonal!r}")
        self.similarity = similarity
        self.reduction = reduction
        self.zero_diagonal = zero_diagonal
        super().__init__()

    def clear(self) -> None:
        self.sqr_mtx_res: Any = 0
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        (data,) = self._check_inputs(inputs, 1)
        if data.ndim != 2:
            raise ValueError(f"CosineSimilarity: the input must be a (N, D) matrix, "
                             f"got shape {data.shape}")
        data = data.astype(float)
        if self.similarity == "cosine":
            data = data / np.linalg.norm(data, ord=2, axis=1, keepdims=True)
        self.sqr_mtx_res = data @ data.T
        self._is_update = True

    def eval(self) -> np.ndarray:
        self._check_updated(self._is_update)
        result = np.array(self.sqr_mtx_res, dtype=float)
        if self.zero_diagonal:
            np.fill_diagonal(result, 0)
        if self.reduction == "mean":
            return result.mean(axis=-1)
        if self.reduction == "sum":
            return result.sum(axis=-1)
        return result


def _ngrams(words: Sequence[Any], n_gram: int) -> Counter:
    """Counts of every 1..n_gram-gram of `words`, keyed by tuple."""
    counts: Counter = Counter()
    for n in range(1, n_gram + 1):
        for start in range(len(words) - n + 1):
            counts[tuple(words[start:start + n])] += 1
    return counts


class BleuScore(Metric):
    """BLEU: geometric mean of clipped n-gram precisions (n = 1..n_gram) times a brevity
    penalty, over a corpus.

    update(candidate_corpus, reference_corpus): a list of token lists, and for each of them a
    list of reference token lists. `smooth` adds 1 to every precision's numerator and
    denominator.

        >>> cand = [['i', 'have', 'a', 'pen', 'on', 'my', 'desk']]
        >>> refs = [[['i', 'have', 'a', 'pen', 'in', 'my', 'desk'],
        ...          ['there', 'is', 'a', 'pen', 'on', 'the', 'desk']]]
        >>> round(float(BleuScore()(cand, refs)), 10)
        0.5946035575
    """

    def __init__(self, n_gram: int = 4, smooth: bool = False) -> None:
        if isinstance(n_gram, bool) or not isinstance(n_gram, int) or not 1 <= n_gram <= 4:
            raise ValueError(f"BleuScore: n_gram must be an int from 1 to 4, got {n_gram!r}")
        if not isinstance(smooth, bool):
            raise TypeError(f"BleuScore: smooth must be a bool, got {smooth!r}")
        self.n_gram = n_gram
        self.smooth = smooth
        super().__init__()

    def clear(self) -> None:
        self._numerator = np.zeros(self.n_gram)
        self._denominator = np.zeros(self.n_gram)
        self._c = 0.0  # candidate length
        self._r = 0.0  # effective reference length
        self._is_update = False

    @rearrange_inputs
    def update(self, *inputs: Any) -> None:
        if len(inputs) != 2:
            raise ValueError(f"BleuScore.update takes 2 inputs (candidate_corpus, "
                             f"reference_corpus), got {len(inputs)}")
        candidates, references = inputs
        if len(candidates) != len(references):
            raise ValueError(f"BleuScore: {len(candidates)} candidates but {len(references)} "
                             f"reference lists")
        for candidate, refs in zip(candidates, references):
            self._c += len(candidate)
            # the reference length closest to the candidate's (the first one on a tie)
            lengths = [len(ref) for ref in refs]
            gaps = [abs(len(candidate) - length) for length in lengths]
            self._r += lengths[gaps.index(min(gaps))]
            translated = _ngrams(candidate, self.n_gram)
            reference: Counter = Counter()
            for ref in refs:
                reference |= _ngrams(ref, self.n_gram)
            for gram, count in (translated & reference).items():
                self._numerator[len(gram) - 1] += count
            for gram, count in translated.items():
                self._denominator[len(gram) - 1] += count
        self._is_update = True

    def eval(self) -> np.ndarray:
        self._check_updated(self._is_update)
        if min(self._numerator) == 0.0:
            return np.array(0.0)
        if self.smooth:
            precisions = (self._numerator + 1.0) / (self._denominator + 1.0)
        else:
            precisions = self._numerator / self._denominator
        geometric_mean = np.exp(np.sum(np.log(precisions) / self.n_gram))
        brevity = np.array(1.0) if self._c > self._r else np.exp(1.0 - self._r / self._c)
        return np.asarray(brevity * geometric_mean)
