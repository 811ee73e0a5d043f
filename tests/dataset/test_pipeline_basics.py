"""minispore.dataset: sources, batch / shuffle / map / repeat, iterators, seeded shuffling."""
import numpy as np
import pytest
from data_helpers import rows

import minispore as ms
import minispore.dataset as ds
from minispore.core import seed as seed_state


def test_numpy_slices_tuple_columns_and_batches():
    x = np.arange(20, dtype=np.float32).reshape(10, 2)
    y = np.arange(10)
    data = ds.NumpySlicesDataset((x, y), column_names=["x", "y"], shuffle=False)
    assert data.get_col_names() == ["x", "y"] and data.get_dataset_size() == 10
    batched = data.batch(4)
    assert batched.get_dataset_size() == 3 and batched.get_batch_size() == 4
    batches = list(batched.create_tuple_iterator())
    assert [len(b) for b in batches] == [2, 2, 2]
    xb, yb = batches[0]
    assert isinstance(xb, ms.Tensor) and xb.shape == (4, 2) and xb.dtype == ms.float32
    assert yb.dtype == ms.int64
    np.testing.assert_array_equal(xb.asnumpy(), x[:4])
    assert batches[-1][1].asnumpy().tolist() == [8, 9]
    assert data.batch(4, drop_remainder=True).get_dataset_size() == 2
    assert [b[1] for b in rows(data.batch(4, drop_remainder=True))] == [[0, 1, 2, 3],
                                                                                [4, 5, 6, 7]]


def test_numpy_slices_dict_list_and_array_inputs():
    data = ds.NumpySlicesDataset({"a": [1, 2, 3], "b": np.ones((3, 2))}, shuffle=False)
    assert data.get_col_names() == ["a", "b"]
    assert rows(data)[2] == [3, [1.0, 1.0]]
    single = ds.NumpySlicesDataset([[1, 2], [3, 4]], shuffle=False)
    assert single.get_col_names() == ["column_0"] and rows(single) == [[[1, 2]], [[3, 4]]]
    assert rows(ds.NumpySlicesDataset(np.arange(3), ["n"], shuffle=False)) == [[0], [1], [2]]


def test_numpy_slices_errors():
    with pytest.raises(ValueError, match="different numbers of rows"):
        ds.NumpySlicesDataset((np.zeros(3), np.zeros(4)))
    with pytest.raises(ValueError, match="2 column name"):
        ds.NumpySlicesDataset(np.zeros(3), ["a", "b"])
    with pytest.raises(ValueError, match="pass a tuple of arrays"):
        ds.NumpySlicesDataset([np.zeros((3, 2)), np.zeros(3)])


def test_shuffle_is_a_permutation_seeded_and_new_each_epoch():
    def orders():
        data = ds.NumpySlicesDataset(np.arange(50), ["n"], shuffle=True)
        iterator = data.create_tuple_iterator(num_epochs=2, output_numpy=True)
        return [[int(n) for (n,) in iterator] for _ in range(2)]

    first, second = orders()
    assert sorted(first) == list(range(50)) and sorted(second) == list(range(50))
    assert first != list(range(50)) and first != second  # shuffled, differently per epoch
    assert orders() == [first, second]  # same seed, same orders
    ds.config.set_seed(124)
    assert orders() != [first, second]


def test_fresh_iterators_still_get_a_new_order_each_epoch():
    data = ds.NumpySlicesDataset(np.arange(30), ["n"])
    epochs = [[r[0] for r in rows(data)] for _ in range(3)]
    assert all(sorted(e) == list(range(30)) for e in epochs)
    assert epochs[0] != epochs[1] != epochs[2]


def test_global_seed_is_used_without_a_dataset_seed():
    ds.config._seed = None
    old = ms.common.seed.get_seed()
    try:
        ms.common.seed.set_seed(7)
        assert ds.config.get_seed() == 7
        ds.config.set_seed(9)
        assert ds.config.get_seed() == 9
    finally:
        seed_state._seed = old  # (get_seed() may have been None: no public way back)


def test_buffer_shuffle_keeps_every_row():
    data = ds.NumpySlicesDataset(np.arange(40), ["n"], shuffle=False).shuffle(buffer_size=8)
    order = [r[0] for r in rows(data)]
    assert sorted(order) == list(range(40)) and order != list(range(40))
    # a row can move at most buffer_size - 1 places earlier than its position
    assert all(order.index(n) >= n - 7 for n in range(40))
    with pytest.raises(ValueError, match="buffer_size must be an int >= 2"):
        data.shuffle(1)


def test_iterator_runs_num_epochs_then_stops():
    data = ds.NumpySlicesDataset(np.arange(3), ["n"], shuffle=False)
    iterator = data.create_tuple_iterator(num_epochs=2, output_numpy=True)
    assert [len(list(iterator)) for _ in range(3)] == [3, 3, 0]
    assert [int(r[0]) for r in data] == [0, 1, 2]  # iterating a dataset runs one epoch
    with pytest.raises(ValueError, match="num_epochs"):
        data.create_tuple_iterator(num_epochs=0)


def test_dict_iterator_and_column_selection():
    data = ds.NumpySlicesDataset({"a": np.arange(2), "b": np.arange(2) * 10}, shuffle=False)
    first = next(iter(data.create_dict_iterator()))
    assert set(first) == {"a", "b"} and int(first["b"].asnumpy()) == 0
    assert isinstance(first["a"], ms.Tensor)
    assert rows(data, columns=["b"]) == [[0], [10]]
    with pytest.raises(ValueError, match="no column named 'c'"):
        data.create_tuple_iterator(columns=["c"])


def test_generator_dataset_sources():
    def gen():
        for i in range(5):
            yield np.array([i, i]), np.array(i * i)

    from_gen = ds.GeneratorDataset(gen, ["pair", "square"])
    assert from_gen.get_dataset_size() == 5  # counted by one pass
    assert rows(from_gen.batch(2))[1] == [[[2, 2], [3, 3]], [4, 9]]

    class Squares:
        def __getitem__(self, i):
            return np.array(i), np.array(i * i)

        def __len__(self):
            return 6

    random_access = ds.GeneratorDataset(Squares(), ["i", "sq"])  # shuffled by default
    got = rows(random_access)
    assert sorted(got) == [[i, i * i] for i in range(6)] and got != sorted(got)
    assert rows(ds.GeneratorDataset(Squares(), ["i", "sq"], shuffle=False, num_samples=2)) == [
        [0, 0], [1, 1]]
    assert rows(ds.GeneratorDataset(iter([1.5, 2.5]), "v")) == [[1.5], [2.5]]


def test_generator_dataset_errors():
    with pytest.raises(ValueError, match="needs a random-accessible source"):
        ds.GeneratorDataset(lambda: iter([1]), ["x"], shuffle=True)
    with pytest.raises(TypeError, match="must be callable, iterable or random-accessible"):
        ds.GeneratorDataset(3, ["x"])
    with pytest.raises(ValueError, match="column_names is required"):
        ds.GeneratorDataset([1], None)
    bad = ds.GeneratorDataset(lambda: iter([(1, 2, 3)]), ["a", "b"])
    with pytest.raises(RuntimeError, match="row 0: ValueError: the source gave 3 value"):
        rows(bad)


def test_batch_of_ragged_rows_is_a_clear_error():
    data = ds.GeneratorDataset(lambda: iter([np.zeros(2), np.zeros(3)]), ["v"]).batch(2)
    with pytest.raises(RuntimeError, match=r"'v' has rows of different shapes \[\(2,\), \(3,\)\]"):
        rows(data)


def test_map_replaces_columns_and_chains_operations():
    data = ds.NumpySlicesDataset({"x": np.arange(3), "y": np.arange(3)}, shuffle=False)
    doubled = data.map([lambda x: x * 2, lambda x: x + 1], input_columns="y")
    assert doubled.get_col_names() == ["x", "y"] and rows(doubled)[2] == [2, 5]
    first_column = data.map(lambda x: -x)
    assert rows(first_column)[1] == [-1, 1]
    split = data.map(lambda x: (x, x * 10), input_columns=["x"], output_columns=["x0", "x1"])
    assert split.get_col_names() == ["x0", "x1", "y"] and rows(split)[2] == [2, 20, 2]
    to_tensor = data.map(lambda x: ms.Tensor(x, ms.float32), input_columns="x")
    assert next(iter(to_tensor))[0].dtype == ms.float32
    with pytest.raises(ValueError, match="no column named 'z'"):
        data.map(lambda z: z, input_columns="z")
    with pytest.raises(RuntimeError, match="set output_columns"):
        rows(data.map(lambda x: (x, x), input_columns="x"))
    with pytest.raises(TypeError, match="callable"):
        data.map(3)
    assert rows(data.batch(2).map(lambda y: y.sum(), "y")) == [[[0, 1], 1], [[2], 2]]


def test_repeat():
    data = ds.NumpySlicesDataset(np.arange(3), ["n"], shuffle=False).repeat(2)
    assert data.get_dataset_size() == 6 and [r[0] for r in rows(data)] == [0, 1, 2, 0, 1, 2]
