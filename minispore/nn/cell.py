"""Cell: the base class of networks. Sub-cells and Parameters set as attributes are registered.

    >>> import minispore as ms
    >>> class Scale(ms.nn.Cell):
    ...     def __init__(self):
    ...         super().__init__()
    ...         self.w = ms.Parameter(ms.Tensor(2.0))
    ...     def construct(self, x):
    ...         return x * self.w
    >>> Scale()(ms.Tensor(3.0))
    Tensor(shape=[], dtype=Float32, value= 6)

Parameter names are hierarchical, as in MindSpore: a Parameter assigned to `self.weight` is
named `weight` (unless it was given a name), and when a cell is assigned to an attribute of a
parent whose `auto_prefix` is True, its parameters are renamed `<attr>.<path>` (`fc1.weight`).

`Cell.__call__` is the only place that looks at the mode: PyNative runs `construct` now (with
hooks and a custom `bprop` if the cell defines one); Graph mode compiles it
(graph_mode.jit_function), forward hooks included; differentiating a cell with backward hooks
there is an error.
"""
import itertools
from collections import OrderedDict
from typing import Any, Optional

from ..context import config
from ..context.interpreter import STATE
from ..core.cell_base import CellBase
from ..core.dtype import bfloat16, float16, float32, to_type
from ..core.parameter import DEFAULT_NAME, Parameter, ParameterTuple
from ..core.tensor import Tensor
from ..fallback.convert import converted
from ..graph_mode.jit_function import run_cell_graph
from ..ops import functional as F
from . import cell_autodiff


class Cell(CellBase):
    """Base class for all networks: define `construct`, set layers and Parameters as attributes.

    Args:
        auto_prefix: whether sub-cells assigned as attributes get their attribute name as a
            prefix of their parameters' names (wrappers such as WithLossCell turn it off).
        flags: attributes to set on the cell (MindSpore's `add_flags`).
    """

    def __init__(self, auto_prefix: bool = True, flags: Optional[dict[str, Any]] = None) -> None:
        init = object.__setattr__
        init(self, "_params", OrderedDict())
        init(self, "_cells", OrderedDict())
        init(self, "training", False)
        init(self, "requires_grad", False)
        init(self, "_auto_prefix", auto_prefix)
        # mixed precision (to_float, amp): compute dtype, output dtype, and the compute dtype
        # while construct runs (Parameters read then are cast to it)
        init(self, "_amp_dtype", None)
        init(self, "_amp_output", None)
        init(self, "_amp_running", None)
        for kind in ("_forward_pre_hooks", "_forward_hooks", "_backward_pre_hooks",
                     "_backward_hooks"):
            init(self, kind, OrderedDict())
        if flags:
            self.add_flags(**flags)

    # ***** registration *****
    def __setattr__(self, name, value):
        if "_params" not in self.__dict__:
            raise AttributeError(f"{type(self).__name__}: call super().__init__() before setting "
                                 f"attributes")
        params, cells = self._params, self._cells
        if isinstance(value, Parameter):
            self.insert_param_to_cell(name, value)
        elif isinstance(value, Cell):
            self.insert_child_to_cell(name, value)
            if self._auto_prefix:
                value.update_parameters_name(name + ".")
        elif name in params and value is not None:
            raise TypeError(f"{type(self).__name__}.{name} is a Parameter; assign a Parameter, "
                            f"or use ops.assign / set_data to change its values")
        else:
            params.pop(name, None)
            cells.pop(name, None)
            object.__setattr__(self, name, value)
            if isinstance(value, ParameterTuple):
                # Like MindSpore: the tuple's items join this cell's parameters (under their own
                # names), so optimizer state held in a ParameterTuple is found and checkpointed.
                known = {id(p) for p in params.values()}
                for p in value:
                    if id(p) not in known:
                        params[_free_key(params, p.name)] = p
                        known.add(id(p))

    def __getattr__(self, name):
        d = self.__dict__
        if "_params" in d and name in d["_params"]:
            param = d["_params"][name]
            compute = d["_amp_running"]  # to_float: construct reads its Parameters cast
            if compute is not None and param is not None and param.dtype.is_float \
                    and param.dtype != compute:
                return F.cast(param, compute)
            return param
        if "_cells" in d and name in d["_cells"]:
            return d["_cells"][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name):
        if name in self._params:
            del self._params[name]
        elif name in self._cells:
            del self._cells[name]
        else:
            object.__delattr__(self, name)

    def insert_param_to_cell(self, param_name, param, check_name_contain_dot=True):
        """Register `param` under `param_name` (a Parameter still named 'Parameter' takes it)."""
        if not isinstance(param, Parameter):
            raise TypeError(f"{type(self).__name__}.insert_param_to_cell: {param_name!r} must be a "
                            f"Parameter, got {type(param).__name__}")
        if check_name_contain_dot and "." in param_name:
            raise KeyError(f"{type(self).__name__}: parameter name {param_name!r} must not "
                           f"contain '.'")
        if param.name == DEFAULT_NAME:
            param.name = param_name
        self._params[param_name] = param
        self._cells.pop(param_name, None)
        self.__dict__.pop(param_name, None)

    def insert_child_to_cell(self, child_name, child_cell):
        """Register `child_cell` under `child_name` (no renaming of its parameters)."""
        if not isinstance(child_name, str) or not child_name or "." in child_name:
            raise KeyError(f"{type(self).__name__}: child cell name must be a non-empty str "
                           f"without '.', got {child_name!r}")
        if child_cell is not None and not isinstance(child_cell, Cell):
            raise TypeError(f"{type(self).__name__}.insert_child_to_cell: {child_name!r} must be a "
                            f"Cell, got {type(child_cell).__name__}")
        self._cells[child_name] = child_cell
        self._params.pop(child_name, None)
        self.__dict__.pop(child_name, None)

    def update_parameters_name(self, prefix="", recurse=True):
        """Rename every parameter to `prefix` + its path in this cell (MindSpore's rule)."""
        for path, param in self.parameters_and_names(expand=recurse):
            param.name = prefix + path

    def add_flags(self, **flags):
        for key, value in flags.items():
            object.__setattr__(self, key, value)
        return self

    # ***** queries *****
    def cells_and_names(self, cells=None, name_prefix=""):
        """(name, cell) for this cell and every sub-cell, depth first, each once."""
        seen = set() if cells is None else cells
        if id(self) in seen:
            return
        seen.add(id(self))
        yield name_prefix, self
        for name, cell in self._cells.items():
            if cell is not None:
                path = f"{name_prefix}.{name}" if name_prefix else name
                yield from cell.cells_and_names(seen, path)

    def cells(self):
        """The direct sub-cells."""
        return [c for c in self._cells.values() if c is not None]

    def name_cells(self):
        """The direct sub-cells by attribute name."""
        return OrderedDict((k, c) for k, c in self._cells.items() if c is not None)

    def parameters_and_names(self, name_prefix="", expand=True):
        """(path, Parameter) pairs of this cell (and its sub-cells if expand), each once."""
        seen = set()
        for cell_path, cell in (self.cells_and_names(name_prefix=name_prefix) if expand
                                else [(name_prefix, self)]):
            for pname, p in cell._params.items():
                if p is None or id(p) in seen:
                    continue
                seen.add(id(p))
                yield (f"{cell_path}.{pname}" if cell_path else pname), p

    def get_parameters(self, expand=True):
        """The Parameters (a generator), each once."""
        for _, p in self.parameters_and_names(expand=expand):
            yield p

    def trainable_params(self, recurse=True):
        """The Parameters with requires_grad, as a list (what optimizers take)."""
        return [p for p in self.get_parameters(recurse) if p.requires_grad]

    def untrainable_params(self, recurse=True):
        """The Parameters without requires_grad (BatchNorm statistics, optimizer state)."""
        return [p for p in self.get_parameters(recurse) if not p.requires_grad]

    def parameters_dict(self, recurse=True):
        """OrderedDict {parameter.name: Parameter}."""
        return OrderedDict((p.name, p) for p in self.get_parameters(recurse))

    # ***** modes *****
    def set_train(self, mode=True):
        """Training mode (Dropout active, BatchNorm uses and updates batch statistics) for this
        cell and every sub-cell; `set_train(False)` is evaluation mode. Returns self."""
        for _, cell in self.cells_and_names():
            object.__setattr__(cell, "training", bool(mode))
        return self

    def to_float(self, dst_type):
        """Compute this cell and its sub-cells in `dst_type` (float16, bfloat16 or float32), as
        MindSpore's to_float: each cell casts its float Tensor inputs, and the Parameters its
        construct reads, to dst_type (the Parameters themselves keep their dtype: float32
        master weights get float32 gradients through the cast). Returns self.

            >>> net = ms.nn.Dense(3, 2).to_float(ms.float16)
            >>> net(ms.ops.ones((1, 3))).dtype
            Float16
        """
        dst_type = to_type(dst_type)
        if dst_type not in (float16, bfloat16, float32):
            raise ValueError(f"{type(self).__name__}.to_float: dst_type must be float16, "
                             f"bfloat16 or float32, got {dst_type}")
        for _, cell in self.cells_and_names():
            object.__setattr__(cell, "_amp_dtype", dst_type)
        return self

    def set_grad(self, requires_grad=True):
        """Mark the cell as one whose gradients will be taken (informational here). Returns self."""
        object.__setattr__(self, "requires_grad", bool(requires_grad))
        return self

    # ***** hooks (forward hooks in both modes; backward hooks in PyNative) *****
    def register_forward_pre_hook(self, hook_fn):
        """hook_fn(cell, inputs) runs before construct; it may return new inputs."""
        return _HookHandle(self._forward_pre_hooks, hook_fn)

    def register_forward_hook(self, hook_fn):
        """hook_fn(cell, inputs, output) runs after construct; it may return a new output."""
        return _HookHandle(self._forward_hooks, hook_fn)

    def register_backward_pre_hook(self, hook_fn):
        """hook_fn(cell, grad_output) runs when the gradient reaches the cell's outputs; it may
        return a tuple replacing grad_output."""
        return _HookHandle(self._backward_pre_hooks, hook_fn)

    def register_backward_hook(self, hook_fn):
        """hook_fn(cell, grad_input, grad_output) runs once the gradient has flowed back through
        the cell: grad_output is the gradient w.r.t. its outputs, grad_input the gradient w.r.t.
        its Tensor inputs (None for each if no input is differentiated); it may return a tuple
        replacing grad_input."""
        return _HookHandle(self._backward_hooks, hook_fn)

    # ***** calling *****
    def construct(self, *inputs: Any, **kwargs: Any) -> Any:
        raise NotImplementedError(f"{type(self).__name__} must define construct()")

    def __call__(self, *args, **kwargs):
        if config.get_context("mode") == config.GRAPH_MODE and not STATE.trace_stack:
            return run_cell_graph(self, args, kwargs)
        return self._run_construct(args, kwargs)

    def _run_construct(self, args, kwargs):
        # Forward hooks run in both modes: while Graph mode traces they are traced too (a hook
        # with Python side effects then runs its Python at every call, like any traced code).
        if self._amp_dtype is not None:   # to_float: the inputs, as MindSpore casts them
            args = _cast_floats(args, self._amp_dtype)
        for hook in list(self._forward_pre_hooks.values()):
            result = hook(self, args)
            if result is not None:
                args = result if isinstance(result, tuple) else (result,)
        if STATE.recording and (self._backward_hooks or self._backward_pre_hooks):
            if STATE.trace_stack:
                raise RuntimeError(
                    f"{type(self).__name__} has backward hooks: they run Python inside the "
                    f"backward pass, which GRAPH_MODE and ms.jit compile (MindSpore skips them "
                    f"there); take this gradient in PyNative mode or remove the hooks")
            out = cell_autodiff.run_with_backward_hooks(
                self, args, lambda inner: self._run_body(inner, kwargs))
        else:
            out = self._run_body(args, kwargs)
        for hook in list(self._forward_hooks.values()):
            result = hook(self, args, out)
            if result is not None:
                out = result
        if self._amp_output is not None:  # mixed precision: the result handed on
            out = _cast_floats(out, self._amp_output)
        return out

    def _run_body(self, args, kwargs):
        compute = self._amp_dtype
        if compute is None:
            return self._run_construct_body(args, kwargs)
        saved = self._amp_running
        object.__setattr__(self, "_amp_running", compute)
        try:
            return self._run_construct_body(args, kwargs)
        finally:
            object.__setattr__(self, "_amp_running", saved)

    def _run_construct_body(self, args, kwargs):
        if type(self).bprop is not Cell.bprop:
            return cell_autodiff.run_with_custom_bprop(self, args, kwargs)
        if STATE.trace_stack:  # Graph mode: tensor-conditioned ifs become selects
            return converted(type(self).construct)(self, *args, **kwargs)
        return self.construct(*args, **kwargs)

    def bprop(self, *args):
        """Override as bprop(self, *inputs, out, dout) -> one gradient per input, to replace
        autodiff through this cell (grad, value_and_grad, GradOperation all use it)."""
        raise NotImplementedError

    # ***** printing *****
    def extend_repr(self):
        """Extra text shown inside this cell's repr (layer sizes...)."""
        return ""

    def __repr__(self):
        extra = self.extend_repr()
        children = [f"({name}): " + repr(cell).replace("\n", "\n  ")
                    for name, cell in self._cells.items() if cell is not None]
        if not children:
            return f"{type(self).__name__}<{extra}>"
        lines = ([extra] if extra else []) + children
        return f"{type(self).__name__}<\n  " + "\n  ".join(lines) + "\n  >"


def _cast_floats(value, dtype):
    """`value` with every float Tensor in it (nested tuples/lists too) cast to dtype."""
    if isinstance(value, Tensor):
        if value.dtype.is_float and value.dtype != dtype:
            return F.cast(value, dtype)
        return value
    if isinstance(value, (tuple, list)):
        return type(value)(_cast_floats(v, dtype) for v in value)
    return value


def _free_key(table, name):
    """`name`, or `name$1`, `name$2`... whichever is not yet a key of `table`."""
    key, n = name, 0
    while key in table:
        n += 1
        key = f"{name}${n}"
    return key


class _HookHandle:
    """What register_*_hook returns: `handle.remove()` unregisters that one hook."""

    _ids = itertools.count()

    def __init__(self, hooks, fn):
        if not callable(fn):
            raise TypeError(f"a hook must be callable, got {type(fn).__name__}")
        self._hooks, self._id = hooks, next(self._ids)
        hooks[self._id] = fn

    def remove(self):
        self._hooks.pop(self._id, None)


__all__ = ["Cell", "Parameter", "ParameterTuple"]
