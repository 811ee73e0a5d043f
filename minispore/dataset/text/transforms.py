"""Text transforms: tokenizers, Lookup, ToNumber, Truncate, CaseFold, NormalizeUTF8.

Strings are numpy str arrays (a sentence is a 0-d array, tokens a 1-d array), as rows of
TextFileDataset and CSVDataset hold them. Tokenizers with `with_offsets` also return each
token's start and end (exclusive) as UTF-8 byte offsets, as MindSpore does.
"""
import re
import unicodedata
from enum import Enum

import numpy as np

from ..transforms.base import TensorOperation
from ..transforms.tensor_ops import numpy_dtype
from .vocab import Vocab

__all__ = ["NormalizeForm", "WhitespaceTokenizer", "UnicodeCharTokenizer", "RegexTokenizer",
           "BasicTokenizer", "PythonTokenizer", "Lookup", "ToNumber", "Truncate", "CaseFold",
           "NormalizeUTF8"]


class NormalizeForm(Enum):
    NONE = None
    NFC = "NFC"
    NFKC = "NFKC"
    NFD = "NFD"
    NFKD = "NFKD"


def _sentence(text, api):
    array = np.asarray(text)
    if array.dtype.kind == "S":
        array = np.char.decode(array, "utf-8")
    if array.dtype.kind != "U" or array.ndim != 0:
        raise TypeError(f"{api}: expected one string (a 0-d str array), got {array.dtype} of "
                        f"shape {array.shape}")
    return str(array)


def _result(text, spans, with_offsets):
    """Tokens (and their byte offsets) from character spans [(start, end), ...] of text."""
    tokens = np.array([text[s:e] for s, e in spans], dtype=str)
    if not with_offsets:
        return tokens
    byte_at = np.cumsum([0] + [len(c.encode("utf-8")) for c in text])
    starts = np.array([byte_at[s] for s, _ in spans], dtype=np.uint32)
    limits = np.array([byte_at[e] for _, e in spans], dtype=np.uint32)
    return tokens, starts, limits


class _Tokenizer(TensorOperation):
    """Subclasses give the character spans of the tokens of one string (`_spans`)."""

    def __init__(self, with_offsets=False):
        self.with_offsets = bool(with_offsets)

    def __call__(self, text):
        text = _sentence(text, type(self).__name__)
        return _result(text, self._spans(text), self.with_offsets)

    def _spans(self, text):
        raise NotImplementedError


class WhitespaceTokenizer(_Tokenizer):
    """Split on whitespace (ICU's definition: Unicode White_Space characters)."""

    def _spans(self, text):
        return [m.span() for m in re.finditer(r"\S+", text)]


class UnicodeCharTokenizer(_Tokenizer):
    """One token per Unicode character."""

    def _spans(self, text):
        return [(i, i + 1) for i in range(len(text))]


class RegexTokenizer(_Tokenizer):
    """Split at matches of `delim_pattern`; delimiters matching `keep_delim_pattern` are
    kept as tokens."""

    def __init__(self, delim_pattern, keep_delim_pattern="", with_offsets=False):
        super().__init__(with_offsets)
        self.delim_pattern = re.compile(delim_pattern)
        self.keep_delim_pattern = re.compile(keep_delim_pattern) if keep_delim_pattern else None

    def _spans(self, text):
        spans, start = [], 0
        for match in self.delim_pattern.finditer(text):
            if match.start() > start:
                spans.append((start, match.start()))
            if self.keep_delim_pattern is not None and match.end() > match.start() and \
                    self.keep_delim_pattern.fullmatch(match.group()):
                spans.append(match.span())
            start = match.end()
        if start < len(text):
            spans.append((start, len(text)))
        return spans


_UNUSED_TOKEN = re.compile(r"\[(UNK|CLS|SEP|PAD|MASK|unused\d+)\]")


def _is_punctuation(char):
    code = ord(char)
    return (33 <= code <= 47 or 58 <= code <= 64 or 91 <= code <= 96 or 123 <= code <= 126
            or unicodedata.category(char).startswith("P"))


def _is_cjk(char):
    code = ord(char)
    return any(low <= code <= high for low, high in (
        (0x4E00, 0x9FFF), (0x3400, 0x4DBF), (0x20000, 0x2A6DF), (0x2A700, 0x2B73F),
        (0x2B740, 0x2B81F), (0x2B820, 0x2CEAF), (0xF900, 0xFAFF), (0x2F800, 0x2FA1F)))


class BasicTokenizer(_Tokenizer):
    """BERT's basic tokenizer: split on whitespace, make every punctuation mark and CJK
    character a token of its own; `lower_case` also case-folds and strips accents;
    `preserve_unused_token` keeps [CLS], [SEP], [UNK], [PAD], [MASK] and [unusedN] whole;
    `keep_whitespace` keeps whitespace runs as tokens.

    Example:
        >>> BasicTokenizer(lower_case=True)("Héllo, World!").tolist()
        ['hello', ',', 'world', '!']
    """

    def __init__(self, lower_case=False, keep_whitespace=False,
                 normalization_form=NormalizeForm.NONE, preserve_unused_token=True,
                 with_offsets=False):
        super().__init__(with_offsets)
        self.lower_case = bool(lower_case)
        self.keep_whitespace = bool(keep_whitespace)
        self.normalization_form = NormalizeForm(normalization_form)
        self.preserve_unused_token = bool(preserve_unused_token)

    def __call__(self, text):
        text = _sentence(text, "BasicTokenizer")
        if self.lower_case:
            text = "".join(c for c in unicodedata.normalize("NFD", text.casefold())
                           if unicodedata.category(c) != "Mn")
        elif self.normalization_form.value is not None:
            text = unicodedata.normalize(self.normalization_form.value, text)
        return _result(text, self._spans(text), self.with_offsets)

    def _spans(self, text):
        spans, start, i = [], None, 0
        while i < len(text):
            char = text[i]
            kept = _UNUSED_TOKEN.match(text, i) if self.preserve_unused_token else None
            if kept or char.isspace() or _is_punctuation(char) or _is_cjk(char):
                if start is not None:
                    spans.append((start, i))
                    start = None
                end = kept.end() if kept else i + 1
                if char.isspace():
                    while end < len(text) and text[end].isspace():
                        end += 1
                    if self.keep_whitespace:
                        spans.append((i, end))
                else:
                    spans.append((i, end))
                i = end
                continue
            start = i if start is None else start
            i += 1
        if start is not None:
            spans.append((start, len(text)))
        return spans


class PythonTokenizer(TensorOperation):
    """Tokens from a Python function str -> list of str."""

    def __init__(self, tokenizer):
        if not callable(tokenizer):
            raise TypeError(f"PythonTokenizer: tokenizer must be callable, got {tokenizer!r}")
        self.tokenizer = tokenizer

    def __call__(self, text):
        return np.array(self.tokenizer(_sentence(text, "PythonTokenizer")), dtype=str)


class Lookup(TensorOperation):
    """Map tokens to their ids in `vocab` (as `data_type`, default int32); a token not in the
    vocabulary maps to the id of `unknown_token`, or is an error without one.

    Example:
        >>> import numpy as np
        >>> vocab = Vocab.from_list(["<unk>", "a", "b"])
        >>> Lookup(vocab, "<unk>")(np.array(["b", "z"])).tolist()
        [2, 0]
    """

    def __init__(self, vocab, unknown_token=None, data_type=np.int32):
        if not isinstance(vocab, Vocab):
            raise TypeError(f"Lookup: vocab must be a text.Vocab, got {type(vocab).__name__}")
        self.vocab = vocab
        self.unknown_token = unknown_token
        self.data_type = numpy_dtype(data_type, "Lookup")
        self._unknown_id = None
        if unknown_token is not None:
            self._unknown_id = vocab.tokens_to_ids(unknown_token)
            if self._unknown_id == -1:
                raise ValueError(f"Lookup: unknown_token {unknown_token!r} is not in the vocab")

    def __call__(self, tokens):
        tokens = np.asarray(tokens)
        ids = np.array(self.vocab.tokens_to_ids([str(t) for t in tokens.ravel()]), np.int64)
        missing = ids == -1
        if missing.any():
            if self._unknown_id is None:
                bad = str(tokens.ravel()[int(np.argmax(missing))])
                raise RuntimeError(f"Lookup: token {bad!r} is not in the vocab and no "
                                   f"unknown_token was given")
            ids[missing] = self._unknown_id
        return ids.reshape(tokens.shape).astype(self.data_type)


class ToNumber(TensorOperation):
    """Parse strings as numbers of `data_type` (e.g. ms.int32)."""

    def __init__(self, data_type):
        self.data_type = numpy_dtype(data_type, "ToNumber")
        if self.data_type.kind not in "iuf":
            raise TypeError(f"ToNumber: data_type must be numeric, got {self.data_type}")

    def __call__(self, strings):
        strings = np.asarray(strings)
        try:
            numbers = np.array([float(s) if self.data_type.kind == "f" else int(s)
                                for s in strings.ravel()])
        except ValueError as error:
            raise RuntimeError(f"ToNumber: {error}") from None
        if self.data_type.kind in "iu":
            info = np.iinfo(self.data_type)
            if numbers.size and (numbers.min() < info.min or numbers.max() > info.max):
                raise RuntimeError(f"ToNumber: a value is out of {self.data_type}'s range")
        return numbers.reshape(strings.shape).astype(self.data_type)


class Truncate(TensorOperation):
    """The first `max_seq_len` entries of a 1-D array."""

    def __init__(self, max_seq_len):
        if isinstance(max_seq_len, bool) or not isinstance(max_seq_len, int) or max_seq_len < 1:
            raise ValueError(f"Truncate: max_seq_len must be an int >= 1, got {max_seq_len!r}")
        self.max_seq_len = max_seq_len

    def __call__(self, data):
        data = np.asarray(data)
        if data.ndim != 1:
            raise RuntimeError(f"Truncate: expected a 1-D array, got shape {data.shape}")
        return data[:self.max_seq_len]


class CaseFold(TensorOperation):
    """Unicode case folding (a stronger lower-casing) of every string."""

    def __call__(self, strings):
        strings = np.asarray(strings)
        return np.vectorize(str.casefold, otypes=[str])(strings) if strings.size else strings


class NormalizeUTF8(TensorOperation):
    """Unicode normalization (NFC, NFKC, NFD or NFKD) of every string."""

    def __init__(self, normalize_form=NormalizeForm.NFKC):
        self.normalize_form = NormalizeForm(normalize_form)

    def __call__(self, strings):
        strings = np.asarray(strings)
        form = self.normalize_form.value
        if form is None or not strings.size:
            return strings
        return np.vectorize(lambda s: unicodedata.normalize(form, s), otypes=[str])(strings)
