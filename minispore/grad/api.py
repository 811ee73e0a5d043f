"""Differentiation transforms: grad, value_and_grad, GradOperation, vjp, jvp.

All are thin layers over one function, `_vjp`: run `fn` while recording, then call the one
backward engine. Forward mode (`jvp`) is derived from reverse mode by the double-vjp trick.

    >>> import minispore as ms
    >>> ms.grad(ms.ops.tanh)(ms.Tensor(2.0))
    Tensor(shape=[], dtype=Float32, value= 0.0706508)
"""
from typing import Any, Callable, Sequence, Union

from ..context.interpreter import STATE
from ..core.tensor import Tensor
from ..ops import functional as F
from ..ops.primitive import user_frame_summary
from . import tape
from .backward import backward


def _as_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


def _api_error(cls, api, message):
    """cls("api: message") followed by the user's line that called the transform."""
    where = user_frame_summary()
    return cls(f"{api}: {message}" + (f"\n  at {where}" if where else ""))


def _positions(grad_position, nargs, api):
    if grad_position is None:
        return ()
    positions = _as_tuple(grad_position)
    for p in positions:
        if not isinstance(p, int) or not -nargs <= p < nargs:
            raise _api_error(ValueError, api, f"grad_position {grad_position!r} is out of range "
                             f"for {nargs} positional input(s)")
    return tuple(p % nargs for p in positions)


def _vjp(fn, args, positions, weights, reusable=False):
    """Run fn(*args) recording; return (outputs, pullback). pullback(sens) -> (dargs, dweights).

    Differentiated args are replaced by watched copies; weights are watched in place.
    reusable: keep the recorded graph after a pullback, so that it can be called again.
    """
    weights = tuple(weights or ())
    args = list(args)
    targets = []
    with tape.recording():
        for p in positions:
            args[p] = tape.watch(args[p])
            targets.append(args[p])
        with tape.watching_parameters(weights):
            out = fn(*args)
    targets.extend(weights)
    nested = STATE.recording > 0

    def pullback(roots, sens):
        with tape.watching_parameters(weights):
            grads = backward(roots, sens, targets, free=not (nested or reusable))
        grads = [g if g is not None else _zeros_like(t) for g, t in zip(grads, targets)]
        if not nested:
            tape.detach(grads)
        return tuple(grads[:len(positions)]), tuple(grads[len(positions):])

    return out, pullback


def _zeros_like(t):
    return F.zeros_like(t)


def _ones_like(t):
    return F.ones_like(t)


def _split_aux(out, has_aux, api):
    """(differentiated outputs, aux outputs)."""
    if has_aux:
        if not isinstance(out, (tuple, list)) or len(out) < 2:
            raise _api_error(ValueError, f"{api}(has_aux=True)", "fn must return a tuple "
                             f"(output, aux...), got {type(out).__name__}")
        return (out[0],), tuple(out[1:])
    return _as_tuple(out), ()


def _check_outputs(outs, api):
    for o in outs:
        if not isinstance(o, Tensor):
            raise _api_error(TypeError, api, "fn must return Tensors to differentiate, got "
                             f"{type(o).__name__}")


def _pack(input_grads, weight_grads, positions, grad_position, weights, return_ids=False):
    if return_ids:  # each gradient as (its input position or its parameter's name, gradient)
        input_grads = tuple(zip(positions, input_grads))
        weight_grads = tuple((w.name, g) for w, g in zip(weights or (), weight_grads))
    if weights is None:
        return input_grads[0] if isinstance(grad_position, int) else input_grads
    if grad_position is None:
        return weight_grads
    inputs = input_grads[0] if isinstance(grad_position, int) else input_grads
    return inputs, weight_grads


def value_and_grad(fn: Callable[..., Any], grad_position: Union[int, tuple[int, ...], None] = 0, weights: Any = None,
                   has_aux: bool = False, return_ids: bool = False) -> Callable[..., Any]:
    """Make a function returning ``(fn(*args), gradients)``.

    Args:
        fn: function or Cell returning a Tensor (or, with has_aux, a tuple whose first item
            is differentiated and the rest returned as they are).
        grad_position: int, tuple of ints, or None (no input gradients).
        weights: Parameters (list / ParameterTuple) to differentiate with respect to.
        has_aux: see fn.
        return_ids: return each gradient as a pair (input position or parameter name,
            gradient); `ops.get_grad` picks one out.

    Gradients: one tensor for an int grad_position, a tuple for a tuple, the weights' tuple
    for grad_position=None, and ``(input_grads, weight_grads)`` with both.

    >>> import minispore as ms
    >>> f = lambda x, y: x * y
    >>> ms.value_and_grad(f, grad_position=(0, 1))(ms.Tensor(3.0), ms.Tensor(4.0))[1]
    (Tensor(shape=[], dtype=Float32, value= 4), Tensor(shape=[], dtype=Float32, value= 3))
    """
    return _value_and_grad(fn, grad_position, weights, has_aux, "value_and_grad", return_ids)


def _value_and_grad(fn, grad_position, weights, has_aux, api, return_ids=False):
    """value_and_grad, with errors naming `api` (the transform the user called)."""
    if grad_position is None and weights is None:
        raise _api_error(ValueError, api, "grad_position and weights cannot both be None")

    def value_and_grad_fn(*args):
        positions = _positions(grad_position, len(args), api)
        out, pullback = _vjp(fn, args, positions, weights)
        roots, _ = _split_aux(out, has_aux, api)
        _check_outputs(roots, api)
        input_grads, weight_grads = pullback(roots, [_ones_like(r) for r in roots])
        if STATE.recording == 0:
            tape.detach(out)
        return out, _pack(input_grads, weight_grads, positions, grad_position, weights,
                          return_ids)

    return value_and_grad_fn


def grad(fn: Callable[..., Any], grad_position: Union[int, tuple[int, ...], None] = 0, weights: Any = None,
         has_aux: bool = False, return_ids: bool = False) -> Callable[..., Any]:
    """Make a function returning the gradients of fn (see `value_and_grad` for the layout and
    return_ids); with has_aux, returns ``(gradients, aux)``.

    >>> import minispore as ms
    >>> ms.grad(ms.grad(ms.ops.sin))(ms.Tensor(0.5))   # -sin(0.5)
    Tensor(shape=[], dtype=Float32, value=-0.479426)
    >>> ms.grad(lambda x, y: x * y, (0, 1), return_ids=True)(ms.Tensor(2.0), ms.Tensor(3.0))
    ((0, Tensor(shape=[], dtype=Float32, value= 3)), (1, Tensor(shape=[], dtype=Float32, value= 2)))
    """
    vg = _value_and_grad(fn, grad_position, weights, has_aux, "grad", return_ids)

    def grad_fn(*args):
        out, grads = vg(*args)
        if has_aux:
            return grads, tuple(out[1:])
        return grads

    return grad_fn


def get_grad(gradients: Sequence[Any], identifier: Union[int, Tensor]) -> Tensor:
    """The gradient for `identifier` (an input position, or a Parameter) in what `grad` or
    `value_and_grad` returned with return_ids=True.

    >>> import minispore as ms
    >>> grads = ms.grad(lambda x, y: x * y, (0, 1), return_ids=True)(ms.Tensor(2.0), ms.Tensor(3.0))
    >>> float(ms.ops.get_grad(grads, 1))
    2.0
    """
    if isinstance(identifier, Tensor) and hasattr(identifier, "name"):
        key = identifier.name
    elif isinstance(identifier, int) and not isinstance(identifier, bool):
        key = identifier
    else:
        raise TypeError(f"ops.get_grad: identifier must be an input position (int) or a "
                        f"Parameter, got {type(identifier).__name__}")
    found = _find_grad(gradients, key)
    if found is None:
        raise ValueError(f"ops.get_grad: no gradient for {key!r}; were the gradients taken "
                         f"with return_ids=True, and is it among grad_position / weights?")
    return found


def _find_grad(node, key):
    if isinstance(node, tuple) and len(node) == 2 and isinstance(node[1], Tensor) \
            and isinstance(node[0], (int, str)) and not isinstance(node[0], bool):
        return node[1] if node[0] == key and type(node[0]) is type(key) else None
    if isinstance(node, (tuple, list)):
        for item in node:
            found = _find_grad(item, key)
            if found is not None:
                return found
    return None


def vjp(fn: Callable[..., Any], *inputs: Any, weights: Any = None,
        has_aux: bool = False) -> tuple[Any, ...]:
    """``(fn(*inputs), vjp_fn)``; ``vjp_fn(v)`` gives the input gradients for cotangent v
    (a tuple, one per input, even for one input; ``(input_grads, weight_grads)`` if weights
    are given). With has_aux: ``(fn's first output, vjp_fn, aux)``, aux being the second
    output itself if fn returns two, else the tuple of the others (as MindSpore).

    >>> import minispore as ms
    >>> out, vjp_fn = ms.vjp(lambda x: x * x, ms.Tensor([1.0, 2.0]))
    >>> vjp_fn(ms.Tensor([1.0, 1.0]))
    (Tensor(shape=[2], dtype=Float32, value= [ 2.00000000e+00,  4.00000000e+00]),)
    """
    positions = tuple(range(len(inputs)))
    out, pullback = _vjp(fn, inputs, positions, weights, reusable=True)
    roots, aux = _split_aux(out, has_aux, "vjp")
    _check_outputs(roots, "vjp")

    def vjp_fn(*cotangents):
        if len(cotangents) == 1 and isinstance(cotangents[0], (tuple, list)):
            cotangents = tuple(cotangents[0])  # vjp_fn((v1, v2)) as well as vjp_fn(v1, v2)
        if len(cotangents) != len(roots):
            raise _api_error(ValueError, "vjp_fn", f"expected {len(roots)} cotangent(s) for "
                             f"fn's output(s), got {len(cotangents)}")
        for c, r in zip(cotangents, roots):
            if tuple(c.shape) != tuple(r.shape):
                raise _api_error(ValueError, "vjp_fn", f"cotangent shape {tuple(c.shape)} does "
                                 f"not match the output shape {tuple(r.shape)}")
        input_grads, weight_grads = pullback(roots, cotangents)
        return (input_grads, weight_grads) if weights is not None else input_grads

    value = out if not has_aux else out[0]
    if STATE.recording == 0:
        # the caller gets untracked copies; the pullback keeps the tracked roots
        value, aux = _untracked(value), _untracked(aux)
    return (value, vjp_fn, _one_or_tuple(aux)) if has_aux else (value, vjp_fn)


def _one_or_tuple(aux):
    """vjp/jvp's aux value as MindSpore gives it: one aux output as it is, several as a tuple."""
    return aux[0] if len(aux) == 1 else aux


def _untracked(x):
    """x (a Tensor or nested tuple/list of them) as new Tensors sharing data, off the tape."""
    if isinstance(x, Tensor):
        return Tensor._wrap(x._data)
    if isinstance(x, (tuple, list)):
        return type(x)(_untracked(v) for v in x)
    return x


def jvp(fn: Callable[..., Any], inputs: Any, v: Any, has_aux: bool = False) -> tuple[Any, ...]:
    """``(fn(*inputs), J @ v)``: forward-mode derivative along tangent(s) v.

    Derived from reverse mode (seed 001): the vjp u -> J^T u is linear in u, so the vjp of
    *that* map with cotangent v is J v.

    >>> import minispore as ms
    >>> ms.jvp(lambda x: x ** 3, ms.Tensor(2.0), ms.Tensor(1.0))[1]
    Tensor(shape=[], dtype=Float32, value= 12)
    """
    inputs, tangents = _as_tuple(inputs), _as_tuple(v)
    if len(inputs) != len(tangents):
        raise _api_error(ValueError, "jvp", f"got {len(inputs)} input(s) but {len(tangents)} "
                         "tangent(s)")
    for x, t in zip(inputs, tangents):
        if tuple(x.shape) != tuple(t.shape):
            raise _api_error(ValueError, "jvp", f"tangent shape {tuple(t.shape)} does not match "
                             f"the input shape {tuple(x.shape)}")
    with tape.recording():
        out, pullback = _vjp(fn, inputs, tuple(range(len(inputs))), None)
        roots, aux = _split_aux(out, has_aux, "jvp")
        _check_outputs(roots, "jvp")
        dummies = [tape.watch(_zeros_like(r)) for r in roots]
        input_grads, _ = pullback(roots, dummies)
    tangents_out = backward(list(input_grads), list(tangents), dummies, free=STATE.recording == 0)
    tangents_out = [t if t is not None else _zeros_like(r) for t, r in zip(tangents_out, roots)]
    if STATE.recording == 0:
        tape.detach(out)
        tape.detach(tangents_out)
    result = tangents_out[0] if not isinstance(out, (tuple, list)) or has_aux else tuple(tangents_out)
    if has_aux:
        return out[0], result, _one_or_tuple(aux)
    return out, result


class GradOperation:
    """MindSpore 1.x gradient factory: ``GradOperation(get_all, get_by_list, sens_param)(fn[,
    params])(*inputs[, sens])``.

    * default: gradient of the first input;
    * get_all: tuple of gradients of all inputs;
    * get_by_list: gradients of `params` (both flags: ``(inputs_grads, params_grads)``);
    * sens_param: the last call argument is the output's sensitivity (default: ones).
    """

    def __init__(self, get_all: bool = False, get_by_list: bool = False,
                 sens_param: bool = False) -> None:
        self.get_all = get_all
        self.get_by_list = get_by_list
        self.sens_param = sens_param

    def __call__(self, fn, weights=None):
        if self.get_by_list and weights is None:
            raise ValueError("GradOperation(get_by_list=True) needs the parameters: grad_op(fn, params)")
        params = tuple(weights) if self.get_by_list else ()

        def grad_fn(*args):
            sens = None
            if self.sens_param:
                if not args:
                    raise ValueError("GradOperation(sens_param=True): pass the sensitivity as the last input")
                args, sens = args[:-1], args[-1]
            positions = tuple(range(len(args))) if self.get_all else ((0,) if args else ())
            if not self.get_by_list and not args:
                raise ValueError("GradOperation: fn has no inputs to differentiate")
            out, pullback = _vjp(fn, args, positions, params)
            roots = _as_tuple(out)
            _check_outputs(roots, "GradOperation")
            sens = _as_tuple(sens) if sens is not None else [_ones_like(r) for r in roots]
            input_grads, weight_grads = pullback(roots, sens)
            if self.get_by_list:
                if self.get_all:
                    return input_grads, weight_grads
                return weight_grads
            return input_grads if self.get_all else input_grads[0]

        return grad_fn
