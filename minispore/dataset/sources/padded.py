"""PaddedDataset: rows given as a list of dicts, to pad a dataset to a multiple of the shards."""
from typing import Any, Dict, List, Tuple

import numpy as np

from .base import MappableSource

__all__ = ["PaddedDataset"]


class PaddedDataset(MappableSource):
    """Rows from a list of dicts column name -> value (every dict with the same columns),
    read in order. MindSpore uses it to pad a dataset before sharding, so that every shard
    gets whole rows: ``(data + ds.PaddedDataset(pads))`` with a DistributedSampler.

    Example:
        >>> import numpy as np
        >>> import minispore.dataset as ds
        >>> pads = ds.PaddedDataset([{"image": np.zeros(3, np.uint8), "label": np.int32(-1)}])
        >>> pads.get_col_names(), pads.get_dataset_size()
        (['image', 'label'], 1)
    """

    def __init__(self, padded_samples: List[Dict[str, Any]]) -> None:
        api = "PaddedDataset"
        if not isinstance(padded_samples, list) or not padded_samples or not all(
                isinstance(s, dict) for s in padded_samples):
            raise TypeError(f"{api}: padded_samples must be a non-empty list of dicts")
        names = list(padded_samples[0])
        for number, sample in enumerate(padded_samples):
            if sorted(sample) != sorted(names):
                raise ValueError(f"{api}: sample {number} has columns {sorted(sample)}, sample "
                                 f"0 has {sorted(names)}")
        super().__init__(api, names, shuffle=False)
        self._rows = [tuple(np.asarray(sample[n]) for n in names) for sample in padded_samples]

    def _row_count(self) -> int:
        return len(self._rows)

    def _read(self, index: int) -> Tuple[np.ndarray, ...]:
        return self._rows[index]
