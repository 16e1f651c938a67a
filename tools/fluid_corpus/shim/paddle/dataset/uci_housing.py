"""uci_housing: 13 float32 features, a float32 price [1] (a linear function plus noise)."""

import numpy as np

from paddle.dataset.common import reader_of, rng, samples

feature_names = ["CRIM", "ZN", "INDUS", "CHAS", "NOX", "RM", "AGE", "DIS", "RAD", "TAX",
                 "PTRATIO", "B", "LSTAT"]


def _pool(name):
    g = rng("uci" + name)
    w = rng("uci").normal(size=13).astype("float32")
    x = g.uniform(-0.5, 0.5, size=(samples(), 13)).astype("float32")
    y = (x @ w + 0.05 * g.normal(size=samples())).astype("float32")
    return [(x[i], np.array([y[i]], "float32")) for i in range(samples())]


def train():
    return reader_of(_pool("train"))


def test():
    return reader_of(_pool("test")[: samples() // 4])


def fluid_model():
    raise RuntimeError("no pretrained fit_a_line model in the fluid-corpus shim")


def predict_reader():
    return reader_of([x for x, _ in _pool("test")[:1]])
