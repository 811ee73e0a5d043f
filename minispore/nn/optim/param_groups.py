"""Parsing an optimizer's `params`: a list of Parameters, or of group dicts.

    >>> import minispore as ms
    >>> net = ms.nn.Dense(3, 1)
    >>> groups, order = parse_groups([{"params": [net.weight], "lr": 0.5},
    ...                               {"params": [net.bias], "weight_decay": 0.1}], 0.1, 0.0, "SGD")
    >>> [g["own_lr"] for g in groups], [p.name for p in order]
    ([True, False], ['weight', 'bias'])

A group dict has 'params' and optionally 'lr', 'weight_decay' (a number or a schedule Cell of
the step) and 'grad_centralization'; one extra dict {'order_params': [...]} may fix the order
in which gradients arrive (MindSpore's rules and keys).
"""
from ...core.parameter import Parameter
from .. import validation as V
from ..cell import Cell

GROUP_KEYS = ("params", "lr", "weight_decay", "grad_centralization")


def weight_decay_value(value, owner):
    """A weight decay: a non-negative number, or a Cell mapping the step to one (dynamic)."""
    if isinstance(value, Cell):
        return value
    return V.number_in(value, "weight_decay", owner, 0.0, float("inf"))


def parse_groups(parameters, learning_rate, weight_decay, owner):
    """(groups, order): groups [{'params', 'lr', 'own_lr', 'weight_decay', 'grouped',
    'grad_centralization'}] and the Parameters in gradient order. 'grouped' is False only for
    a plain list: then, as in MindSpore, weight decay skips names containing 'beta' or 'gamma'
    (normalisation layers); in groups it applies to every parameter of the group."""
    if isinstance(parameters, Parameter):
        raise TypeError(f"{owner}: params must be a list of Parameters (or of group dicts), "
                        f"got a single Parameter")
    items = list(parameters)
    if not items:
        raise ValueError(f"{owner}: the parameter list is empty")
    weight_decay = weight_decay_value(weight_decay, owner)
    if not all(isinstance(item, dict) for item in items):
        check_parameters(items, owner)
        return [{"params": items, "lr": learning_rate, "own_lr": False,
                 "weight_decay": weight_decay, "grouped": False,
                 "grad_centralization": False}], items
    groups, order = [], None
    for item in items:
        if "order_params" in item:
            order = list(item["order_params"])
            continue
        unknown = set(item) - set(GROUP_KEYS)
        if unknown or "params" not in item:
            raise ValueError(f"{owner}: a parameter group needs 'params' and may have "
                             f"{GROUP_KEYS[1:]}; got keys {sorted(item)}")
        params = list(item["params"])
        check_parameters(params, owner)
        groups.append({
            "params": params, "lr": item.get("lr"), "own_lr": "lr" in item,
            "weight_decay": weight_decay_value(item.get("weight_decay", weight_decay), owner),
            "grouped": True,
            "grad_centralization": V.boolean(item.get("grad_centralization", False),
                                             "grad_centralization", owner)})
    grouped = [p for g in groups for p in g["params"]]
    check_unique(grouped, owner)
    if order is None:
        return groups, grouped
    if {id(p) for p in order} != {id(p) for p in grouped} or len(order) != len(grouped):
        raise ValueError(f"{owner}: order_params must list every grouped parameter exactly once")
    return groups, order


def check_parameters(params, owner):
    for p in params:
        if not isinstance(p, Parameter):
            raise TypeError(f"{owner}: params must be Parameters, got {type(p).__name__}")
    check_unique(params, owner)


def check_unique(params, owner):
    seen = set()
    for p in params:
        if id(p) in seen:
            raise ValueError(f"{owner}: parameter {p.name} is given twice")
        seen.add(id(p))
