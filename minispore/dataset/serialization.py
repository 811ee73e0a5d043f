"""serialize / deserialize / show / compare: a pipeline as a JSON tree.

    >>> import numpy as np

from ..core import dtype as ms_dtype
    >>> import minispore.dataset as ds
    >>> data = ds.NumpySlicesDataset({"x": np.arange(4)}, shuffle=False).batch(2)
    >>> tree = ds.serialize(data)
    >>> tree["op_type"], tree["children"][0]["op_type"]
    ('BatchDataset', 'NumpySlicesDataset')
    >>> ds.compare(ds.deserialize(input_dict=tree), data)
    True

Every dataset node and transform records the arguments it was built with (`record_init`);
a node is ``{"op_type": class, "op_module": module, <argument>: <value>, ...,
"children": [input nodes]}`` (MindSpore's keys op_type / children; its other keys are its
C++ engine's, so its files do not load here, nor ours there). A transform is
``{"tensor_op_name": class, "python_module": module, "tensor_op_params": {...}}``; numpy
arrays, tuples, enums and minispore dtypes are tagged so deserialize rebuilds them. A Python
function is written by module and name (a sampler by its class and arguments) and rebuilt
only if importable there (a lambda or a nested function is not: deserialize raises).
"""
import enum
import functools
import importlib
import inspect
import json
from typing import Any, Dict, List, Optional

import numpy as np

from ..core import dtype as ms_dtype

__all__ = ["record_init", "serialize", "deserialize", "show", "compare"]


def record_init(cls: type, kind: str = "object") -> None:
    """Make `cls.__init__` record its arguments on the instance (the outermost call wins, so
    a subclass's arguments are kept, not those it passes to its base). `kind` ("dataset",
    "transform" or "object") says how serialize writes the instances."""
    cls._serial_kind = kind  # type: ignore[attr-defined]
    init = cls.__dict__.get("__init__")
    if init is None or getattr(init, "_records", False):
        return

    @functools.wraps(init)
    def recording(self, *args, **kwargs):
        if "_init_record" not in self.__dict__:
            self.__dict__["_init_record"] = (type(self), args, kwargs)
        init(self, *args, **kwargs)

    recording._records = True  # type: ignore[attr-defined]
    cls.__init__ = recording  # type: ignore[misc]


def _arguments(obj: Any, api: str) -> Dict[str, Any]:
    record = obj.__dict__.get("_init_record")
    if record is None and type(obj).__init__ is object.__init__:
        return {}  # built without arguments
    if record is None or record[0] is not type(obj):
        raise TypeError(f"{api}: {type(obj).__name__} did not record how it was built; it "
                        f"cannot be serialized")
    cls, args, kwargs = record
    bound = inspect.signature(cls.__init__).bind(obj, *args, **kwargs)
    named = dict(bound.arguments)
    named.pop(next(iter(named)))  # self
    for name, parameter in inspect.signature(cls.__init__).parameters.items():
        if parameter.kind is inspect.Parameter.VAR_KEYWORD and name in named:
            named.update(named.pop(name))
    return named


def serialize(dataset: Any, json_filepath: str = "") -> Dict[str, Any]:
    """The pipeline ending at `dataset` as a dict (also written to `json_filepath` if given).

    Example:
        >>> tree = ds.serialize(data, "pipeline.json")    # doctest: +SKIP
    """
    tree = _node(dataset)
    if json_filepath:
        with open(json_filepath, "w", encoding="utf-8") as f:
            json.dump(tree, f, indent=2)
    return tree


def _node(dataset: Any) -> Dict[str, Any]:
    children: List[Dict[str, Any]] = []
    params = {name: _encode(value, children)
              for name, value in _arguments(dataset, "serialize").items()}
    return {"op_type": type(dataset).__name__, "op_module": type(dataset).__module__,
            **params, "children": children}


def _encode(value: Any, children: List[Dict[str, Any]]) -> Any:
    kind = getattr(type(value), "_serial_kind", None)
    if kind == "dataset":
        children.append(_node(value))
        return {"__child__": len(children) - 1}
    if kind == "transform":
        params = {k: _encode(v, children)
                  for k, v in _arguments(value, "serialize").items()}
        return {"tensor_op_name": type(value).__name__, "python_module": type(value).__module__,
                "tensor_op_params": params}
    if "_init_record" in getattr(value, "__dict__", {}):  # a sampler
        params = {k: _encode(v, children) for k, v in _arguments(value, "serialize").items()}
        return {"python_class": type(value).__qualname__, "python_module": type(value).__module__,
                "params": params}
    if isinstance(value, enum.Enum):
        return {"__enum__": f"{type(value).__module__}:{type(value).__qualname__}",
                "name": value.name}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, np.generic):
        return {"__ndarray__": value.tolist(), "dtype": str(value.dtype), "scalar": True}
    if isinstance(value, np.ndarray):
        return {"__ndarray__": value.tolist(), "dtype": str(value.dtype)}
    if isinstance(value, np.dtype) or (isinstance(value, type) and issubclass(value, np.generic)):
        return {"__np_dtype__": np.dtype(value).name}
    if isinstance(value, tuple):
        return {"__tuple__": [_encode(v, children) for v in value]}
    if isinstance(value, list):
        return [_encode(v, children) for v in value]
    if isinstance(value, dict):
        return {"__dict__": [[_encode(k, children), _encode(v, children)]
                             for k, v in value.items()]}
    if type(value).__module__ == "minispore.core.dtype":
        return {"__ms_dtype__": str(value)}
    module, name = getattr(value, "__module__", None), getattr(value, "__qualname__", None)
    if callable(value) and module and name:
        return {"python_function": name, "python_module": module}
    return {"python_object": repr(value)}


def deserialize(input_dict: Optional[Dict[str, Any]] = None,
                json_filepath: Optional[str] = None) -> Any:
    """The pipeline a `serialize` tree (or its JSON file) describes, built again.

    Example:
        >>> data = ds.deserialize(json_filepath="pipeline.json")    # doctest: +SKIP
    """
    if (input_dict is None) == (json_filepath is None):
        raise ValueError("deserialize: give one of input_dict and json_filepath")
    if json_filepath is not None:
        with open(json_filepath, encoding="utf-8") as f:
            input_dict = json.load(f)
    assert input_dict is not None
    return _build(input_dict)


def _build(node: Dict[str, Any]) -> Any:
    if not isinstance(node, dict) or "op_type" not in node:
        raise ValueError(f"deserialize: not a serialized dataset node: {node!r:.80}")
    cls = getattr(importlib.import_module(node["op_module"]), node["op_type"])
    children = [_build(child) for child in node.get("children", [])]
    kwargs = {k: _decode(v, children) for k, v in node.items()
              if k not in ("op_type", "op_module", "children")}
    return cls(**kwargs)


def _decode(value: Any, children: List[Any]) -> Any:
    if isinstance(value, list):
        return [_decode(v, children) for v in value]
    if not isinstance(value, dict):
        return value
    if "__child__" in value:
        return children[value["__child__"]]
    if "tensor_op_name" in value:
        cls = getattr(importlib.import_module(value["python_module"]), value["tensor_op_name"])
        return cls(**{k: _decode(v, children) for k, v in value["tensor_op_params"].items()})
    if "python_class" in value:
        cls = _attribute(importlib.import_module(value["python_module"]), value["python_class"])
        return cls(**{k: _decode(v, children) for k, v in value["params"].items()})
    if "__enum__" in value:
        module, qualname = value["__enum__"].split(":")
        return getattr(_attribute(importlib.import_module(module), qualname), value["name"])
    if "__ndarray__" in value:
        array = np.asarray(value["__ndarray__"], value["dtype"])
        return array[()] if value.get("scalar") else array
    if "__np_dtype__" in value:
        return np.dtype(value["__np_dtype__"])
    if "__tuple__" in value:
        return tuple(_decode(v, children) for v in value["__tuple__"])
    if "__dict__" in value:
        return {_decode(k, children): _decode(v, children) for k, v in value["__dict__"]}
    if "__ms_dtype__" in value:
        name = value["__ms_dtype__"].lower()
        return getattr(ms_dtype, name, None) or getattr(ms_dtype, name + "_")
    if "python_function" in value:
        name = value["python_function"]
        if "<" in name:
            raise ValueError(f"deserialize: {value['python_module']}.{name} (a lambda or a "
                             f"nested function) cannot be rebuilt; use a module-level function")
        return _attribute(importlib.import_module(value["python_module"]), name)
    if "python_object" in value:
        raise ValueError(f"deserialize: the object {value['python_object']} cannot be rebuilt")
    return value


def _attribute(module: Any, qualname: str) -> Any:
    target = module
    for part in qualname.split("."):
        target = getattr(target, part)
    return target


def show(dataset: Any, indent: int = 2) -> None:
    """Print the pipeline's tree as JSON.

    Example:
        >>> ds.show(data)    # doctest: +SKIP
    """
    print(json.dumps(serialize(dataset), indent=indent))


def compare(pipeline1: Any, pipeline2: Any) -> bool:
    """Whether two pipelines have the same nodes with the same arguments.

    Example:
        >>> ds.compare(data, ds.deserialize(input_dict=ds.serialize(data)))    # doctest: +SKIP
        True
    """
    return serialize(pipeline1) == serialize(pipeline2)
