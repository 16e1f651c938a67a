"""Synthetic `paddle.dataset` readers: the real datasets' sample shapes, dtypes and
vocabularies, a small fixed pool of samples (so that training on them lowers the loss
by fitting), with labels that depend on the inputs. Sizes: FLUID_CORPUS_SAMPLES (256)."""

from paddle.dataset import (  # noqa: F401
    cifar,
    common,
    conll05,
    imdb,
    imikolov,
    mnist,
    movielens,
    uci_housing,
    wmt14,
    wmt16,
)
