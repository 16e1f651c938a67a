"""conll05 (semantic roles): nine int64 sequences of one length (word, five predicate
context words, predicate, mark, label); the label follows the word."""

import os
import tempfile

import numpy as np

from paddle.dataset.common import reader_of, rng, samples

_WORDS, _VERBS, _LABELS = 3000, 300, 59


def get_dict():
    word_dict = {f"w{i}": i for i in range(_WORDS)}
    verb_dict = {f"v{i}": i for i in range(_VERBS)}
    label_dict = {f"l{i}": i for i in range(_LABELS)}
    return word_dict, verb_dict, label_dict


def get_embedding():
    """A path to a float32 embedding file of [words, 32], as Paddle's (16-byte header)."""
    path = os.path.join(tempfile.gettempdir(), "fluid_corpus_conll05_emb")
    if not os.path.exists(path):
        emb = rng("conll05emb").normal(0, 0.1, size=(_WORDS, 32)).astype("float32")
        with open(path, "wb") as f:
            f.write(b"\0" * 16)
            f.write(emb.tobytes())
    return path


def _pool(name, n):
    g = rng("conll05" + name)
    out = []
    for _ in range(n):
        length = int(g.integers(4, 20))
        words = g.integers(0, _WORDS, size=length)
        ctx = [[int(g.integers(0, _WORDS))] * length for _ in range(5)]
        verb = [int(g.integers(0, _VERBS))] * length
        mark = [int(v) for v in g.integers(0, 2, size=length)]
        labels = [int(w) % _LABELS for w in words]
        out.append(tuple([[int(w) for w in words]] + ctx + [verb, mark, labels]))
    return out


def train():
    return reader_of(_pool("train", samples()))


def test():
    return reader_of(_pool("test", samples()))


__all__ = ["get_dict", "get_embedding", "train", "test", "np"]
