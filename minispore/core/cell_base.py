"""What the layers below nn know of a Cell: that an object is one. `nn.Cell` derives from
`CellBase`, so guards, side-effect detection and reports can recognise Cells without
importing nn (it sits above them)."""


class CellBase:
    """The base of nn.Cell (see the module docstring)."""

    __slots__ = ()
