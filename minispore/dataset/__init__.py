"""minispore.dataset: in-memory and Python data sources, batching, shuffling, iterators.

    >>> import numpy as np
    >>> import minispore.dataset as ds
    >>> data = ds.NumpySlicesDataset({"x": np.ones((10, 3)), "y": np.arange(10)}).batch(4)
    >>> data.get_dataset_size(), data.get_col_names()
    (3, ['x', 'y'])
"""
from . import config  # noqa: F401
from .engine import Dataset  # noqa: F401
from .sources import GeneratorDataset, NumpySlicesDataset  # noqa: F401

__all__ = ["Dataset", "GeneratorDataset", "NumpySlicesDataset", "config"]
