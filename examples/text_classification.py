"""Text classification over variable-length sentences: LoD in, one row per sentence out.

    python examples/text_classification.py           # 3 epochs, saved to out/text_classification
    python examples/text_classification.py --epochs 1 --out /tmp/tc

A mini-batch of sentences is one LoDTensor: the word ids of every sentence
stacked into an [total_words, 1] int64 column, plus one LoD level holding the
sentence lengths (no padding). The model is Paddle Fluid's classic bag of
embeddings:

    words   data("words", [-1, 1], int64, lod_level=1)     [total_words, 1], LoD [[lengths]]
    emb     embedding(words, [VOCAB, 32], is_sparse=True)  [total_words, 32], same LoD
    pooled  sequence_pool(emb, "average")                  [num_sentences, 32], no LoD
    logits  fc(pooled, NUM_CLASSES)                        [num_sentences, NUM_CLASSES]
    loss    mean(softmax_with_cross_entropy(logits, label))

trained with Adam(lazy_mode=True): the embedding's gradient is a SelectedRows
of the looked-up rows, so each step updates only the rows of the words the
batch used. The corpus is generated: each class has a few topic words, and a
sentence mixes 1 to 4 of its class's topic words into 3 to 30 common words,
so the length varies from sentence to sentence. Chance is 1 / NUM_CLASSES;
the test accuracy ends far above it.

The script then saves the inference model words -> softmax(logits), the class
probabilities of each sentence, to --out with three test sentences as a
sample feed: their word ids stacked in words.npy, their lengths given on the
command line with --lod (a .npy holds no LoD). It ends by printing the
`paddle-ir run` command that runs the model on them.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex

import numpy as np

import paddle_ir as pir

VOCAB = 600
NUM_CLASSES = 4
TOPIC_WORDS = 12  # per class, drawn from the top of the vocabulary
EMBED_DIM = 32
BATCH = 32


def make_corpus(num_sentences: int, seed: int) -> tuple[list[np.ndarray], np.ndarray]:
    """Sentences (int64 id arrays of varying length) and their labels."""
    rng = np.random.RandomState(seed)
    common = np.arange(VOCAB - NUM_CLASSES * TOPIC_WORDS)
    topics = np.arange(common.size, VOCAB).reshape(NUM_CLASSES, TOPIC_WORDS)
    labels = rng.randint(0, NUM_CLASSES, size=num_sentences)
    sentences = []
    for label in labels:
        words = np.concatenate([rng.choice(common, size=rng.randint(3, 31)),
                                rng.choice(topics[label], size=rng.randint(1, 5))])
        sentences.append(rng.permutation(words).astype(np.int64))
    return sentences, labels.astype(np.int64)


def to_batch(sentences: list[np.ndarray], labels: np.ndarray) -> dict:
    """The feed of one mini-batch: the words as a 1-level LoDTensor, the labels as [n, 1]."""
    words = pir.create_lod_tensor([s.tolist() for s in sentences],
                                  [[len(s) for s in sentences]])
    return {"words": words, "label": labels.reshape(-1, 1)}


def build(main: pir.Program, startup: pir.Program):
    """The network and its optimizer; returns (loss, accuracy, probabilities, test program)."""
    main.random_seed = startup.random_seed = 1
    with pir.program_guard(main, startup):
        words = pir.layers.data("words", [-1, 1], dtype="int64", lod_level=1)
        label = pir.layers.data("label", [-1, 1], dtype="int64")
        emb = pir.layers.embedding(words, size=[VOCAB, EMBED_DIM], is_sparse=True)
        pooled = pir.layers.sequence_pool(emb, "average")
        logits = pir.layers.fc(pooled, NUM_CLASSES)
        loss = pir.layers.mean(pir.layers.softmax_with_cross_entropy(logits, label))
        probs = pir.layers.softmax(logits)
        acc = pir.layers.accuracy(probs, label)
        test_program = main.clone(for_test=True)
        pir.optimizer.Adam(learning_rate=0.02, lazy_mode=True).minimize(loss)
    return loss, acc, probs, test_program


def evaluate(exe, program, acc, sentences, labels) -> float:
    correct = 0
    for start in range(0, len(sentences), BATCH):
        batch = slice(start, start + BATCH)
        (a,) = exe.run(program, feed=to_batch(sentences[batch], labels[batch]),
                       fetch_list=[acc])
        correct += float(a[0]) * len(labels[batch])
    return correct / len(sentences)


def train(epochs: int = 3, verbose: bool = True) -> dict:
    """Train; return the losses and test accuracies, and what saving needs."""
    train_x, train_y = make_corpus(1024, seed=0)
    test_x, test_y = make_corpus(256, seed=1)
    main_program, startup = pir.Program(), pir.Program()
    loss, acc, probs, test_program = build(main_program, startup)

    exe = pir.Executor()
    scope = pir.Scope()
    with pir.scope_guard(scope):
        exe.run(startup)
        before = after = evaluate(exe, test_program, acc, test_x, test_y)
        losses = []
        for epoch in range(epochs):
            for start in range(0, len(train_x), BATCH):
                batch = slice(start, start + BATCH)
                (value,) = exe.run(main_program, feed=to_batch(train_x[batch], train_y[batch]),
                                   fetch_list=[loss])
                losses.append(float(value[0]))
            after = evaluate(exe, test_program, acc, test_x, test_y)
            if verbose:
                print(f"epoch {epoch}: mean loss {np.mean(losses[-len(train_x) // BATCH:]):.4f}, "
                      f"test accuracy {after:.3f} (chance {1 / NUM_CLASSES:.2f})")
    if verbose:
        print(f"test accuracy: {before:.3f} before training, {after:.3f} after")
    return {"accuracy_before": before, "accuracy": after, "losses": losses,
            "main": main_program, "scope": scope, "probs": probs}


def save(out: str, result: dict) -> tuple[str, list[int]]:
    """Save the inference model and three sample sentences to `out`; the command that runs
    them (the sentences' lengths in its --lod), and their classes."""
    pir.io.save_inference_model(out, ["words"], [result["probs"]],
                                main_program=result["main"], scope=result["scope"])
    sentences, labels = make_corpus(3, seed=2)
    words = os.path.join(out, "words.npy")
    np.save(words, np.concatenate(sentences).reshape(-1, 1))
    lengths = json.dumps([[len(s) for s in sentences]], separators=(",", ":"))
    command = (f"{shlex.join(['paddle-ir', 'run', out, '--feed', f'words={words}'])} "
               f"--lod words='{lengths}'")
    return command, labels.tolist()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--out", default="out/text_classification",
                        help="where the inference model and the sample feed go")
    args = parser.parse_args()
    result = train(args.epochs)
    losses = result["losses"]
    print(f"loss {np.mean(losses[:10]):.4f} -> {np.mean(losses[-10:]):.4f} "
          f"(the first and the last 10 steps)")
    command, labels = save(args.out, result)
    print(f"saved to {args.out}: the inference model words -> class probabilities, and three "
          f"test\nsentences (classes {labels}) as a sample feed. Run it with:\n"
          f"  {command}")


if __name__ == "__main__":
    main()
