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

`Cell.__call__` is the only place that looks at the mode: PyNative runs `construct` now (with
hooks and a custom `bprop` if the cell defines one); Graph mode compiles it (runtime.compile).
"""
import inspect
from collections import OrderedDict

from ..context import config
from ..context.interpreter import STATE
from ..grad import tape
from .parameter import Parameter, ParameterTuple


class Cell:
    """Base class for all networks: define `construct`, set layers and Parameters as attributes."""

    def __init__(self, auto_prefix=True, flags=None):
        object.__setattr__(self, "_params", OrderedDict())
        object.__setattr__(self, "_cells", OrderedDict())
        object.__setattr__(self, "training", False)
        object.__setattr__(self, "_auto_prefix", auto_prefix)
        object.__setattr__(self, "_forward_hooks", [])
        object.__setattr__(self, "_backward_hooks", [])
        object.__setattr__(self, "requires_grad", False)

    # ----- registration -----
    def __setattr__(self, name, value):
        if "_params" not in self.__dict__:
            raise AttributeError(f"{type(self).__name__}: call super().__init__() before setting attributes")
        params, cells = self.__dict__["_params"], self.__dict__["_cells"]
        if isinstance(value, Parameter):
            if value._auto_named:
                value.name = name
                value._auto_named = False
            params[name] = value
            cells.pop(name, None)
            self.__dict__.pop(name, None)
        elif isinstance(value, Cell):
            if self._auto_prefix:
                for _, p in value.parameters_and_names():
                    p.name = f"{name}.{p.name}"
            cells[name] = value
            params.pop(name, None)
            self.__dict__.pop(name, None)
        else:
            if name in params and value is not None:
                raise TypeError(f"{type(self).__name__}.{name} is a Parameter; assign a Parameter "
                                f"or use ops.assign / set_data to change its values")
            params.pop(name, None)
            cells.pop(name, None)
            object.__setattr__(self, name, value)

    def __getattr__(self, name):
        d = self.__dict__
        if "_params" in d and name in d["_params"]:
            return d["_params"][name]
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

    def insert_child_to_cell(self, child_name, child_cell):
        setattr(self, child_name, child_cell)

    def insert_param_to_cell(self, param_name, param, check_name_contain_dot=True):
        setattr(self, param_name, param)

    # ----- queries -----
    def cells_and_names(self, cells=None, name_prefix=""):
        """(name, cell) for this cell and every sub-cell, depth first, each once."""
        seen = set() if cells is None else cells
        if id(self) in seen:
            return
        seen.add(id(self))
        yield name_prefix, self
        for name, cell in self._cells.items():
            if cell is not None:
                yield from cell.cells_and_names(seen, f"{name_prefix}.{name}" if name_prefix else name)

    def cells(self):
        return list(self._cells.values())

    def name_cells(self):
        return OrderedDict(self._cells)

    def parameters_and_names(self, name_prefix="", expand=True):
        """(name, Parameter) pairs of this cell and its sub-cells, each Parameter once."""
        seen = set()
        for cell_name, cell in (self.cells_and_names() if expand else [("", self)]):
            for pname, p in cell._params.items():
                if id(p) in seen:
                    continue
                seen.add(id(p))
                full = f"{cell_name}.{pname}" if cell_name else pname
                yield (f"{name_prefix}.{full}" if name_prefix else full), p

    def get_parameters(self, expand=True):
        for _, p in self.parameters_and_names(expand=expand):
            yield p

    def trainable_params(self, recurse=True):
        """The Parameters with requires_grad, as a list (what optimizers take)."""
        return [p for p in self.get_parameters(recurse) if p.requires_grad]

    def untrainable_params(self, recurse=True):
        return [p for p in self.get_parameters(recurse) if not p.requires_grad]

    def parameters_dict(self, recurse=True):
        return OrderedDict((p.name, p) for p in self.get_parameters(recurse))

    # ----- modes -----
    def set_train(self, mode=True):
        """Training mode (dropout active, BatchNorm updates its statistics) for all sub-cells."""
        for _, cell in self.cells_and_names():
            object.__setattr__(cell, "training", mode)
        return self

    def set_grad(self, requires_grad=True):
        object.__setattr__(self, "requires_grad", requires_grad)
        return self

    # ----- hooks -----
    def register_forward_hook(self, hook_fn):
        """hook_fn(cell, inputs, output) runs after construct (PyNative); may return a new output."""
        self._forward_hooks.append(hook_fn)
        return _HookHandle(self._forward_hooks, hook_fn)

    def register_backward_hook(self, hook_fn):
        """hook_fn(cell, grad_input, grad_output) runs when gradients flow back through this
        cell (PyNative); it may return replacement input gradients."""
        self._backward_hooks.append(hook_fn)
        return _HookHandle(self._backward_hooks, hook_fn)

    # ----- calling -----
    def construct(self, *inputs, **kwargs):
        raise NotImplementedError(f"{type(self).__name__} must define construct()")

    def __call__(self, *args, **kwargs):
        if config.get_context("mode") == config.GRAPH_MODE and not STATE.trace_stack:
            from ..runtime.compile import run_cell_graph
            return run_cell_graph(self, args, kwargs)
        return self._run_construct(args, kwargs)

    def _run_construct(self, args, kwargs):
        if type(self).bprop is not Cell.bprop:
            out = self._run_with_custom_bprop(args, kwargs)
        elif self._backward_hooks:
            out = self._run_with_backward_hooks(args, kwargs)
        else:
            out = self.construct(*args, **kwargs)
        for hook in self._forward_hooks:
            result = hook(self, args, out)
            if result is not None:
                out = result
        return out

    def bprop(self, *args):
        """Override as bprop(self, *inputs, out, dout) -> input gradients to replace autodiff."""
        raise NotImplementedError

    def _run_with_custom_bprop(self, args, kwargs):
        n_inputs = len(args)
        n_params = len(inspect.signature(self.bprop).parameters)
        if n_params != n_inputs + 2:
            raise TypeError(f"{type(self).__name__}.bprop takes {n_params} arguments; it must take "
                            f"the {n_inputs} input(s), then out and dout ({n_inputs + 2} in all)")
        with tape.paused():
            out = self.construct(*args, **kwargs)
        outputs = out if isinstance(out, tuple) else (out,)

        def rule(*saved):
            inputs, o, dout = saved[:n_inputs], saved[n_inputs], saved[n_inputs + 1]
            grads = self.bprop(*inputs, o, dout)
            return tuple(grads) if isinstance(grads, (tuple, list)) else (grads,)

        tape.record_custom(f"{type(self).__name__}.bprop", rule, args, outputs, isinstance(out, tuple))
        return out

    def _run_with_backward_hooks(self, args, kwargs):
        # Route the outputs through an identity node whose rule calls the hooks, and the
        # inputs through one that sees the input gradients.
        out = self.construct(*args, **kwargs)
        outputs = out if isinstance(out, tuple) else (out,)
        from ..ops import functional as F
        hooked = tuple(F.identity(o) for o in outputs)

        def rule(*saved):
            douts = saved[-1] if isinstance(out, tuple) else (saved[-1],)
            grads = tuple(douts)
            for hook in self._backward_hooks:
                result = hook(self, grads, tuple(douts))
                if result is not None:
                    grads = tuple(result) if isinstance(result, (tuple, list)) else (result,)
            return grads

        tape.record_custom(f"{type(self).__name__}.backward_hook", rule, outputs, hooked, isinstance(out, tuple))
        return hooked if isinstance(out, tuple) else hooked[0]

    def __repr__(self):
        lines = [f"{type(self).__name__}<"]
        for name, cell in self._cells.items():
            lines.append(f"  ({name}): " + repr(cell).replace("\n", "\n  "))
        return "\n".join(lines) + ">" if len(lines) > 1 else f"{type(self).__name__}<>"


class _HookHandle:
    def __init__(self, hooks, fn):
        self._hooks, self._fn = hooks, fn

    def remove(self):
        if self._fn in self._hooks:
            self._hooks.remove(self._fn)


__all__ = ["Cell", "Parameter", "ParameterTuple"]
