"""Per-program data makers: the arguments and synthetic data each corpus script runs on.

`plan_for(key, script, work)` gives the Plan of one script (key as run.py names it:
`models/<path>` or `book/<path>`). A maker writes the files the program reads, in the
program's own format and shapes, under `work`, and returns the program's own flags that
point at them and cut epochs and sizes. A script without a maker runs with its defaults
(the book's chapters read the shim's synthetic paddle.dataset).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np


@dataclass
class Plan:
    argv: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: Path | None = None
    samples: int = 256
    excluded: str | None = None  # a reason the script cannot run here, found by its maker


MAKERS: dict[str, Callable[[Path, Path], Plan]] = {}


def maker(*keys: str):
    def register(fn):
        for key in keys:
            MAKERS[key] = fn
        return fn

    return register


def plan_for(key: str, script: Path, work: Path) -> Plan:
    fn = MAKERS.get(key)
    if fn is None:
        return Plan()
    out = work / key.replace("/", "__")
    out.mkdir(parents=True, exist_ok=True)
    return fn(script, out)


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng(sum(map(ord, name)))


# --- the Paddle book: the shim's paddle.dataset feeds them; cut the epochs -----------------
@maker("book/01.fit_a_line/train.py", "book/02.recognize_digits/train.py",
       "book/03.image_classification/train.py",
       "book/06.understand_sentiment/train_conv.py",
       "book/06.understand_sentiment/train_dyn_rnn.py",
       "book/06.understand_sentiment/train_stacked_lstm.py",
       "book/07.label_semantic_roles/train.py")
def _book_chapter(script: Path, out: Path) -> Plan:
    # --use_gpu is `type=bool` there: any value given is True; its default is the CPU
    return Plan(argv=["--num_epochs", "2"])


@maker("book/04.word2vec/train.py")
def _book_word2vec(script: Path, out: Path) -> Plan:
    # it trains until the test cost is under 5.8 (its own bar) within its 100 epochs
    return Plan(samples=200)


@maker("book/09.gan/dc_gan.py")
def _book_dcgan(script: Path, out: Path) -> Plan:
    return Plan(argv=["--epoch", "1"], samples=512)


@maker("book/05.recommender_system/train.py")
def _book_recommender(script: Path, out: Path) -> Plan:
    # it saves its inference model at batch 21 of 256 samples and returns; the test pool
    # is a quarter of the training pool
    return Plan(argv=["--num_epochs", "1"], cwd=out, samples=22 * 256)
