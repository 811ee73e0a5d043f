"""An LSTM sentiment classifier in the style of MindSpore's RNN sentiment tutorial, on
synthetic reviews (nothing is downloaded).

    python -m minispore.examples.sentiment_lstm                 # PyNative mode
    python -m minispore.examples.sentiment_lstm --mode graph    # the same script in Graph mode

A review is a padded sequence of token ids of its own length: some tokens are "positive"
words, some "negative", the rest neutral; its label is 1 when it holds more positive than
negative words. The model is the tutorial's: Embedding (padding_idx 0) -> bidirectional LSTM
(batch_first, seq_length for the padding) -> the last hidden states of both directions
concatenated -> Dense -> one logit, trained with BCEWithLogitsLoss and Adam. It reports the
test accuracy and exits with status 1 below the floor (90%).
"""
import argparse
import sys
from dataclasses import dataclass

import numpy as np

import minispore as ms
from minispore import nn, ops

VOCAB, MAX_LEN = 24, 12
POSITIVE, NEGATIVE = range(2, 6), range(6, 10)   # the other ids >= 10 are neutral; 0 pads
FLOOR = 0.9
MODES = {"pynative": ms.PYNATIVE_MODE, "graph": ms.GRAPH_MODE}


def make_reviews(count, seed):
    """(tokens (count, MAX_LEN) int32 zero-padded, lengths (count,) int32, labels (count, 1)
    float32); ties between positive and negative words are redrawn."""
    rng = np.random.default_rng(seed)
    tokens = np.zeros((count, MAX_LEN), np.int32)
    lengths = rng.integers(4, MAX_LEN + 1, count).astype(np.int32)
    labels = np.zeros((count, 1), np.float32)
    for i, n in enumerate(lengths):
        while True:
            words = rng.integers(2, VOCAB, n)
            pos, neg = np.isin(words, POSITIVE).sum(), np.isin(words, NEGATIVE).sum()
            if pos != neg:
                break
        tokens[i, :n], labels[i, 0] = words, float(pos > neg)
    return tokens, lengths, labels


class SentimentNet(nn.Cell):
    """Embedding -> bidirectional LSTM -> [h_forward, h_backward] -> Dense: one logit."""

    def __init__(self, embedding_dim=8, hidden_dim=16):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, embedding_dim, padding_idx=0)
        self.rnn = nn.LSTM(embedding_dim, hidden_dim, num_layers=1, bidirectional=True,
                           batch_first=True)
        self.fc = nn.Dense(hidden_dim * 2, 1)

    def construct(self, tokens, lengths):
        embedded = self.embedding(tokens)
        _, (hidden, _) = self.rnn(embedded, seq_length=lengths)
        hidden = ops.concat((hidden[-2, :, :], hidden[-1, :, :]), axis=1)
        return self.fc(hidden)


class WithLoss(nn.Cell):
    def __init__(self, net):
        super().__init__()
        self.net, self.loss = net, nn.BCEWithLogitsLoss()

    def construct(self, tokens, lengths, labels):
        return self.loss(self.net(tokens, lengths), labels)


@dataclass
class Result:
    losses: list      # mean training loss of each epoch
    accuracy: float   # on the held-out reviews


def train(mode=ms.PYNATIVE_MODE, epochs=12, batch_size=32, train_size=384, test_size=256,
          seed=0):
    """Train a SentimentNet in `mode` and evaluate it; the same seed gives the same run in
    both modes."""
    ms.set_context(mode=mode)
    ms.set_seed(seed)
    tokens, lengths, labels = make_reviews(train_size, seed)
    net = SentimentNet()
    step = nn.TrainOneStepCell(WithLoss(net), nn.Adam(net.trainable_params(), 0.02))
    step.set_train(True)
    losses = []
    for _ in range(epochs):
        batch_losses = []
        for start in range(0, train_size, batch_size):
            part = slice(start, start + batch_size)
            batch_losses.append(float(step(ms.Tensor(tokens[part]), ms.Tensor(lengths[part]),
                                           ms.Tensor(labels[part])).asnumpy()))
        losses.append(float(np.mean(batch_losses)))
    test_tokens, test_lengths, test_labels = make_reviews(test_size, seed + 1)
    net.set_train(False)
    logits = net(ms.Tensor(test_tokens), ms.Tensor(test_lengths)).asnumpy()
    accuracy = float(((logits > 0) == (test_labels > 0.5)).mean())
    return Result(losses, accuracy)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mode", choices=sorted(MODES), default="pynative")
    parser.add_argument("--epochs", type=int, default=12)
    args = parser.parse_args(argv)
    result = train(MODES[args.mode], args.epochs)
    for epoch, loss in enumerate(result.losses, 1):
        print(f"epoch {epoch:2d}  loss {loss:.4f}")
    print(f"test accuracy {result.accuracy:.3f} (floor {FLOOR})")
    return 0 if result.accuracy >= FLOOR else 1


if __name__ == "__main__":
    sys.exit(main())
