"""Fluid's `fluid.dataset`: DatasetFactory, InMemoryDataset, QueueDataset.

PaddleRec's CTR trainers of Fluid 1.7 train only this way:

    dataset = fluid.DatasetFactory().create_dataset("InMemoryDataset")
    dataset.set_use_var([dense, sparse_1, ..., label])
    dataset.set_pipe_command("python criteo_reader.py")   # a data_generator script
    dataset.set_batch_size(32)
    dataset.set_filelist(["train/part-0", "train/part-1"])
    dataset.load_into_memory()
    exe.train_from_dataset(program=main, dataset=dataset, fetch_list=[auc],
                           fetch_info=["auc"], print_period=10)

Each file is piped through the user's own command (run by the shell, with the
file on its standard input, as Fluid does: the command is the program's own
configuration, the files are data), whose output is Fluid's MultiSlot text: one
instance per line, and for each variable of `set_use_var`, in that order, a
count and then that many values. A variable with lod_level >= 1 becomes a
LoDTensor of the instances' values ([total, 1], one sequence per instance); a
dense one (lod_level 0) the instances' values stacked to its declared shape.
A malformed line is an error naming the file, the line and the slot.

Files are read one after another and batches train in order: `set_thread`
is accepted (Fluid reads files on several threads) and changes nothing, so two
runs of the same job see the same batches. `global_shuffle` is `local_shuffle`:
there is one process.
"""

from __future__ import annotations

import random
import subprocess
import tempfile
import warnings
from collections.abc import Iterator, Sequence

import numpy as np

from paddle_ir.core.errors import FeedError
from paddle_ir.core.lod_tensor import LoDTensor

__all__ = ["DatasetFactory", "InMemoryDataset", "QueueDataset"]


class DatasetFactory:
    """`DatasetFactory().create_dataset("InMemoryDataset" | "QueueDataset")`."""

    def create_dataset(self, datafeed_class: str = "QueueDataset"):
        kinds = {"InMemoryDataset": InMemoryDataset, "QueueDataset": QueueDataset}
        if datafeed_class not in kinds:
            raise FeedError(f"create_dataset: datafeed_class must be one of {sorted(kinds)}, "
                            f"got {datafeed_class!r} (FileInstantDataset and BoxPSDataset "
                            "need Paddle's distributed trainers)")
        return kinds[datafeed_class]()


class DatasetBase:
    """What both datasets share: the slots, the files, the pipe command, the batch size."""

    def __init__(self):
        self.pipe_command = "cat"
        self.batch_size = 1
        self.thread_num = 1
        self.filelist: list[str] = []
        self.use_vars: list = []

    # -- Fluid's setters ----------------------------------------------------------------
    def set_pipe_command(self, pipe_command: str) -> None:
        if not isinstance(pipe_command, str) or not pipe_command.strip():
            raise FeedError(f"set_pipe_command: a shell command, got {pipe_command!r}")
        self.pipe_command = pipe_command

    def set_batch_size(self, batch_size: int) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise FeedError(f"set_batch_size: a positive int, got {batch_size!r}")
        self.batch_size = batch_size

    def set_thread(self, thread_num: int) -> None:
        # accepted: files are read one after another here (module docstring)
        self.thread_num = thread_num

    def set_filelist(self, filelist: Sequence[str]) -> None:
        self.filelist = [str(f) for f in filelist]

    def set_use_var(self, var_list: Sequence) -> None:
        for var in var_list:
            if var.dtype not in ("int64", "float32"):
                raise FeedError(f"set_use_var: slot {var.name!r} is {var.dtype}; Fluid's "
                                "MultiSlot feed holds int64 ids and float32 values")
        self.use_vars = list(var_list)

    def set_hdfs_config(self, fs_name: str, fs_ugi: str) -> None:
        raise FeedError("set_hdfs_config: paddle-ir reads local files only; copy the data "
                        "from HDFS first")

    def desc(self) -> str:
        slots = ", ".join(f"{v.name}:{v.dtype}:lod_level={v.lod_level}" for v in self.use_vars)
        return (f"{type(self).__name__}(pipe_command={self.pipe_command!r}, batch_size="
                f"{self.batch_size}, files={len(self.filelist)}, slots=[{slots}])")

    # -- reading ------------------------------------------------------------------------
    def _check_ready(self) -> None:
        if not self.use_vars:
            raise FeedError("the dataset has no slots: call set_use_var([...]) with the data "
                            "variables its lines hold, in order")
        if not self.filelist:
            # Fluid runs such a pass with no batches (its reader threads get no file):
            # PaddleRec's dcn ends with an empty partial epoch by design
            warnings.warn("the dataset has no files (set_filelist([])): the pass reads no "
                          "instances and trains no batch", stacklevel=3)

    def _lines(self, path: str) -> Iterator[str]:
        """The pipe command's output lines for one file (the file on its stdin)."""
        try:
            source = open(path, "rb")  # noqa: SIM115 - closed below, after the command ends
        except OSError as exc:
            raise FeedError(f"dataset file {path}: {exc.strerror}") from None
        # stderr to a file, not a pipe: a command that writes much of it while we read its
        # stdout would block on a full pipe that nobody reads
        with source, tempfile.TemporaryFile() as errors:
            process = subprocess.Popen(self.pipe_command, shell=True, stdin=source,
                                       stdout=subprocess.PIPE, stderr=errors)
            try:
                for raw in process.stdout:
                    yield raw.decode("utf-8", errors="replace")
            finally:
                process.stdout.close()
                code = process.wait()
            errors.seek(0)
            stderr = errors.read().decode("utf-8", errors="replace")
        if code != 0:
            raise FeedError(f"dataset file {path}: the pipe command {self.pipe_command!r} "
                            f"exited with status {code}" + (f": {stderr.strip()[-500:]}"
                                                            if stderr.strip() else ""))

    def _instances(self) -> Iterator[list]:
        for path in self.filelist:
            for number, line in enumerate(self._lines(path), 1):
                if line.strip():
                    yield parse_multislot_line(line, self.use_vars, path, number)

    def _batches(self, instances) -> Iterator[dict]:
        batch = []
        for instance in instances:
            batch.append(instance)
            if len(batch) == self.batch_size:
                yield feed_of(batch, self.use_vars)
                batch = []
        if batch:  # Fluid trains the last, smaller batch too
            yield feed_of(batch, self.use_vars)


class QueueDataset(DatasetBase):
    """Streams the files through the pipe command at each pass; nothing kept in memory."""

    def local_shuffle(self) -> None:
        raise FeedError("QueueDataset does not shuffle: it streams its files; use "
                        "InMemoryDataset for local_shuffle / global_shuffle")

    def global_shuffle(self, fleet=None, thread_num: int = 12) -> None:
        self.local_shuffle()

    def batches(self) -> Iterator[dict]:
        """One pass: feed dicts of `batch_size` instances (what train_from_dataset runs)."""
        self._check_ready()
        return self._batches(self._instances())


class InMemoryDataset(DatasetBase):
    """Reads every file once (`load_into_memory`), then shuffles and trains from memory."""

    def __init__(self):
        super().__init__()
        self._memory: list | None = None

    def load_into_memory(self) -> None:
        self._check_ready()
        self._memory = list(self._instances())

    def preload_into_memory(self, thread_num: int | None = None) -> None:
        self.load_into_memory()  # there is no background thread to wait for

    def wait_preload_done(self) -> None:
        """Nothing to wait for: preload_into_memory read the files."""

    def local_shuffle(self) -> None:
        random.shuffle(self._loaded())

    def global_shuffle(self, fleet=None, thread_num: int = 12) -> None:
        self.local_shuffle()  # one process: every instance is local

    def release_memory(self) -> None:
        self._memory = None

    def get_memory_data_size(self, fleet=None) -> int:
        return len(self._loaded())

    def get_shuffle_data_size(self, fleet=None) -> int:
        return len(self._loaded())

    def batches(self) -> Iterator[dict]:
        """One pass over the loaded instances in their current order."""
        return self._batches(iter(list(self._loaded())))

    def _loaded(self) -> list:
        if self._memory is None:
            raise FeedError("the InMemoryDataset holds no data: call load_into_memory() "
                            "first (or again, after release_memory())")
        return self._memory


def parse_multislot_line(line: str, use_vars: Sequence, path: str, number: int) -> list:
    """One MultiSlot text line: per slot a count, then that many values."""
    tokens = line.split()
    pos = 0
    values = []
    for var in use_vars:
        where = f"{path}, line {number}, slot {var.name!r}"
        if pos >= len(tokens):
            raise FeedError(f"{where}: the line ends before this slot (MultiSlot text: a "
                            "count, then that many values, for each slot in set_use_var's order)")
        try:
            count = int(tokens[pos])
        except ValueError:
            raise FeedError(f"{where}: the count {tokens[pos][:40]!r} is not an integer") from None
        if count <= 0:
            raise FeedError(f"{where}: the count is {count}; each slot needs at least one "
                            "value (pad it in the data generator)")
        if pos + 1 + count > len(tokens):
            raise FeedError(f"{where}: the count says {count} values, but the line has "
                            f"{len(tokens) - pos - 1} left")
        per_instance = _dense_width(var)
        if per_instance is not None and count != per_instance:
            raise FeedError(f"{where}: the dense slot is declared {list(var.shape)}, so each "
                            f"instance holds {per_instance} value(s), but the count is {count}")
        fields = tokens[pos + 1:pos + 1 + count]
        try:
            if var.dtype == "int64":
                slot = np.array([int(f) for f in fields], np.int64)
            else:
                slot = np.array([float(f) for f in fields], np.float32)
        except (ValueError, OverflowError):
            raise FeedError(f"{where}: the values are not all {var.dtype}: "
                            f"{' '.join(fields)[:80]!r}") from None
        values.append(slot)
        pos += 1 + count
    if pos != len(tokens):
        raise FeedError(f"{path}, line {number}: {len(tokens) - pos} value(s) after the last "
                        f"slot ({use_vars[-1].name!r}); the line has more slots than "
                        "set_use_var names")
    return values


def _dense_width(var) -> int | None:
    """The values one instance of a dense slot holds, when its declaration says."""
    dims = list(var.shape)[1:]
    if var.lod_level >= 1 or not dims or any(d < 0 for d in dims):
        return None
    return int(np.prod(dims))


def feed_of(batch: list, use_vars: Sequence) -> dict:
    """A feed dict of instances: LoDTensors for sequence slots, stacked arrays for dense."""
    feed = {}
    for i, var in enumerate(use_vars):
        slots = [instance[i] for instance in batch]
        if var.lod_level >= 1:
            tensor = LoDTensor(np.concatenate(slots).reshape(-1, 1))
            tensor.set_recursive_sequence_lengths([[len(s) for s in slots]])
            feed[var.name] = tensor
            continue
        sizes = {len(s) for s in slots}
        if len(sizes) != 1:
            raise FeedError(f"dense slot {var.name!r} (lod_level 0) has {sorted(sizes)} values "
                            "in different instances of one batch; a dense slot needs the "
                            "same count in every instance")
        stacked = np.stack(slots)
        shape = [len(batch) if d == -1 else d for d in var.shape]
        if int(np.prod(shape)) != stacked.size:
            raise FeedError(f"dense slot {var.name!r} is declared {list(var.shape)}, but "
                            f"{len(batch)} instances of {sizes.pop()} values do not fill "
                            f"{shape}")
        feed[var.name] = stacked.reshape(shape)
    return feed
