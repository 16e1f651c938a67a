"""Sentiment with negation: an LSTM over variable-length sentences, without padding.

    python examples/sentiment_lstm.py

Each generated sentence is a few filler words around one sentiment word, drawn
from a "positive" or a "negative" group; in half of the sentences a negation
word right before it flips the meaning. So every sentiment word, and the
negation word, occurs in both classes: the label is the XOR of "positive
word" and "negated", which no linear function of averaged word embeddings
(examples/text_classification.py's model) can separate, and which an LSTM
reading the words in order learns in a few epochs. Sentences are 1 to 12
words long and go in as one LoDTensor:

    words   data("words", [-1, 1], int64, lod_level=1)   [total_words, 1], LoD [[lengths]]
    emb     embedding(words, [VOCAB, EMBED_DIM])          [total_words, EMBED_DIM], same LoD
    gates   fc(emb, 4 * HIDDEN)                           [total_words, 4 * HIDDEN]
    hidden  dynamic_lstm(gates, 4 * HIDDEN)[0]            [total_words, HIDDEN], same LoD
    pooled  sequence_pool(hidden, "max")                  [num_sentences, HIDDEN], no LoD
    logits  fc(pooled, 2)
    loss    mean(softmax_with_cross_entropy(logits, label))

dynamic_lstm's input is already projected to the four gates (candidate,
input, forget, output), as in Paddle, hence the fc of size 4 * HIDDEN before
it. The LSTM steps all sentences of a batch together, longest first, one
matrix product per time step. Training uses Adam through minimize(), which
appends the backward pass (lstm_grad included) and the update ops.
"""

from __future__ import annotations

import numpy as np

import paddle_ir as pir

FILLER = 40                 # ids 0..39: words that carry no sentiment
POSITIVE = range(40, 46)    # "good", "great", ...
NEGATIVE = range(46, 52)    # "bad", "awful", ...
NEGATION = 52               # "not"
VOCAB = 53
EMBED_DIM = 16
HIDDEN = 16
BATCH = 32


def make_corpus(num_sentences: int, seed: int) -> tuple[list[np.ndarray], np.ndarray]:
    """Sentences (int64 id arrays of 1..12 words) and labels (1 positive, 0 negative)."""
    rng = np.random.RandomState(seed)
    sentences, labels = [], []
    for _ in range(num_sentences):
        positive, negated = rng.rand() < 0.5, rng.rand() < 0.5
        sentiment = rng.choice(POSITIVE if positive else NEGATIVE)
        core = [NEGATION, sentiment] if negated else [sentiment]
        before = rng.randint(0, FILLER, size=rng.randint(0, 6))
        after = rng.randint(0, FILLER, size=rng.randint(0, 6))
        sentences.append(np.concatenate([before, core, after]).astype(np.int64))
        labels.append(int(positive != negated))
    return sentences, np.array(labels, dtype=np.int64)


def to_batch(sentences: list[np.ndarray], labels: np.ndarray) -> dict:
    """The feed of one mini-batch: words as a 1-level LoDTensor, labels as [n, 1]."""
    words = pir.create_lod_tensor(np.concatenate(sentences).reshape(-1, 1),
                                  [[len(s) for s in sentences]])
    return {"words": words, "label": labels.reshape(-1, 1)}


def build(main: pir.Program, startup: pir.Program, learning_rate: float = 0.01):
    """The network and its optimizer; returns (loss, accuracy, test program)."""
    main.random_seed = startup.random_seed = 7
    with pir.program_guard(main, startup):
        words = pir.layers.data("words", [-1, 1], dtype="int64", lod_level=1)
        label = pir.layers.data("label", [-1, 1], dtype="int64")
        emb = pir.layers.embedding(words, size=[VOCAB, EMBED_DIM])
        gates = pir.layers.fc(emb, 4 * HIDDEN)
        hidden, _cell = pir.layers.dynamic_lstm(gates, 4 * HIDDEN)
        pooled = pir.layers.sequence_pool(hidden, "max")
        logits = pir.layers.fc(pooled, 2)
        loss = pir.layers.mean(pir.layers.softmax_with_cross_entropy(logits, label))
        acc = pir.layers.accuracy(pir.layers.softmax(logits), label)
        test_program = main.clone(for_test=True)
        pir.optimizer.Adam(learning_rate=learning_rate).minimize(loss)
    return loss, acc, test_program


def evaluate(exe, program, acc, sentences, labels) -> float:
    correct = 0.0
    for start in range(0, len(sentences), BATCH):
        batch = slice(start, start + BATCH)
        (a,) = exe.run(program, feed=to_batch(sentences[batch], labels[batch]),
                       fetch_list=[acc])
        correct += float(a) * len(labels[batch])
    return correct / len(sentences)


def main(epochs: int = 4, num_train: int = 1024, num_test: int = 256,
         verbose: bool = True) -> dict:
    train_x, train_y = make_corpus(num_train, seed=0)
    test_x, test_y = make_corpus(num_test, seed=1)
    main_program, startup = pir.Program(), pir.Program()
    loss, acc, test_program = build(main_program, startup)

    exe = pir.Executor()
    with pir.scope_guard(pir.Scope()):
        exe.run(startup)
        before = after = evaluate(exe, test_program, acc, test_x, test_y)
        losses = []
        for epoch in range(epochs):
            for start in range(0, num_train, BATCH):
                batch = slice(start, start + BATCH)
                (value,) = exe.run(main_program, feed=to_batch(train_x[batch], train_y[batch]),
                                   fetch_list=[loss])
                losses.append(float(value))
            after = evaluate(exe, test_program, acc, test_x, test_y)
            if verbose:
                steps = -(-num_train // BATCH)
                print(f"epoch {epoch}: mean loss {np.mean(losses[-steps:]):.4f}, "
                      f"test accuracy {after:.3f}")
    if verbose:
        print(f"test accuracy: {before:.3f} before training, {after:.3f} after (chance 0.5)")
    return {"accuracy_before": before, "accuracy": after, "losses": losses}


if __name__ == "__main__":
    main()
