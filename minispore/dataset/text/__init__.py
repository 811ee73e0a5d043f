"""minispore.dataset.text: vocabularies, tokenizers and string conversions for NLP
pipelines (MindSpore's `dataset.text` basics).

    >>> import numpy as np
    >>> from minispore.dataset import text
    >>> vocab = text.Vocab.from_list(["the", "cat", "sat"], special_tokens=["<unk>"])
    >>> tokens = text.WhitespaceTokenizer()(np.array("the cat sat down"))
    >>> text.Lookup(vocab, unknown_token="<unk>")(tokens).tolist()
    [1, 2, 3, 0]
"""
import numpy as np

from .transforms import (  # noqa: F401
    BasicTokenizer,
    CaseFold,
    Lookup,
    NormalizeForm,
    NormalizeUTF8,
    PythonTokenizer,
    RegexTokenizer,
    ToNumber,
    Truncate,
    UnicodeCharTokenizer,
    WhitespaceTokenizer,
)
from .vocab import Vocab  # noqa: F401

__all__ = ["BasicTokenizer", "CaseFold", "Lookup", "NormalizeForm", "NormalizeUTF8",
           "PythonTokenizer", "RegexTokenizer", "ToNumber", "Truncate", "UnicodeCharTokenizer",
           "Vocab", "WhitespaceTokenizer", "to_bytes", "to_str"]


def to_str(array, encoding="utf8"):
    """A numpy array of bytes as an array of str."""
    return np.char.decode(np.asarray(array), encoding)


def to_bytes(array, encoding="utf8"):
    """A numpy array of str as an array of bytes."""
    return np.char.encode(np.asarray(array), encoding)
