"""Paddle 3.3.1 itself (PIR on, its default) loads the PIR paddle-ir writes and gives
the old model's outputs: the migration `paddle-ir convert OLD_MODEL OUT --to pir`.

Runs in `make interop` (PADDLE_IR_PADDLE_PYTHON names a Python with paddlepaddle), or
when `paddle` is importable here; skipped otherwise.
"""

import filecmp
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from paddle_ir import io
from paddle_ir.cli.main import main
from paddle_ir.executor import Executor, Scope
from tests.paddle_format.pir.test_models import MODELS, PIR
from tests.paddle_format.pir.test_write import WRITABLE
from tests.paddle_format.test_interop import _paddle_python
from tests.paddle_helpers import DEEP, FIXTURES, paddle_outputs

ROOT = Path(__file__).resolve().parents[3]

# A feed `name` with a `name.lod` entry (its sequence lengths per level, as JSON) goes in
# as a DenseTensor with that LoD (offsets), as Paddle 3 still takes for sequence ops.
RUN_PIR_IN_PADDLE = """
import itertools, json, sys
import numpy as np, paddle
paddle.enable_static()
exe = paddle.static.Executor(paddle.CPUPlace())
program, feed_names, fetches = paddle.static.load_inference_model(sys.argv[1], exe)
data = np.load(sys.argv[2])

def feed(name):
    if name + ".lod" not in data.files:
        return data[name]
    tensor = paddle.base.core.DenseTensor()
    tensor.set(data[name], paddle.CPUPlace())
    lengths = json.loads(str(data[name + ".lod"]))
    tensor.set_lod([[0, *itertools.accumulate(level)] for level in lengths])
    return tensor

outs = exe.run(program, feed={n: feed(n) for n in feed_names}, fetch_list=fetches)
np.savez(sys.argv[3], **{f"out.{i}": np.asarray(o) for i, o in enumerate(outs)})
"""

JIT_LOAD = """
import sys
import numpy as np, paddle
layer = paddle.jit.load(sys.argv[1])
data = np.load(sys.argv[2])
outs = layer(*[paddle.to_tensor(data[n]) for n in sys.argv[4].split(",")])
outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
np.savez(sys.argv[3], **{f"out.{i}": o.numpy() for i, o in enumerate(outs)})
"""


def _in_paddle(script, prefix, feeds_file, tmp_path, *extra) -> list[np.ndarray]:
    out = tmp_path / "paddle_out.npz"
    env = {k: v for k, v in os.environ.items() if k != "FLAGS_enable_pir_api"}
    done = subprocess.run([_paddle_python(), "-c", script, str(prefix), str(feeds_file),
                           str(out), *extra], capture_output=True, text=True, check=False,
                          env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    with np.load(out) as data:
        return [data[f"out.{i}"] for i in range(len(data.files))]


def _close(name, got, want):
    assert len(got) == len(want)
    for a, b in zip(got, want, strict=True):
        assert a.shape == b.shape and a.dtype == b.dtype, name
        a64, b64 = a.astype("float64"), b.astype("float64")
        bound = 1e-4 * max(np.abs(b64).max(), 1.0) if name in DEEP else 1e-5 * max(
            np.abs(b64).max(), 1.0)
        assert np.abs(a64 - b64).max() <= bound, (name, np.abs(a64 - b64).max())


@pytest.mark.parametrize("source", ["model.pdmodel", "fluid"])
@pytest.mark.parametrize("name", WRITABLE)
def test_an_old_model_converted_to_pir_runs_in_paddle_3(name, source, tmp_path):
    src = FIXTURES / name / source
    if not src.exists():
        pytest.skip(f"{name} has no {source}")
    assert main(["convert", str(src), str(tmp_path / "model"), "--to", "pir"]) == 0
    got = _in_paddle(RUN_PIR_IN_PADDLE, tmp_path / "model", FIXTURES / name / "feeds.npz",
                     tmp_path)
    _close(name, got, paddle_outputs(name))


def test_converted_control_flow_takes_either_branch_in_paddle_3(tmp_path):
    """static.nn.cond + while_loop saved by old-IR Paddle, converted: pd_op.if /
    pd_op.while in Paddle 3 give Paddle's outputs for the false branch too."""
    assert main(["convert", str(FIXTURES / "cond_loop" / "fluid"), str(tmp_path / "model"),
                 "--to", "pir"]) == 0
    got = _in_paddle(RUN_PIR_IN_PADDLE, tmp_path / "model",
                     FIXTURES / "cond_loop" / "feeds_false.npz", tmp_path)
    with np.load(FIXTURES / "cond_loop" / "outputs_false.npz") as data:
        _close("cond_loop", got, [data[f"out.{i}"] for i in range(len(data.files))])


def test_paddle_jit_load_takes_the_converted_model(tmp_path):
    assert main(["convert", str(FIXTURES / "conv" / "model.pdmodel"), str(tmp_path / "model"),
                 "--to", "pir"]) == 0
    scope = Scope()
    program, names, _ = io.load_inference_model(str(tmp_path), scope=scope)
    got = _in_paddle(JIT_LOAD, tmp_path / "model", FIXTURES / "conv" / "feeds.npz", tmp_path,
                     ",".join(names))
    _close("conv", got, paddle_outputs("conv"))


@pytest.mark.parametrize("name", MODELS)
def test_a_pir_model_paddle_ir_rewrote_runs_in_paddle(name, tmp_path):
    scope = Scope()
    # As saved (optimize=False): the load-time fusions (fc, fused_conv2d) are paddle-ir's
    program, names, fetches = io.load_inference_model(str(PIR / name / "model"), scope=scope,
                                                      optimize=False)
    io.save_inference_model(str(tmp_path), names, fetches, main_program=program, scope=scope,
                            format="pir")
    got = _in_paddle(RUN_PIR_IN_PADDLE, tmp_path / "model", PIR / name / "feeds.npz",
                     tmp_path)
    with np.load(PIR / name / "outputs.npz") as data:
        want = [data[f"out.{i}"] for i in range(len(data.files))]
    # Paddle gives a full reduction shape [] where paddle-ir keeps Fluid's [1]
    _close(name, [g.reshape(w.shape) if g.size == w.size else g for g, w in zip(
        got, want, strict=True)], want)


def test_a_model_paddle_ir_built_and_saved_as_pir_runs_in_paddle(tmp_path):
    import paddle_ir as pir
    from paddle_ir import layers

    main_program, startup = pir.Program(), pir.Program()
    with pir.program_guard(main_program, startup):
        x = layers.data("x", [-1, 8])
        h = layers.fc(x, 16, act="relu")
        out = layers.softmax(layers.fc(layers.layer_norm(h), 3))
    scope, exe = Scope(), Executor()
    exe.run(startup, scope=scope)
    xv = np.random.default_rng(3).standard_normal((4, 8)).astype("float32")
    (ours,) = exe.run(main_program, feed={"x": xv}, fetch_list=[out], scope=scope)
    io.save_inference_model(str(tmp_path), ["x"], [out], main_program=main_program,
                            scope=scope, format="pir")
    np.savez(tmp_path / "feeds.npz", x=xv)
    (theirs,) = _in_paddle(RUN_PIR_IN_PADDLE, tmp_path / "model", tmp_path / "feeds.npz",
                           tmp_path)
    assert np.abs(theirs - np.asarray(ours)).max() <= 1e-6


def test_the_signatures_are_paddles_current_ones(tmp_path):
    """pir/signatures.py is what tools/make_pir_signatures.py learns from this Paddle."""
    out = tmp_path / "signatures.py"
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "make_pir_signatures.py"),
                           _paddle_python(), str(out)], capture_output=True, text=True,
                          check=False, cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    assert filecmp.cmp(out, ROOT / "paddle_ir" / "paddle_format" / "pir" / "signatures.py",
                       shallow=False), (
        "pir/signatures.py is stale (it lists the ops Paddle 3 has no PIR form of, so adding "
        "an op changes it): run `python tools/make_pir_signatures.py PADDLE_PYTHON "
        "paddle_ir/paddle_format/pir/signatures.py`, then `python -m "
        "paddle_ir.paddle_format.pir.coverage docs/paddle_format.md`")


def test_models_paddle_saves_now_run_in_paddle_ir(tmp_path):
    """tools/make_pir_fixtures.py run with this Paddle into a fresh directory: every model
    it saves (not only the committed copies) runs in paddle-ir with Paddle's outputs."""
    done = subprocess.run([_paddle_python(), str(ROOT / "tools" / "make_pir_fixtures.py"),
                           str(tmp_path)], capture_output=True, text=True, check=False,
                          cwd=ROOT)
    assert done.returncode == 0, done.stderr[-3000:]
    names = sorted(p.name for p in tmp_path.iterdir() if (p / "model.json").is_file())
    assert set(names) >= {"mlp", "conv", "attention", "embedding", "lstm", "branch",
                          "cond_loop"}
    for name in names:
        with np.load(tmp_path / name / "feeds.npz") as data:
            feed = {k: data[k] for k in data.files}
        with np.load(tmp_path / name / "outputs.npz") as data:
            want = [data[f"out.{i}"] for i in range(len(data.files))]
        scope = Scope()
        program, _, fetches = io.load_inference_model(str(tmp_path / name), scope=scope)
        got = [np.asarray(v) for v in Executor().run(program, feed=feed, fetch_list=fetches,
                                                     scope=scope)]
        _close(name, got, want)
