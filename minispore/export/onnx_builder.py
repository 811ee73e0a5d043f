"""Building an ONNX graph node by node: names for minispore's values, initializers for
parameters and constants, fresh names for intermediate results."""
import numpy as np


class OnnxBuilder:
    """Collects ONNX nodes and initializers while a minispore Graph is translated."""

    def __init__(self, onnx):
        self.onnx = onnx                # the onnx module (an optional dependency, passed in)
        self.nodes = []
        self.initializers = []
        self._names = {}                # Var id -> ONNX value name
        self._count = 0

    def fresh(self, hint="t"):
        self._count += 1
        return f"{hint}_{self._count}"

    def name_of(self, var):
        """The ONNX name of a minispore Var; a constant becomes an initializer on first use."""
        name = self._names.get(var.id)
        if name is None:
            if var.const is not None:
                name = self.constant(np.asarray(var.const), f"const{var.id}")
            else:
                name = f"v{var.id}"
            self._names[var.id] = name
        return name

    def bind_name(self, var, name):
        """Give `var` a chosen name (graph inputs, parameters)."""
        self._names[var.id] = name

    def constant(self, array, hint="c"):
        """An initializer holding `array`; returns its name."""
        name = self.fresh(hint)
        self.initializers.append(self.onnx.numpy_helper.from_array(np.asarray(array), name))
        return name

    def ints(self, values):
        return self.constant(np.asarray(list(values), np.int64), "ints")

    def scalar_like(self, value, dtype):
        return self.constant(np.asarray(value, dtype), "scalar")

    def add(self, op_type, inputs, n_outputs=1, outputs=None, **attrs):
        """Append one ONNX node; returns its output name (or names, for several)."""
        outputs = outputs or [self.fresh(op_type.lower()) for _ in range(n_outputs)]
        self.nodes.append(self.onnx.helper.make_node(op_type, list(inputs), list(outputs),
                                                     **attrs))
        return outputs[0] if len(outputs) == 1 else outputs
