"""Every example, run as a user runs it, at small sizes: the script trains (its loss
falls), saves its model under --out (default out/<name>, relative to the working
directory), and ends by printing `paddle-ir` commands that then run as printed.

The learning itself (accuracies, kernels chosen) is tested at larger sizes by
importing the examples: test_training.py (mlp, word2vec), test_csr.py (sparse
logistic regression), test_sequence_program.py (text classification) and
ops/test_rnn_ops.py (sentiment LSTM), test_dynamic_rnn.py (nested RNN).
"""

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

REPO = Path(__file__).resolve().parents[2]
ENV = dict(os.environ, PYTHONPATH=str(REPO))

# name: (small-size arguments, the loss must end below this fraction of its start,
#        lines the script prints, the shape the saved model's run prints)
EXAMPLES = {
    "mlp": (["--steps", "60", "--points", "30"], 0.7,  # measured x0.48
            ["MLP on 3 spirals"], "shape=[3, 3]"),
    "word2vec": (["--steps", "60", "--vocab", "80", "--sentences", "200"], 0.7,  # x0.42
                 ["table updates: adam_selected_rows, adam_selected_rows"], "shape=[4, 6]"),
    "text_classification": (["--epochs", "1"], 0.7,  # x0.54
                            ["epoch 0: mean loss"], "shape=[3, 4]"),
    "sentiment_lstm": (["--epochs", "3"], 0.5,  # x0.11
                       ["epoch 2: mean loss"], "shape=[4, 2]"),
    "nested_rnn": (["--epochs", "2"], 0.5,  # x0.002
                   ["epoch 1: mean loss"], "shape=[3, 2]"),
    "sparse_logistic_regression": (
        ["--features", "5000", "--nnz", "20", "--batch", "64", "--steps", "80",
         "--informative", "300"], 0.9,  # x0.77
        ["logistic regression, 5,000 features", "update kernels: adam adam_selected_rows"],
        "shape=[4, 1]"),
}


def run_script(name, args, cwd):
    done = subprocess.run([sys.executable, str(REPO / "examples" / f"{name}.py"), *args],
                          capture_output=True, text=True, cwd=cwd, env=ENV, timeout=300)
    assert done.returncode == 0, done.stderr
    return done.stdout


def printed_commands(stdout):
    """The `paddle-ir ...` lines at the end of the output, which must end with them."""
    lines = stdout.rstrip("\n").splitlines()
    commands = [line.strip() for line in lines if line.strip().startswith("paddle-ir ")]
    assert commands and lines[-1].strip() == commands[-1], stdout
    return commands


def run_command(command, cwd):
    """A printed command as a shell runs it, `paddle-ir` being `python -m paddle_ir`."""
    argv = shlex.split(command)
    assert argv[0] == "paddle-ir"
    done = subprocess.run([sys.executable, "-m", "paddle_ir", *argv[1:]], capture_output=True,
                          text=True, cwd=cwd, env=ENV, timeout=300)
    assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    return done.stdout


@pytest.mark.parametrize("name", sorted(EXAMPLES))
def test_example_trains_saves_and_prints_a_command_that_runs(name, tmp_path):
    args, fraction, expected, shape = EXAMPLES[name]
    out = run_script(name, args, cwd=tmp_path)
    for text in expected:
        assert text in out, out
    first, last = map(float, re.search(r"^loss ([\d.]+) -> ([\d.]+)", out, re.M).groups())
    assert last < fraction * first, (first, last)

    commands = printed_commands(out)
    model = tmp_path / "out" / name
    assert (model / "model.pb").is_file() and (model / "params").is_file()
    assert shlex.split(commands[0])[:3] == ["paddle-ir", "run", f"out/{name}"]
    result = run_command(commands[0], cwd=tmp_path)
    assert shape in result, result
    values = re.findall(r"-?\d+\.\d+(?:e[-+]\d+)?", result.split("\n", 1)[1])
    assert values and all(0.0 <= float(v) <= 1.0 for v in values), result  # probabilities

    for command in commands[1:]:  # mlp: train the saved job from scratch
        result = run_command(command, cwd=tmp_path)
        steps = re.findall(r"^step \d+/\d+  \S+=([\d.e-]+)$", result, re.M)
        assert len(steps) >= 2 and float(steps[-1]) < float(steps[0]), result


def test_out_names_the_directory_and_the_command_quotes_it(tmp_path):
    out = tmp_path / "my models" / "w2v"
    stdout = run_script("word2vec", ["--steps", "5", "--vocab", "40", "--sentences", "50",
                                     "--out", str(out)], cwd=tmp_path)
    (command,) = printed_commands(stdout)
    assert f"'{out}'" in command
    assert "shape=[4, 6]" in run_command(command, cwd=REPO)
    # the model's files at the top level (links into its committed generation), the
    # example's feeds beside them, untouched by the save
    assert sorted(p.name for p in out.iterdir() if p.is_file()) == [
        "CURRENT", "LOCK", "center.npy", "model.pb", "params", "words.npy"]
    assert not (tmp_path / "out").exists()


def test_make_demo_runs_the_command_word2vec_prints(tmp_path):
    """`make demo` repeats the word2vec example's printed command; they must not drift."""
    stdout = run_script("word2vec", ["--steps", "5", "--vocab", "40", "--sentences", "50"],
                        cwd=tmp_path)
    (command,) = printed_commands(stdout)
    recipe = re.search(r"^demo:.*\n((?:\t.*\n)+)", (REPO / "Makefile").read_text(), re.M)
    assert recipe, "no demo target in the Makefile"
    lines = [line.strip() for line in recipe.group(1).splitlines()]
    assert "$(PY) examples/word2vec.py --out out/word2vec" in lines
    assert command.replace("paddle-ir", "$(VENV)/bin/paddle-ir", 1) in lines


def test_a_saved_word2vec_model_scores_its_own_topic_first(tmp_path):
    """The demo's point: after training, column 0 (a word of the center's topic) wins."""
    run_script("word2vec", ["--steps", "200", "--vocab", "120", "--topics", "4",
                            "--sentences", "600", "--out", "w2v"], cwd=tmp_path)
    run_command("paddle-ir run w2v --feed center=w2v/center.npy --feed words=w2v/words.npy "
                "--out probs.npz", cwd=tmp_path)
    with np.load(tmp_path / "probs.npz") as saved:
        (probs,) = saved.values()
    assert probs.shape == (4, 6)
    assert (probs.argmax(axis=1) == 0).all(), probs
