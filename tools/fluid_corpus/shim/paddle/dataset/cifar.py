"""cifar: images float32 [3072] in [0, 1], labels int (10 or 100 classes, a class colour)."""

from paddle.dataset.common import reader_of, rng, samples


def _pool(name, n, classes):
    g = rng("cifar" + name)
    out = []
    for _ in range(n):
        label = int(g.integers(0, classes))
        img = g.uniform(0, 0.2, size=(3, 32, 32)).astype("float32")
        img[label % 3] += 0.08 * (label % 10)
        out.append((img.reshape(3072), label))
    return out


def train10(cycle=False):
    return reader_of(_pool("train10", samples(), 10))


def test10(cycle=False):
    return reader_of(_pool("test10", samples() // 4, 10))


def train100():
    return reader_of(_pool("train100", samples(), 100))


def test100():
    return reader_of(_pool("test100", samples() // 4, 100))
