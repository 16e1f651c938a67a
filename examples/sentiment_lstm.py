"""Sentiment with negation: an LSTM over variable-length sentences, without padding.

    python examples/sentiment_lstm.py                # 4 epochs, saved to out/sentiment_lstm
    python examples/sentiment_lstm.py --epochs 2 --out /tmp/lstm

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

The script then saves the inference model words -> softmax(logits), the
probabilities of (negative, positive), to --out with four sample sentences as
a feed ("good", "not good", "bad", "not bad", each among filler words): their
ids stacked in words.npy, their lengths on the command line with --lod. It
ends by printing the `paddle-ir run` command that runs the model on them.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex

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
    """The network and its optimizer; returns (loss, accuracy, probabilities, test program)."""
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
        probs = pir.layers.softmax(logits)
        acc = pir.layers.accuracy(probs, label)
        test_program = main.clone(for_test=True)
        pir.optimizer.Adam(learning_rate=learning_rate).minimize(loss)
    return loss, acc, probs, test_program


def evaluate(exe, program, acc, sentences, labels) -> float:
    correct = 0.0
    for start in range(0, len(sentences), BATCH):
        batch = slice(start, start + BATCH)
        (a,) = exe.run(program, feed=to_batch(sentences[batch], labels[batch]),
                       fetch_list=[acc])
        correct += float(a[0]) * len(labels[batch])
    return correct / len(sentences)


def train(epochs: int = 4, num_train: int = 1024, num_test: int = 256,
          verbose: bool = True) -> dict:
    """Train; return the losses and test accuracies, and what saving needs."""
    train_x, train_y = make_corpus(num_train, seed=0)
    test_x, test_y = make_corpus(num_test, seed=1)
    main_program, startup = pir.Program(), pir.Program()
    loss, acc, probs, test_program = build(main_program, startup)

    exe, scope = pir.Executor(), pir.Scope()
    with pir.scope_guard(scope):
        exe.run(startup)
        before = after = evaluate(exe, test_program, acc, test_x, test_y)
        losses = []
        for epoch in range(epochs):
            for start in range(0, num_train, BATCH):
                batch = slice(start, start + BATCH)
                (value,) = exe.run(main_program, feed=to_batch(train_x[batch], train_y[batch]),
                                   fetch_list=[loss])
                losses.append(float(value[0]))
            after = evaluate(exe, test_program, acc, test_x, test_y)
            if verbose:
                steps = -(-num_train // BATCH)
                print(f"epoch {epoch}: mean loss {np.mean(losses[-steps:]):.4f}, "
                      f"test accuracy {after:.3f}")
    if verbose:
        print(f"test accuracy: {before:.3f} before training, {after:.3f} after (chance 0.5)")
    return {"accuracy_before": before, "accuracy": after, "losses": losses,
            "main": main_program, "scope": scope, "probs": probs}


# "good", "not good", "bad", "not bad", each among filler words
SAMPLE = [[3, 17, POSITIVE[0], 8], [3, 17, NEGATION, POSITIVE[0], 8],
          [NEGATIVE[0], 25, 11], [NEGATION, NEGATIVE[0], 25, 11]]


def save(out: str, result: dict) -> str:
    """Save the inference model and the SAMPLE sentences to `out`; the command that runs them,
    the sentences' lengths in its --lod."""
    pir.io.save_inference_model(out, ["words"], [result["probs"]],
                                main_program=result["main"], scope=result["scope"])
    words = os.path.join(out, "words.npy")
    np.save(words, np.concatenate(SAMPLE).astype(np.int64).reshape(-1, 1))
    lengths = json.dumps([[len(s) for s in SAMPLE]], separators=(",", ":"))
    return (f"{shlex.join(['paddle-ir', 'run', out, '--feed', f'words={words}'])} "
            f"--lod words='{lengths}'")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=4)
    parser.add_argument("--out", default="out/sentiment_lstm",
                        help="where the inference model and the sample feed go")
    args = parser.parse_args()
    result = train(args.epochs)
    losses = result["losses"]
    print(f"loss {np.mean(losses[:8]):.4f} -> {np.mean(losses[-8:]):.4f} "
          f"(the first and the last 8 steps)")
    command = save(args.out, result)
    print(f"saved to {args.out}: the inference model words -> (P(negative), P(positive)),\n"
          f"and a sample feed of four sentences: good, not good, bad, not bad (among filler "
          f"words).\nRun it with:\n  {command}")


if __name__ == "__main__":
    main()
