"""mnist: images float32 [784] in [-1, 1], labels int 0-9 (the class shifts a bright patch)."""


from paddle.dataset.common import reader_of, rng, samples


def _pool(name, n):
    g = rng("mnist" + name)
    out = []
    for _ in range(n):
        label = int(g.integers(0, 10))
        img = g.uniform(-1, -0.6, size=(28, 28)).astype("float32")
        img[2 * label: 2 * label + 6, 4:24] = 1.0
        out.append((img.reshape(784), label))
    return out


def train():
    return reader_of(_pool("train", samples()))


def test():
    return reader_of(_pool("test", samples() // 4))
