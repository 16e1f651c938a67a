"""imdb: (word ids, label 0/1); positive reviews draw from the first half of the vocabulary."""

from paddle.dataset.common import reader_of, rng, samples

VOCAB = 5000


def word_dict(cutoff=150):
    # Paddle's keys are the bytes of the words, and '<unk>' a str it adds last
    d = {f"w{i}".encode(): i for i in range(VOCAB - 1)}
    d["<unk>"] = VOCAB - 1
    return d


def build_dict(pattern=None, cutoff=150):
    return word_dict()


def _pool(name, word_idx, n):
    g = rng("imdb" + name)
    size = len(word_idx)
    out = []
    for _ in range(n):
        label = int(g.integers(0, 2))
        length = int(g.integers(5, 40))
        lo, hi = (0, size // 2) if label else (size // 2, size)
        out.append(([int(v) for v in g.integers(lo, hi, size=length)], label))
    return out


def train(word_idx):
    return reader_of(_pool("train", word_idx, samples()))


def test(word_idx):
    return reader_of(_pool("test", word_idx, samples() // 4))
