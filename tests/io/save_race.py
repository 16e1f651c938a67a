"""Two different models saved into one directory, and ways to interrupt the saves.

Models A and B share their parameter names and shapes (so B's parameters load
into A's program without complaint) but differ in program (tanh vs sigmoid)
and in values (seeds). `classify` loads a directory and says which whole model
it holds, or "mixed" when the program of one came with the parameters of the
other, or the parameters of both: the failure a directory replaced file by
file allows.

Every save path and format is tried (FORMATS): paddle-ir's inference model,
Paddle's (`format="paddle"`: model.pdmodel + model.pdiparams), fluid 1.x's
(`format="fluid"`: __model__ + a file per parameter), and Fluid's per-variable
checkpoint (`save_persistables(dirname, filename=None)`, which has no program:
the values alone tell the model), and Fluid 1.6's `fluid.save(program, DIR/m)`
(m.pdparams, m.pdopt, m.pdmodel and their names lists; read by `fluid.load`).

Savers run in forked children (cheap: the models are already built), which
the tests kill with SIGKILL or interrupt with SIGINT at random moments, or
stop at the k-th file-system call of a save (`crash_at`).
"""

from __future__ import annotations

import contextlib
import os
import random
import shutil
import signal
import time

import numpy as np

import paddle_ir as pir
from paddle_ir import io

WIDTH, LAYERS = 256, 4  # 1 MiB of float32 parameters
STRESS = os.environ.get("PADDLE_IR_STRESS") == "1"


def build(act: str, seed: int):
    """(program, scope, output name) of a trained-looking model; names do not depend on act."""
    main, startup = pir.Program(), pir.Program()
    main.random_seed = startup.random_seed = seed
    with pir.unique_name.guard(), pir.program_guard(main, startup):
        h = pir.layers.data("x", [-1, WIDTH])
        for _ in range(LAYERS):
            h = pir.layers.fc(h, WIDTH, act=act)
    scope = pir.Scope()
    pir.Executor().run(startup, scope=scope)
    rng = np.random.default_rng(seed)
    for name in io.persistable_names(main):  # biases start at zero: make each model's own
        if ".b_" in name:
            bias = scope.find_var(name).value.numpy()
            bias[...] = rng.standard_normal(bias.shape)
    return main, scope, h.name


FORMATS = ("paddle-ir", "paddle", "fluid", "per-variable", "fluid-save")


class Models:
    def __init__(self, fmt: str = "paddle-ir"):
        self.fmt = fmt
        self.models = {"A": build("tanh", 1), "B": build("sigmoid", 2)}
        main, scope, _ = self.models["A"]
        self.names = io.persistable_names(main)
        self.first_param = next(n for n in self.names if ".w_" in n)
        self.values = {k: {n: scope.find_var(n).value.numpy().copy() for n in self.names}
                       for k, (_, scope, _) in self.models.items()}
        self.weights = {k: values[self.first_param] for k, values in self.values.items()}
        for name in self.names:
            assert not np.array_equal(self.values["A"][name], self.values["B"][name]), name

    def save(self, dirname, which: str) -> None:
        main, scope, out = self.models[which]
        if self.fmt == "per-variable":
            io.save_persistables(None, dirname, main, scope, filename=None)
            return
        if self.fmt == "fluid-save":
            with pir.scope_guard(scope):
                io.save(main, os.path.join(dirname, "m"))
            return
        io.save_inference_model(dirname, ["x"], [out], main_program=main, scope=scope,
                                format=self.fmt)

    def classify(self, dirname) -> str:
        """"A" or "B" (a whole model), "mixed", or the error a load raised."""
        scope = pir.Scope()
        try:
            if self.fmt == "per-variable":
                io.load_persistables(None, dirname, self.models["A"][0], scope, filename=None)
                by_program = None
            elif self.fmt == "fluid-save":
                def read(where):  # the program and the values, of one save
                    with pir.scope_guard(scope):
                        io.load(self.models["A"][0], os.path.join(where, "m"))
                    return io.load_program(os.path.join(where, "m.pdmodel"))

                program = io.read_saved(dirname, read)
                ops = {op.type for op in program.global_block().ops}
                by_program = "A" if "tanh" in ops else "B" if "sigmoid" in ops else "?"
            else:
                program, _, _ = io.load_inference_model(dirname, scope=scope)
                ops = {op.type for op in program.global_block().ops}
                by_program = "A" if "tanh" in ops else "B" if "sigmoid" in ops else "?"
        except Exception as exc:  # reported as a result, so that counts say what happened
            return f"error: {type(exc).__name__}: {exc}"
        origins = set()
        for name in self.names:
            value = scope.find_var(name).value.numpy()
            origins.add(next((k for k, v in self.values.items() if np.array_equal(v[name], value)),
                             "?"))
        by_params = origins.pop() if len(origins) == 1 else "mixed"
        if by_program is None:
            return by_params
        return by_program if by_program == by_params else "mixed"


def fork(work) -> int:
    """Run `work()` in a forked child that exits when it returns; the child's pid."""
    pid = os.fork()
    if pid == 0:  # pragma: no cover - the child
        code = 0
        try:
            signal.signal(signal.SIGINT, signal.default_int_handler)
            work()
        except KeyboardInterrupt:
            code = 130
        except BaseException:
            code = 1
        finally:
            os._exit(code)
    return pid


def wait(pid: int) -> int:
    """The child's exit status (negative: killed by that signal)."""
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status)


def save_forever(models: Models, dirname, first: str = "B"):
    def work():
        which = first
        while True:
            models.save(dirname, which)
            which = "A" if which == "B" else "B"
    return work


def interrupt_at_random(models: Models, dirname, sig: int, rounds: int,
                        max_delay: float) -> dict[str, int]:
    """Start alternating saves, send `sig` after a random delay, classify; count outcomes."""
    rng = random.Random(sig * 1000 + rounds)
    counts: dict[str, int] = {}
    for _ in range(rounds):
        pid = fork(save_forever(models, dirname, rng.choice("AB")))
        time.sleep(rng.uniform(0, max_delay))
        os.kill(pid, sig)
        if sig == signal.SIGINT:
            # A second Ctrl-C at once is a user who really means it: the process may die
            # mid-cleanup, which must be as safe as SIGKILL.
            time.sleep(rng.choice([0.0, 0.0005, 0.01]))
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        wait(pid)
        result = models.classify(dirname)
        counts[result] = counts.get(result, 0) + 1
    return counts


# File-system calls a save makes; `crash_at` stops a save at the k-th of them.
CALLS = ("open", "replace", "link", "fsync", "mkdir", "unlink", "rename")


def crash_at(models: Models, dirname, which: str, k: int, how: str) -> int:
    """Save `which`, dying (SIGKILL) or interrupted (KeyboardInterrupt) at call k; status."""
    def work():
        seen = [0]
        for name in CALLS:
            real = getattr(os, name)

            def wrapper(*args, real=real, **kwargs):
                seen[0] += 1
                if seen[0] == k:
                    if how == "kill":
                        os.kill(os.getpid(), signal.SIGKILL)
                    raise KeyboardInterrupt
                return real(*args, **kwargs)

            setattr(os, name, wrapper)
        models.save(dirname, which)
        os._exit(3)  # the save finished before call k: there are fewer calls than k

    return wait(fork(work))


def leftovers(dirname) -> list[str]:
    """What a directory holds beyond CURRENT, LOCK, one generation and its top-level links,
    and top-level names that are not links to that generation's files (what Paddle's
    loaders would read)."""
    entries = sorted(os.listdir(dirname))
    current = open(os.path.join(dirname, "CURRENT")).read().strip()
    saved = set(os.listdir(os.path.join(dirname, current)))
    stale = [e for e in entries if e not in {"CURRENT", "LOCK", current} | saved]
    for name in sorted(saved):
        inside = os.lstat(os.path.join(dirname, current, name))
        try:
            top = os.lstat(os.path.join(dirname, name))
        except FileNotFoundError:
            stale.append(f"{name} (not {current}'s: missing)")
            continue
        if (top.st_ino, top.st_dev) != (inside.st_ino, inside.st_dev):
            stale.append(f"{name} (not {current}'s)")
    return stale


def fresh(dirname) -> None:
    shutil.rmtree(dirname, ignore_errors=True)
    os.makedirs(dirname)
