"""dataset.text: vocabularies, tokenizers (with byte offsets), Lookup, ToNumber."""
import numpy as np
import pytest
from data_helpers import rows

import minispore as ms
import minispore.dataset as ds
from minispore.dataset import text, transforms


def test_tokenizers_and_offsets():
    assert text.WhitespaceTokenizer()(np.array(" a  bc\td\n")).tolist() == ["a", "bc", "d"]
    tokens, starts, ends = text.WhitespaceTokenizer(with_offsets=True)(np.array("héllo wörld"))
    assert tokens.tolist() == ["héllo", "wörld"]
    assert starts.tolist() == [0, 7] and ends.tolist() == [6, 13]  # UTF-8 bytes: é, ö are 2
    assert text.UnicodeCharTokenizer()(np.array("añb")).tolist() == ["a", "ñ", "b"]
    assert text.RegexTokenizer(r"\s+|,", keep_delim_pattern=",")(
        np.array("a, b c")).tolist() == ["a", ",", "b", "c"]
    assert text.PythonTokenizer(str.split)(np.array("x y")).tolist() == ["x", "y"]
    with pytest.raises(TypeError, match="one string"):
        text.WhitespaceTokenizer()(np.array(["a", "b"]))


def test_basic_tokenizer():
    basic = text.BasicTokenizer()
    assert basic(np.array("Hello, [CLS] world!你好")).tolist() == [
        "Hello", ",", "[CLS]", "world", "!", "你", "好"]
    assert text.BasicTokenizer(lower_case=True)(np.array("Ünïcode ÄND")).tolist() == [
        "unicode", "and"]
    assert text.BasicTokenizer(preserve_unused_token=False)(np.array("[SEP]")).tolist() == [
        "[", "SEP", "]"]
    assert text.BasicTokenizer(keep_whitespace=True)(np.array("a  b")).tolist() == [
        "a", "  ", "b"]


def test_vocab_lookup_and_from_dataset(tmp_path):
    vocab = text.Vocab.from_list(["cat", "dog"], special_tokens=["<pad>", "<unk>"])
    assert vocab.vocab() == {"<pad>": 0, "<unk>": 1, "cat": 2, "dog": 3}
    assert text.Vocab.from_list(["a"], ["<unk>"], special_first=False).vocab() == {
        "a": 0, "<unk>": 1}
    lookup = text.Lookup(vocab, unknown_token="<unk>")
    ids = lookup(np.array(["dog", "emu", "cat"]))
    assert ids.tolist() == [3, 1, 2] and ids.dtype == np.int32
    with pytest.raises(RuntimeError, match="'emu' is not in the vocab"):
        text.Lookup(vocab)(np.array(["emu"]))
    (tmp_path / "vocab.txt").write_text("the,9\ncat,3\nthe,1\n")
    assert text.Vocab.from_file(str(tmp_path / "vocab.txt"), ",").vocab() == {"the": 0, "cat": 1}

    lines = ds.NumpySlicesDataset(np.array(["b a b", "c b", "a b"]), ["line"], shuffle=False)
    tokens = lines.map(text.WhitespaceTokenizer(), "line")
    counted = text.Vocab.from_dataset(tokens, "line", special_tokens=["<unk>"])
    assert counted.vocab() == {"<unk>": 0, "b": 1, "a": 2, "c": 3}  # by count, then name
    assert text.Vocab.from_dataset(tokens, top_k=1).vocab() == {"b": 0}
    assert text.Vocab.from_dataset(tokens, freq_range=(1, 2)).vocab() == {"a": 0, "c": 1}


def test_nlp_pipeline_to_padded_ids():
    lines = ds.NumpySlicesDataset(np.array(["the cat sat", "the dog"]), ["text"], shuffle=False)
    vocab = text.Vocab.from_list(["the", "cat", "sat"], special_tokens=["<pad>", "<unk>"])
    ids = lines.map([text.WhitespaceTokenizer(), text.Lookup(vocab, "<unk>"),
                     transforms.PadEnd([4], pad_value=0), transforms.TypeCast(ms.int32)], "text")
    assert rows(ids.batch(2)) == [[[[2, 3, 4, 0], [2, 1, 0, 0]]]]


def test_to_number_truncate_case_fold_normalize():
    assert text.ToNumber(ms.int32)(np.array(["3", "-7"])).tolist() == [3, -7]
    assert text.ToNumber(np.float32)(np.array("2.5")).tolist() == 2.5
    with pytest.raises(RuntimeError, match="ToNumber"):
        text.ToNumber(ms.int8)(np.array(["300"]))
    assert text.Truncate(2)(np.array([5, 6, 7])).tolist() == [5, 6]
    assert text.CaseFold()(np.array(["ẞTRASSE"])).tolist() == ["sstrasse"]
    assert text.NormalizeUTF8(text.NormalizeForm.NFKC)(np.array("ﬁ")).tolist() == "fi"
