"""SequentialCell, CellList and CellDict: cells kept in order, named by position ('0', '1'...) or by key.

    >>> import minispore as ms
    >>> net = ms.nn.SequentialCell([ms.nn.Dense(4, 8), ms.nn.ReLU(), ms.nn.Dense(8, 2)])
    >>> [name for name, _ in net.parameters_and_names()]
    ['0.weight', '0.bias', '2.weight', '2.bias']
    >>> len(net), type(net[1]).__name__
    (3, 'ReLU')
"""
from __future__ import annotations
from typing import Any
from collections import OrderedDict

from ..cell import Cell
from ...core.hints import Tensor


class _OrderedCells(Cell):
    """Cells in order. Each entry has a fixed name (from an OrderedDict) or none, in which case
    its name is its position; parameters are renamed `<name>.<path>` whenever names change."""

    def __init__(self):
        super().__init__()
        object.__setattr__(self, "_fixed_names", [])

    def _set_entries(self, entries):
        """Replace the content by `entries`: a list of (fixed name or None, cell)."""
        self._cells.clear()
        self._fixed_names.clear()
        for position, (fixed, cell) in enumerate(entries):
            if not isinstance(cell, Cell):
                raise TypeError(f"{type(self).__name__}: entries must be Cells, got "
                                f"{type(cell).__name__} at position {position}")
            name = fixed if fixed is not None else str(position)
            if name in self._cells:
                raise ValueError(f"{type(self).__name__}: the name {name!r} is used twice")
            self.insert_child_to_cell(name, cell)
            cell.update_parameters_name(name + ".")
            self._fixed_names.append(fixed)

    def _entries(self):
        return list(zip(self._fixed_names, self._cells.values()))

    def _position(self, index):
        if not isinstance(index, int):
            raise TypeError(f"{type(self).__name__} indices must be ints or slices, got "
                            f"{type(index).__name__}")
        if not -len(self) <= index < len(self):
            raise IndexError(f"{type(self).__name__} index {index} is out of range for "
                             f"{len(self)} cell(s)")
        return index % len(self)

    def __getitem__(self, index):
        if isinstance(index, slice):
            # a view on the same cells: built without renaming their parameters
            part = type(self).__new__(type(self))
            _OrderedCells.__init__(part)
            for name, cell in list(self._cells.items())[index]:
                part.insert_child_to_cell(name, cell)
                part._fixed_names.append(name)
            return part
        return list(self._cells.values())[self._position(index)]

    def __setitem__(self, index, cell):
        entries = self._entries()
        position = self._position(index)
        entries[position] = (entries[position][0], cell)
        self._set_entries(entries)

    def __delitem__(self, index):
        entries = self._entries()
        if isinstance(index, slice):
            del entries[index]
        else:
            del entries[self._position(index)]
        self._set_entries(entries)

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(list(self._cells.values()))

    def append(self, cell):
        """Add `cell` at the end."""
        self._set_entries(self._entries() + [(None, cell)])
        return self

    def extend(self, cells):
        """Add each of `cells` at the end."""
        self._set_entries(self._entries() + [(None, c) for c in cells])
        return self

    def insert(self, index, cell):
        """Put `cell` before position `index`."""
        entries = self._entries()
        entries.insert(index, (None, cell))
        self._set_entries(entries)


class SequentialCell(_OrderedCells):
    """Cells applied one after another: `SequentialCell([a, b])(x) == b(a(x))`.

    Takes a list of Cells, an OrderedDict name -> Cell, or Cells as separate arguments.
    """

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], (OrderedDict, dict)):
            entries = list(args[0].items())
        elif len(args) == 1 and isinstance(args[0], (list, tuple)):
            entries = [(None, c) for c in args[0]]
        else:
            entries = [(None, c) for c in args]
        self._set_entries(entries)

    def construct(self, x: Tensor) -> Tensor:
        for cell in self._cells.values():
            x = cell(x)
        return x


class CellList(_OrderedCells):
    """A list of Cells whose parameters the enclosing Cell registers; iterate it in construct.

        >>> import minispore as ms
        >>> layers = ms.nn.CellList([ms.nn.Dense(2, 2) for _ in range(3)])
        >>> len(layers.trainable_params())
        6
    """

    def __init__(self, args: Any = None) -> None:
        super().__init__()
        self._set_entries([(None, c) for c in (args or [])])


class CellDict(Cell):
    """Cells by name, in insertion order; the enclosing Cell registers their parameters
    (named `<key>.<path>`). Takes a dict, or an iterable of (key, Cell) pairs.

        >>> import minispore as ms
        >>> heads = ms.nn.CellDict({"a": ms.nn.Dense(2, 3), "b": ms.nn.Dense(2, 1)})
        >>> list(heads.keys()), [p.name for p in heads.get_parameters()][:2]
        (['a', 'b'], ['a.weight', 'a.bias'])
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()
        if len(args) > 1:
            raise TypeError(f"CellDict takes at most one positional argument, got {len(args)}")
        self.update(args[0] if args else {})
        self.update(kwargs)

    def _add(self, key, cell):
        if not isinstance(key, str):
            raise TypeError(f"CellDict: keys must be str, got {type(key).__name__}")
        if not isinstance(cell, Cell):
            raise TypeError(f"CellDict: values must be Cells, got {type(cell).__name__} for "
                            f"key {key!r}")
        if key in dir(Cell) or key in self.__dict__:
            raise KeyError(f"CellDict: the key {key!r} is an attribute name of the Cell")
        self.insert_child_to_cell(key, cell)
        cell.update_parameters_name(key + ".")

    def __getitem__(self, key):
        return self._cells[key]

    def __setitem__(self, key, cell):
        self._add(key, cell)

    def __delitem__(self, key):
        del self._cells[key]

    def __len__(self):
        return len(self._cells)

    def __iter__(self):
        return iter(list(self._cells))

    def __contains__(self, key):
        return key in self._cells

    def keys(self):
        return list(self._cells.keys())

    def values(self):
        return list(self._cells.values())

    def items(self):
        return list(self._cells.items())

    def clear(self):
        self._cells.clear()

    def pop(self, key):
        """Remove the Cell at `key` and return it."""
        return self._cells.pop(key)

    def update(self, cells):
        """Add (or replace) the Cells of a dict, a CellDict or an iterable of (key, Cell)."""
        pairs = cells.items() if isinstance(cells, (dict, CellDict)) else cells
        for entry in pairs:
            if not isinstance(entry, (tuple, list)) or len(entry) != 2:
                raise TypeError(f"CellDict.update: expected (key, Cell) pairs, got {entry!r}")
            self._add(*entry)

    def construct(self, *inputs: Any) -> Tensor:
        raise NotImplementedError("CellDict is a container: call its Cells, not the dict")
