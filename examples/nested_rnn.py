"""Paragraphs of sentences: a nested (recursive) RNN over a 2-level LoD batch, no padding.

    python examples/nested_rnn.py                # 6 epochs, saved to out/nested_rnn
    python examples/nested_rnn.py --epochs 2 --out /tmp/nested

Each generated paragraph has 1 to 4 sentences; each sentence is 1 to 7
words: filler words around one sentiment word, "positive" or "negative".
The paragraph's label is the sentiment of its *last* sentence (the
conclusion). A bag of the paragraph's words cannot tell which sentence comes
last, and a flat RNN over all words has to find sentence boundaries itself;
the nested RNN gets them from the LoD: an inner RNN reads each sentence's
words and yields a sentence vector, an outer RNN reads the sentence vectors
of each paragraph in order. A batch is one LoDTensor with two LoD levels,
the LoD design's "articles of sentences of words":

    words     data("words", [-1, 1], int64, lod_level=2)   LoD [[sentences per paragraph],
                                                                 [words per sentence]]
    emb       embedding(words, [VOCAB, EMBED])              [total words, EMBED], same LoD
    outer = DynamicRNN()                                    steps over each paragraph's sentences
        sentence = outer.step_input(emb)                    the t-th sentence of every paragraph
                                                            that has one: a 1-level batch
        inner = DynamicRNN()                                steps over that sentence's words
            h = tanh(fc(word) + fc(h_prev))
        vector = sequence_last_step(inner())                [sentences at step t, HIDDEN]
        s = tanh(fc(vector) + fc(s_prev))                   the paragraph state
    paragraph = sequence_last_step(outer())                 [paragraphs, HIDDEN]
    loss = mean(softmax_with_cross_entropy(fc(paragraph, 2), label))

Both loops are `while` ops over tensor arrays, stepping all sequences of the
batch together, longest first; Adam trains through them (`while_grad` runs
the loop bodies' gradient blocks over the kept step scopes). The loss falls
from about ln 2 as the model learns to carry the last sentence's sentiment.

The script then saves the inference model words -> (P(negative), P(positive))
to --out with three sample paragraphs as a feed, their word ids stacked in
words.npy and both LoD levels on the command line with --lod, and ends by
printing the `paddle-ir run` command that runs the model on them.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex

import numpy as np

import paddle_ir as pir
from paddle_ir import layers

FILLER = 20               # ids 0..19: words without sentiment
POSITIVE = range(20, 24)
NEGATIVE = range(24, 28)
VOCAB = 28
EMBED = 12
HIDDEN = 16
BATCH = 32


def make_paragraphs(count: int, seed: int) -> tuple[list[list[np.ndarray]], np.ndarray]:
    """Paragraphs (lists of int64 word-id arrays) and labels (1: the last sentence is positive)."""
    rng = np.random.RandomState(seed)
    paragraphs, labels = [], []
    for _ in range(count):
        sentences = []
        for _ in range(rng.randint(1, 5)):
            positive = rng.rand() < 0.5
            sentiment = rng.choice(POSITIVE if positive else NEGATIVE)
            before = rng.randint(0, FILLER, size=rng.randint(0, 4))
            after = rng.randint(0, FILLER, size=rng.randint(0, 4))
            sentences.append(np.concatenate([before, [sentiment], after]).astype(np.int64))
        paragraphs.append(sentences)
        labels.append(int(positive))
    return paragraphs, np.array(labels, dtype=np.int64)


def to_batch(paragraphs: list[list[np.ndarray]], labels: np.ndarray) -> dict:
    """One mini-batch: the words as a 2-level LoDTensor, the labels as [n, 1]."""
    sentences = [s for p in paragraphs for s in p]
    words = pir.create_lod_tensor(np.concatenate(sentences).reshape(-1, 1),
                                  [[len(p) for p in paragraphs], [len(s) for s in sentences]])
    return {"words": words, "label": labels.reshape(-1, 1)}


def _recurrent_step(x, prev, name: str):
    """tanh(x W + prev U + b), with parameters named name.w / name.u / name.b."""
    return layers.tanh(layers.fc(x, HIDDEN, param_attr=pir.ParamAttr(name=f"{name}.w"),
                                 bias_attr=pir.ParamAttr(name=f"{name}.b"))
                       + layers.fc(prev, HIDDEN, param_attr=pir.ParamAttr(name=f"{name}.u"),
                                   bias_attr=False))


def build(main: pir.Program, startup: pir.Program, learning_rate: float = 0.02):
    """The nested network and its optimizer; returns (loss, accuracy, test program)."""
    main.random_seed = startup.random_seed = 11
    with pir.program_guard(main, startup):
        words = layers.data("words", [-1, 1], dtype="int64", lod_level=2)
        label = layers.data("label", [-1, 1], dtype="int64")
        emb = layers.embedding(words, size=[VOCAB, EMBED])

        paragraph_rnn = layers.DynamicRNN()
        with paragraph_rnn.block():
            sentence = paragraph_rnn.step_input(emb)     # 1-level: this step's sentences
            state = paragraph_rnn.memory(shape=[HIDDEN])
            word_rnn = layers.DynamicRNN()
            with word_rnn.block():
                word = word_rnn.step_input(sentence)
                hidden = word_rnn.memory(shape=[HIDDEN])
                new_hidden = _recurrent_step(word, hidden, "word_rnn")
                word_rnn.update_memory(hidden, new_hidden)
                word_rnn.output(new_hidden)
            vector = layers.sequence_last_step(word_rnn())
            new_state = _recurrent_step(vector, state, "sentence_rnn")
            paragraph_rnn.update_memory(state, new_state)
            paragraph_rnn.output(new_state)
        paragraph = layers.sequence_last_step(paragraph_rnn())

        logits = layers.fc(paragraph, 2)
        loss = layers.mean(layers.softmax_with_cross_entropy(logits, label))
        probs = layers.softmax(logits)
        acc = layers.accuracy(probs, label)
        test_program = main.clone(for_test=True)
        pir.optimizer.Adam(learning_rate=learning_rate).minimize(loss)
    return loss, acc, probs, test_program


def evaluate(exe, program, acc, paragraphs, labels) -> float:
    correct = 0.0
    for start in range(0, len(paragraphs), BATCH):
        batch = slice(start, start + BATCH)
        (a,) = exe.run(program, feed=to_batch(paragraphs[batch], labels[batch]),
                       fetch_list=[acc])
        correct += float(a[0]) * len(labels[batch])
    return correct / len(paragraphs)


def train(epochs: int = 6, num_train: int = 640, num_test: int = 192,
          verbose: bool = True) -> dict:
    """Train with a fixed seed; return the per-step losses and the test accuracies."""
    train_x, train_y = make_paragraphs(num_train, seed=0)
    test_x, test_y = make_paragraphs(num_test, seed=1)
    main_program, startup = pir.Program(), pir.Program()
    loss, acc, probs, test_program = build(main_program, startup)
    exe, scope = pir.Executor(), pir.Scope()
    with pir.scope_guard(scope):
        exe.run(startup)
        before = after = evaluate(exe, test_program, acc, test_x, test_y)
        losses = []
        steps = -(-num_train // BATCH)
        for epoch in range(epochs):
            for start in range(0, num_train, BATCH):
                batch = slice(start, start + BATCH)
                (value,) = exe.run(main_program, feed=to_batch(train_x[batch], train_y[batch]),
                                   fetch_list=[loss])
                losses.append(float(value[0]))
            after = evaluate(exe, test_program, acc, test_x, test_y)
            if verbose:
                print(f"epoch {epoch}: mean loss {np.mean(losses[-steps:]):.4f}, "
                      f"test accuracy {after:.3f}")
    if verbose:
        print(f"test accuracy: {before:.3f} before training, {after:.3f} after (chance 0.5)")
    return {"losses": losses, "accuracy_before": before, "accuracy": after,
            "main": main_program, "scope": scope, "probs": probs}


# Three paragraphs: good. bad.  |  bad. good. bad.  |  (filler) good (filler).
SAMPLE = [[[POSITIVE[0]], [NEGATIVE[0]]],
          [[3, NEGATIVE[1]], [POSITIVE[1], 7], [NEGATIVE[2]]],
          [[1, 2, POSITIVE[2], 4]]]


def save(out: str, result: dict) -> str:
    """Save the inference model and the SAMPLE paragraphs to `out`; return the command that
    runs them (both LoD levels in its --lod)."""
    pir.io.save_inference_model(out, ["words"], [result["probs"]],
                                main_program=result["main"], scope=result["scope"])
    words = os.path.join(out, "words.npy")
    sentences = [s for p in SAMPLE for s in p]
    np.save(words, np.concatenate(sentences).astype(np.int64).reshape(-1, 1))
    lengths = json.dumps([[len(p) for p in SAMPLE], [len(s) for s in sentences]],
                         separators=(",", ":"))
    return (f"{shlex.join(['paddle-ir', 'run', out, '--feed', f'words={words}'])} "
            f"--lod words='{lengths}'")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=6)
    parser.add_argument("--out", default="out/nested_rnn",
                        help="where the inference model and the sample feed go")
    args = parser.parse_args()
    result = train(args.epochs)
    losses = result["losses"]
    print(f"loss {np.mean(losses[:10]):.4f} -> {np.mean(losses[-10:]):.4f} "
          f"(the first and the last 10 steps)")
    command = save(args.out, result)
    print(f"saved to {args.out}: the inference model words -> (P(negative), P(positive)),\n"
          f"and a sample feed of three paragraphs whose last sentences are negative, "
          f"negative, positive.\nRun it with:\n  {command}")


if __name__ == "__main__":
    main()
