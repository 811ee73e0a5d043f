"""Vocab: the token <-> id table that `text.Lookup` maps tokens with."""
from collections import Counter

import numpy as np

__all__ = ["Vocab"]


class Vocab:
    """A vocabulary: tokens with consecutive ids from 0.

    Build one with `from_list`, `from_dict`, `from_file` or `from_dataset`.

    Example:
        >>> vocab = Vocab.from_list(["home", "world"], special_tokens=["<pad>", "<unk>"])
        >>> vocab.tokens_to_ids(["world", "<unk>", "mars"])
        [3, 1, -1]
        >>> vocab.ids_to_tokens(2)
        'home'
    """

    def __init__(self, word_to_id=None):
        self._ids = dict(word_to_id or {})
        self._tokens = {i: w for w, i in self._ids.items()}

    @classmethod
    def from_list(cls, word_list, special_tokens=None, special_first=True):
        """Ids in list order; `special_tokens` (e.g. "<pad>", "<unk>") first or last."""
        words = [str(w) for w in word_list]
        specials = [str(s) for s in special_tokens or []]
        repeated = sorted({w for w in words + specials if (words + specials).count(w) > 1})
        if repeated:
            raise ValueError(f"Vocab.from_list: tokens appear more than once: {repeated}")
        ordered = specials + words if special_first else words + specials
        return cls({w: i for i, w in enumerate(ordered)})

    @classmethod
    def from_dict(cls, word_dict):
        """The given token -> id mapping (ids must be distinct non-negative ints)."""
        ids = list(word_dict.values())
        if len(set(ids)) != len(ids) or any(not isinstance(i, int) or i < 0 for i in ids):
            raise ValueError("Vocab.from_dict: ids must be distinct non-negative ints")
        return cls({str(w): i for w, i in word_dict.items()})

    @classmethod
    def from_file(cls, file_path, delimiter="", vocab_size=None, special_tokens=None,
                  special_first=True):
        """One token per line (the text before `delimiter` when one is given); at most
        `vocab_size` lines."""
        words = []
        with open(file_path, encoding="utf-8") as f:
            for line in f:
                word = line.rstrip("\r\n")
                word = word.split(delimiter)[0] if delimiter else word
                if word and word not in words:
                    words.append(word)
                if vocab_size is not None and len(words) == vocab_size:
                    break
        return cls.from_list(words, special_tokens, special_first)

    @classmethod
    def from_dataset(cls, dataset, columns=None, freq_range=None, top_k=None,
                     special_tokens=None, special_first=True):
        """The tokens of `columns` (default: all) of one pass over `dataset`, most frequent
        first (ties by token order), counts within `freq_range` (min, max; inclusive),
        the `top_k` most frequent."""
        counts = Counter()
        names = dataset.get_col_names() if columns is None else (
            [columns] if isinstance(columns, str) else list(columns))
        for row in dataset.create_dict_iterator(num_epochs=1, output_numpy=True):
            for name in names:
                counts.update(str(t) for t in np.asarray(row[name]).ravel())
        low, high = freq_range if freq_range is not None else (0, None)
        words = sorted((w for w, c in counts.items()
                        if c >= (low or 0) and (high is None or c <= high)),
                       key=lambda w: (-counts[w], w))
        if top_k is not None:
            words = words[:top_k]
        specials = [str(s) for s in special_tokens or []]
        return cls.from_list([w for w in words if w not in specials], specials, special_first)

    def vocab(self):
        """dict token -> id."""
        return dict(self._ids)

    def tokens_to_ids(self, tokens):
        """The id of a token (or a list of ids of a list of tokens); -1 for unknown ones."""
        if isinstance(tokens, (str, np.str_)):
            return self._ids.get(str(tokens), -1)
        return [self._ids.get(str(t), -1) for t in tokens]

    def ids_to_tokens(self, ids):
        """The token of an id (or a list of them); '' for unknown ids."""
        if isinstance(ids, (int, np.integer)):
            return self._tokens.get(int(ids), "")
        return [self._tokens.get(int(i), "") for i in ids]

    def __len__(self):
        return len(self._ids)
