"""Parameter and ParameterTuple: values owned, set_data checks, clone, names."""
import copy
import pickle

import numpy as np
import pytest

import minispore as ms
from minispore import Parameter, ParameterTuple, Tensor


def test_parameter_owns_a_copy_of_its_data():
    source = np.array([1.0, 2.0], np.float32)
    p = Parameter(source, name="p")
    source[0] = 9.0
    assert p.asnumpy().tolist() == [1.0, 2.0]
    t = Tensor([3.0])
    q = Parameter(t)
    assert q.name == "Parameter" and q.requires_grad and q.dtype == ms.float32
    assert isinstance(q, Tensor) and (q * 2).asnumpy().tolist() == [6.0]


def test_set_data_keeps_shape_and_dtype():
    p = Parameter(Tensor([1.0, 2.0]), name="w")
    p.set_data(Tensor([3.0, 4.0]))
    assert p.asnumpy().tolist() == [3.0, 4.0]
    p.set_data([5, 6])          # Python values are converted to the parameter's dtype
    assert p.dtype == ms.float32 and p.asnumpy().tolist() == [5.0, 6.0]
    with pytest.raises(ValueError, match=r"Parameter w: set_data with shape \(3,\).*\(2,\)"):
        p.set_data(Tensor([1.0, 2.0, 3.0]))
    with pytest.raises(TypeError, match="Parameter w: set_data with dtype Float64.*Float32"):
        p.set_data(Tensor(np.array([1.0, 2.0])))
    with pytest.raises(TypeError, match="dtype Int64"):
        p.set_data(np.array([1, 2]))
    assert p.dtype == ms.float32


def test_clone_and_parameter_tuple_clone():
    p = Parameter(Tensor([1.0, 2.0]), name="fc.weight", requires_grad=False)
    c = p.clone()
    assert c is not p and c.name == "fc.weight" and not c.requires_grad
    c.set_data(Tensor([0.0, 0.0]))
    assert p.asnumpy().tolist() == [1.0, 2.0]
    z = p.clone(init="zeros")
    assert z.asnumpy().tolist() == [0.0, 0.0] and z.dtype == ms.float32
    pt = ParameterTuple([p, Parameter(Tensor(1.0), name="b")])
    moments = pt.clone(prefix="moment1", init="zeros")
    assert isinstance(moments, ParameterTuple)
    assert [m.name for m in moments] == ["moment1.fc.weight", "moment1.b"]
    with pytest.raises(TypeError, match="ParameterTuple holds Parameters"):
        ParameterTuple([Tensor(1.0)])


def test_pickle_and_deepcopy_keep_name_and_values():
    p = Parameter(Tensor([1.5]), name="w", requires_grad=False)
    for q in (pickle.loads(pickle.dumps(p)), copy.deepcopy(p)):
        assert isinstance(q, Parameter) and q.name == "w" and not q.requires_grad
        assert q.asnumpy().tolist() == [1.5]


def test_bad_arguments():
    with pytest.raises(TypeError, match="requires_grad must be a bool"):
        Parameter(Tensor(1.0), requires_grad="yes")
    with pytest.raises(TypeError, match="name must be a str"):
        Parameter(Tensor(1.0), name=3)
