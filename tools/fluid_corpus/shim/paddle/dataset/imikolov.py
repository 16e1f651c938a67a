"""imikolov (PTB): n-grams or sequences of word ids over a 2000-word vocabulary whose next
word follows the previous one (w -> w + 1), so a language model can learn it."""

from paddle.dataset.common import reader_of, rng, samples


class DataType:
    NGRAM = 1
    SEQ = 2


VOCAB = 2000


def build_dict(min_word_freq=50):
    d = {f"w{i}".encode(): i for i in range(VOCAB - 3)}
    d.update({b"<s>": VOCAB - 3, b"<e>": VOCAB - 2, b"<unk>": VOCAB - 1})
    return d


def _pool(name, word_idx, n, data_type):
    g = rng("imikolov" + name)
    size = len(word_idx) - 3
    out = []
    for _ in range(samples()):
        start = int(g.integers(0, 50))  # few distinct starts: test n-grams were trained on
        if data_type == DataType.NGRAM:
            out.append(tuple((start + k) % size for k in range(n)))
        else:
            length = int(g.integers(3, 20))
            seq = [(start + k) % size for k in range(length)]
            out.append(([word_idx[b"<s>"]] + seq, seq + [word_idx[b"<e>"]]))
    return out


def train(word_idx, n, data_type=DataType.NGRAM):
    return reader_of(_pool("train", word_idx, n, data_type))


def test(word_idx, n, data_type=DataType.NGRAM):
    return reader_of(_pool("test", word_idx, n, data_type)[: samples() // 4])
