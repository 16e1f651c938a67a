"""wmt14 (en-fr): (source ids, target ids, next target ids) with <s>=0, <e>=1, <unk>=2;
the target is the source shifted by one word id (a learnable translation)."""

from paddle.dataset.common import reader_of, rng, samples


def get_dict(dict_size, reverse=True, lang="en"):
    words = ["<s>", "<e>", "<unk>"] + [f"{lang}{i}" for i in range(dict_size - 3)]
    return dict(enumerate(words)) if reverse else {w: i for i, w in enumerate(words)}


def _pool(name, src_dict_size, trg_dict_size, n):
    g = rng("wmt14" + name)
    out = []
    for _ in range(n):
        length = int(g.integers(3, 15))
        src = [int(v) for v in g.integers(3, src_dict_size, size=length)]
        trg = [3 + (w - 3 + 1) % (trg_dict_size - 3) for w in src]
        out.append(([0] + src + [1], [0] + trg, trg + [1]))
    return out


def train(dict_size, trg_dict_size=None, src_lang="en"):
    trg_dict_size = trg_dict_size or dict_size
    src_dict_size = dict_size
    return reader_of(_pool("train", src_dict_size, trg_dict_size, samples()))


def test(dict_size, trg_dict_size=None, src_lang="en"):
    trg_dict_size = trg_dict_size or dict_size
    src_dict_size = dict_size
    return reader_of(_pool("test", src_dict_size, trg_dict_size, samples() // 4))


def validation(src_dict_size, trg_dict_size, src_lang="en"):
    return test(src_dict_size, trg_dict_size, src_lang)
