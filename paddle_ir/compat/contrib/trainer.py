"""Fluid 1.0-1.5's `Trainer`: builds the training program from a `train_func`, runs
its startup in a scope of its own, and drives the epoch/step loop over a reader of
minibatches, calling `event_handler` with Begin/End Epoch/Step events.

    trainer = Trainer(train_func=train_program, optimizer_func=optimizer_program,
                      place=fluid.CPUPlace())
    trainer.train(num_epochs=2, event_handler=handler, reader=train_reader,
                  feed_order=["x", "y"])
    loss, = trainer.test(reader=test_reader, feed_order=["x", "y"])
    trainer.save_params("fit_a_line.params")      # Inferencer(param_path=...) loads it

`train_func` returns the loss, or a list whose first element is the loss (the rest
are fetched as metrics). Everything runs on one CPU device: `parallel=True` is the
same loop. Fluid's checkpointing (`checkpoint_config`) and its environment-driven
distributed transpiling are not provided and are refused by name.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable

from paddle_ir.core.errors import InvalidProgramError, PaddleIRError
from paddle_ir.executor import Executor, Scope, scope_guard
from paddle_ir.framework import Program, Variable, program_guard
from paddle_ir.io.checkpoint import load_persistables, save_persistables
from paddle_ir.io.inference_model import save_inference_model
from paddle_ir.optimizer import Optimizer
from paddle_ir.reader.data_feeder import DataFeeder

__all__ = ["BeginEpochEvent", "BeginStepEvent", "CheckpointConfig", "EndEpochEvent",
           "EndStepEvent", "Trainer"]


class BeginEpochEvent:
    def __init__(self, epoch_id: int):
        self.epoch = epoch_id


class EndEpochEvent:
    def __init__(self, epoch_id: int):
        self.epoch = epoch_id


class BeginStepEvent:
    """`fetch_metrics = False` (set by the handler) runs the step without fetching."""

    def __init__(self, epoch_id: int, step_id: int):
        self.epoch = epoch_id
        self.step = step_id
        self.fetch_metrics = True


class EndStepEvent:
    """`metrics`: the fetched values of train_func's outputs, loss first."""

    def __init__(self, epoch_id: int, step_id: int, metrics: list):
        self.epoch = epoch_id
        self.step = step_id
        self.metrics = metrics


class CheckpointConfig:
    """Fluid's checkpoint settings; accepted for its signature, refused by Trainer."""

    def __init__(self, checkpoint_dir=None, max_num_checkpoints: int = 3,
                 epoch_interval: int = 1, step_interval: int = 10):
        self.checkpoint_dir = os.getcwd() if checkpoint_dir is None else checkpoint_dir
        self.max_num_checkpoints = max_num_checkpoints
        self.epoch_interval = epoch_interval
        self.step_interval = step_interval


def build_feed_var_list(program: Program, feed_order) -> list[Variable]:
    """The data variables in the order the reader's fields come: a list of names, or a
    {name: position} dict (positions 0..n-1)."""
    block = program.global_block()
    if isinstance(feed_order, dict):
        if sorted(feed_order.values()) != list(range(len(feed_order))):
            raise InvalidProgramError(f"Trainer: feed_order's positions must be "
                                      f"0..{len(feed_order) - 1}, got {feed_order}")
        feed_order = sorted(feed_order, key=feed_order.get)
    if not isinstance(feed_order, (list, tuple)):
        raise InvalidProgramError(f"Trainer: feed_order must be a list of data variable names or a "
                                  f"{{name: position}} dict, got {feed_order!r}")
    for name in feed_order:
        if not block.has_var(name):
            raise InvalidProgramError(f"Trainer: feed_order names {name!r}, which is not a "
                                      f"variable of the program train_func built")
    return [block.var(name) for name in feed_order]


class Trainer:
    def __init__(self, train_func: Callable, optimizer_func: Callable, param_path=None,
                 place=None, parallel: bool = False, checkpoint_config=None):
        if checkpoint_config is not None:
            raise PaddleIRError(
                "Trainer: checkpoint_config is not supported by paddle-ir",
                hint="save with trainer.save_params(dir) from an EndEpochEvent handler and "
                     "pass param_path=dir to resume")
        if os.getenv("PADDLE_TRAINING_ROLE"):
            raise PaddleIRError(
                "Trainer: PADDLE_TRAINING_ROLE is set, but paddle-ir's Trainer trains on one "
                "machine", hint="for parameter-server training transpile the program with "
                                "fluid.DistributeTranspiler and run its trainer/pserver programs")
        self.place = place
        self.parallel = parallel
        self.scope = Scope()
        self.startup_program = Program()
        self.train_program = Program()
        self._stopped = False
        with program_guard(self.train_program, self.startup_program):
            outs = train_func()
            self.train_func_outputs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
            if not self.train_func_outputs or not isinstance(self.train_func_outputs[0], Variable):
                raise InvalidProgramError(f"Trainer: train_func must return the loss Variable (or "
                                          f"a list starting with it), got {outs!r}")
            self.test_program = self.train_program.clone(for_test=True)
            optimizer = optimizer_func()
            if not isinstance(optimizer, Optimizer):
                raise InvalidProgramError(f"Trainer: optimizer_func must return an Optimizer, got "
                                          f"{type(optimizer).__name__}")
            optimizer.minimize(self.train_func_outputs[0])
        self.exe = Executor(place)
        with self._guard():
            self.exe.run(self.startup_program)
            if param_path and os.path.isdir(param_path):
                load_persistables(self.exe, param_path, self.startup_program, filename=None)

    @contextlib.contextmanager
    def _guard(self):
        with program_guard(self.train_program, self.startup_program), scope_guard(self.scope):
            yield

    def stop(self) -> None:
        """End train() before its next step (from an event handler)."""
        self._stopped = True

    def train(self, num_epochs: int, event_handler: Callable, reader=None,
              feed_order=None) -> None:
        with self._guard():
            feeder = DataFeeder(build_feed_var_list(self.train_program, feed_order), self.place,
                                program=self.train_program)
            fetch = [v.name for v in self.train_func_outputs]
            for epoch_id in range(num_epochs):
                event_handler(BeginEpochEvent(epoch_id))
                for step_id, batch in enumerate(reader()):
                    if self._stopped:
                        return
                    begin = BeginStepEvent(epoch_id, step_id)
                    event_handler(begin)
                    metrics = self.exe.run(self.train_program, feed=feeder.feed(batch),
                                           fetch_list=fetch if begin.fetch_metrics else [])
                    event_handler(EndStepEvent(epoch_id, step_id, metrics))
                event_handler(EndEpochEvent(epoch_id))

    def test(self, reader, feed_order) -> list:
        """The mean over the reader's minibatches of each of train_func's outputs."""
        with scope_guard(self.scope):
            feeder = DataFeeder(build_feed_var_list(self.test_program, feed_order), self.place,
                                program=self.test_program)
            fetch = [v.name for v in self.train_func_outputs]
            sums, count = [0.0] * len(fetch), 0
            for batch in reader():
                outs = self.exe.run(self.test_program, feed=feeder.feed(batch), fetch_list=fetch)
                sums = [s + o.reshape(-1)[0] for s, o in zip(sums, outs, strict=True)]
                count += 1
            if not count:
                raise PaddleIRError("Trainer.test: the reader yielded no minibatch")
            return [s / count for s in sums]

    def save_params(self, param_path) -> None:
        """Every persistable (parameters and optimizer state), one file per variable."""
        with self._guard():
            save_persistables(self.exe, param_path, self.train_program, filename=None)

    def save_inference_model(self, param_path, feeded_var_names, target_var_indexes) -> None:
        with self._guard():
            targets = [self.train_func_outputs[i] for i in target_var_indexes]
            save_inference_model(param_path, feeded_var_names, targets, self.exe,
                                 main_program=self.train_program)
