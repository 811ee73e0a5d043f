"""Pipeline steps with MindSpore's signatures: batch (dynamic sizes, per_batch_map),
padded_batch, bucket_batch_by_length, take / skip / zip / concat / project / rename /
filter / split, queries and iterators."""
import numpy as np
import pytest
from data_helpers import column, rows

import minispore as ms
import minispore.dataset as ds


def numbers(n=10, **kwargs):
    return ds.NumpySlicesDataset(np.arange(n), ["n"], shuffle=False, **kwargs)


def ragged(lengths):
    return ds.GeneratorDataset(lambda: (np.arange(1, k + 1) for k in lengths), ["seq"])


def test_batch_with_callable_size_and_per_batch_map():
    growing = numbers(10).batch(lambda info: info.get_batch_num() + 1)
    assert [len(b) for b in column(growing)] == [1, 2, 3, 4]  # 1+2+3+4 = 10
    assert growing.get_dataset_size() == 4

    def square_and_tag(values, info):
        return [v * v for v in values], [np.array(info.get_batch_num())] * len(values)

    data = numbers(6).batch(3, per_batch_map=square_and_tag, input_columns=["n"],
                            output_columns=["sq", "batch"])
    assert data.get_col_names() == ["sq", "batch"]
    assert rows(data) == [[[0, 1, 4], [0, 0, 0]], [[9, 16, 25], [1, 1, 1]]]
    replaced = numbers(4).batch(2, per_batch_map=lambda v, info: ([x + 100 for x in v],))
    assert column(replaced) == [[100, 101], [102, 103]]


def test_batch_errors_name_the_batch():
    with pytest.raises(ValueError, match="batch_size must be an int >= 1"):
        numbers().batch(0)
    bad = numbers(4).batch(2, per_batch_map=lambda v, info: ([x for x in v], [1]))
    with pytest.raises(RuntimeError, match="batch 0 of epoch 0 failed.*set output_columns"):
        rows(bad)


def test_padded_batch_pads_to_the_largest_or_given_shape():
    data = ragged([1, 3, 2, 2])
    assert column(data.padded_batch(2, pad_info={})) == [[[1, 0, 0], [1, 2, 3]],
                                                         [[1, 2], [1, 2]]]
    assert column(data.padded_batch(2, pad_info={"seq": ([4], -1)})) == [
        [[1, -1, -1, -1], [1, 2, 3, -1]], [[1, 2, -1, -1], [1, 2, -1, -1]]]
    assert column(data.padded_batch(4, pad_info={"seq": ([2], 9)}))[0][1] == [1, 2]  # cut
    with pytest.raises(RuntimeError, match="different shapes"):
        rows(data.padded_batch(2))  # pad_info None: no padding
    with pytest.raises(ValueError, match="not one of"):
        data.padded_batch(2, pad_info={"other": (None, 0)})


def test_bucket_batch_by_length():
    data = ragged([1, 5, 2, 6, 3, 7, 1])
    buckets = data.bucket_batch_by_length(["seq"], [3, 6], [2, 2, 3], pad_info={})
    lengths = [[int((np.array(row) > 0).sum()) for row in batch] for batch in column(buckets)]
    # [0,3): 1, 2 -> full at the 3rd row; [3,6): 5, 3 -> full; the rest flushed in bucket order
    assert lengths == [[1, 2], [5, 3], [1], [6, 7]]
    to_boundary = data.bucket_batch_by_length(["seq"], [3, 6], [2, 2, 2],
                                              pad_info={"seq": ([None], 0)},
                                              pad_to_bucket_boundary=True, drop_remainder=True)
    with pytest.raises(RuntimeError, match="cannot be padded to a bucket boundary"):
        rows(to_boundary)
    short = ragged([1, 2, 4, 5]).bucket_batch_by_length(
        ["seq"], [3, 6], [2, 2, 3], pad_info={"seq": ([None], 0)}, pad_to_bucket_boundary=True)
    assert [np.asarray(b).shape for b in column(short)] == [(2, 2), (2, 5)]
    with pytest.raises(ValueError, match="len\\(bucket_boundaries\\) \\+ 1"):
        data.bucket_batch_by_length(["seq"], [3], [1, 2, 3])


def test_take_skip_repeat_and_endless_repeat():
    assert column(numbers(5).take(3)) == [0, 1, 2]
    assert numbers(5).take(9).get_dataset_size() == 5
    assert column(numbers(5).skip(3)) == [3, 4]
    assert numbers(5).skip(7).get_dataset_size() == 0
    endless = numbers(3).repeat()
    assert endless.get_dataset_size() == -1 and endless.get_repeat_count() == -1
    assert column(endless.take(7)) == [0, 1, 2, 0, 1, 2, 0]
    assert endless.take(7).get_dataset_size() == 7


def test_zip_concat_project_rename():
    a = numbers(3)
    b = ds.NumpySlicesDataset({"x": np.arange(5) * 10, "y": -np.arange(5)}, shuffle=False)
    zipped = a.zip(b)
    assert zipped.get_col_names() == ["n", "x", "y"] and zipped.get_dataset_size() == 3
    assert rows(zipped)[2] == [2, 20, -2]
    assert rows(ds.zip((a, b)))[1] == [1, 10, -1]
    with pytest.raises(ValueError, match="appear more than once"):
        a.zip(a)
    both = a + numbers(2)
    assert column(both) == [0, 1, 2, 0, 1] and both.get_dataset_size() == 5
    with pytest.raises(ValueError, match="every dataset needs the columns"):
        a.concat(b)
    assert rows(b.project(["y", "x"]))[1] == [-1, 10]
    renamed = b.rename(["x"], ["image"])
    assert renamed.get_col_names() == ["image", "y"] and rows(renamed)[4] == [40, -4]
    with pytest.raises(ValueError, match="repeat a name"):
        b.rename("x", "y")


def test_filter_and_its_errors():
    evens = numbers(10).filter(lambda n: n % 2 == 0)
    assert column(evens) == [0, 2, 4, 6, 8] and evens.get_dataset_size() == 5
    two = ds.NumpySlicesDataset({"a": np.arange(4), "b": np.arange(4)[::-1]}, shuffle=False)
    assert rows(two.filter(lambda b: b > 1, input_columns=["b"])) == [[0, 3], [1, 2]]
    with pytest.raises(RuntimeError, match="predicate failed on row 0: ZeroDivisionError"):
        rows(numbers().filter(lambda n: 1 // 0))


def test_split_sizes_follow_mindspore_rounding():
    from minispore.dataset.engine import split_sizes
    assert split_sizes([0.8, 0.2], 10) == [8, 2]
    assert split_sizes([0.33, 0.33, 0.34], 10) == [4, 3, 3]  # the shortfall goes to the first
    assert split_sizes([0.5, 0.25, 0.25], 3) == [1, 1, 1]  # round(0.75)=1 twice, 2 -> 1
    with pytest.raises(RuntimeError, match="sum to the dataset size 10"):
        split_sizes([3, 3], 10)
    with pytest.raises(RuntimeError, match="is empty"):
        split_sizes([0.99, 0.01], 10)


@pytest.mark.parametrize("randomize", [False, True])
def test_split_gives_disjoint_parts_covering_the_data(randomize):
    for source in (numbers(20), ds.GeneratorDataset(lambda: iter(range(20)), "n")):
        train, test = source.split([0.75, 0.25], randomize=randomize)
        got_train, got_test = column(train), column(test)
        assert len(got_train) == 15 and len(got_test) == 5
        assert sorted(got_train + got_test) == list(range(20))
        if not randomize:
            assert got_train == list(range(15))
    sharded = ds.NumpySlicesDataset(np.arange(4), ["n"], num_shards=2, shard_id=0)
    with pytest.raises(RuntimeError, match="before sharding"):
        sharded.split([1, 1])


def test_output_shapes_types_and_sizes():
    data = ds.NumpySlicesDataset((np.zeros((10, 2, 3), np.float32), np.arange(10, dtype=np.int32)),
                                 ["x", "y"]).batch(4, drop_remainder=True)
    assert data.output_shapes() == [[4, 2, 3], [4]]
    assert data.output_types() == [np.float32, np.int32]
    assert data.get_dataset_size() == 2 and data.get_batch_size() == 4
    with pytest.raises(RuntimeError, match="empty"):
        numbers(3).filter(lambda n: False).output_shapes()


def test_iterators_keep_strings_and_uint32_as_numpy():
    data = ds.NumpySlicesDataset({"word": np.array(["a", "bb"]),
                                  "id": np.arange(2, dtype=np.uint32),
                                  "v": np.ones(2, np.float32)}, shuffle=False)
    word, ident, value = next(iter(data.create_tuple_iterator()))
    assert isinstance(word, np.ndarray) and str(word) == "a"
    assert isinstance(ident, np.ndarray) and ident.dtype == np.uint32
    assert isinstance(value, ms.Tensor)
    assert next(iter(data.create_dict_iterator()))["word"].dtype.kind == "U"
