"""What the fused recurrent ops (`lstm`, `gru`) share: sorted batch, activations, checks.

Paddle runs a mini-batch of variable-length sequences without padding by
sorting the sequences by length, longest first, and stepping them together:
at step t the sequences longer than t form one contiguous block of "batch
rows", so a step is one matrix product, and because the order is the same
at every step, the sequences alive at step t are the first ones alive at
step t-1. `SeqBatch` computes that layout once from the LoD; the kernels
gather their inputs into it, loop over time steps only, and scatter back.

    lengths [2, 3, 1]  ->  order [1, 0, 2]        (sorted seq -> original seq)
    step 0: seqs 1, 0, 2   step 1: seqs 1, 0   step 2: seq 1
    starts [0, 3, 5, 6]    (batch rows of step t: starts[t] .. starts[t+1])
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from paddle_ir.core.errors import KernelError
from paddle_ir.ops.context import dims_match, shape_str

# name -> (activation, derivative expressed through the activation's output y)
ACTIVATIONS = {
    "sigmoid": (lambda x: 0.5 * (np.tanh(0.5 * x) + 1.0), lambda y: y * (1.0 - y)),
    "tanh": (np.tanh, lambda y: 1.0 - y * y),
    "relu": (lambda x: np.maximum(x, 0), lambda y: (y > 0).astype(y.dtype)),
    "identity": (lambda x: x, lambda y: np.ones_like(y)),
}


def check_activations(ctx, names: tuple[str, ...]) -> None:
    """InferShape helper: every named activation attribute must be a known one."""
    for attr in names:
        value = ctx.attr(attr)
        ctx.enforce(value in ACTIVATIONS,
                    lambda: f"{attr} must be one of {sorted(ACTIVATIONS)}, got {value!r}")


@dataclass(frozen=True)
class SeqBatch:
    """The sorted, step-major batch layout of the last LoD level.

    `rows[b]` is the input row that batch row b reads (with `is_reverse`, a
    sequence's last row comes first); `order[k]` is the original index of the
    k-th longest sequence; `starts[t]:starts[t+1]` are the batch rows of step t.
    """

    order: np.ndarray
    starts: np.ndarray
    rows: np.ndarray
    num_seqs: int

    @classmethod
    def from_offsets(cls, offsets: np.ndarray, is_reverse: bool) -> SeqBatch:
        lengths = np.diff(offsets)
        order = np.argsort(-lengths, kind="stable")
        sorted_len = lengths[order]
        max_len = int(sorted_len[0]) if sorted_len.size else 0
        alive = (sorted_len[None, :] > np.arange(max_len)[:, None]).sum(axis=1)
        starts = np.zeros(max_len + 1, dtype=np.int64)
        np.cumsum(alive, out=starts[1:])
        step = np.repeat(np.arange(max_len), alive)
        rank = np.arange(starts[-1]) - np.repeat(starts[:-1], alive)
        seq = order[rank]
        pos = lengths[seq] - 1 - step if is_reverse else step
        return cls(order, starts, offsets[seq] + pos, len(lengths))

    @property
    def num_steps(self) -> int:
        return len(self.starts) - 1

    def step(self, t: int) -> tuple[int, int, int]:
        """(first batch row, end, count) of step t."""
        lo, hi = int(self.starts[t]), int(self.starts[t + 1])
        return lo, hi, hi - lo

    def prev_start(self, t: int) -> int:
        return int(self.starts[t - 1])

    def initial_state(self, value, width: int, dtype, slot: str) -> np.ndarray:
        """H0/C0 rows (given in original sequence order) in sorted order, or zeros."""
        if value is None:
            return np.zeros((self.num_seqs, width), dtype=dtype)
        arr = np.asarray(value)
        if arr.shape != (self.num_seqs, width):
            raise KernelError(
                f"{slot} must have one row per sequence, shape [{self.num_seqs}, {width}], "
                f"got {list(arr.shape)}")
        return arr[self.order]

    def unsort_state(self, sorted_grad: np.ndarray) -> np.ndarray:
        """The gradient of an initial state, back in the original sequence order."""
        out = np.empty_like(sorted_grad)
        out[self.order] = sorted_grad
        return out

    def scatter(self, batch_values: np.ndarray) -> np.ndarray:
        """Batch-ordered rows back at their input rows."""
        out = np.empty_like(batch_values)
        out[self.rows] = batch_values
        return out


def sequence_offsets(x, slot: str = "Input") -> np.ndarray:
    """The offsets of the level that segments rows (the last one)."""
    if not x.offsets:
        raise KernelError(f"{slot} must be a LoDTensor with at least one LoD level")
    return x.offsets[-1]


# --- InferShape helpers ---------------------------------------------------------------------


def require_sequence_input(ctx, op_type: str, layer: str) -> None:
    """Input must carry a LoD: the recurrence runs over its sequences."""
    level = ctx.input_lod_level("Input")
    ctx.enforce(
        level >= 1,
        lambda: f"Input of {op_type} must be a sequence (a LoDTensor with lod_level >= 1), got "
        f"lod_level {level}",
        hint=
        lambda: f"declare the input with layers.data(..., lod_level=1) (or compute it from such "
             f"a variable) and feed a LoDTensor; {layer} runs over the sequences of its LoD")


def check_state(ctx, slot: str, width: int) -> None:
    """H0 / C0, when given: [N, D] with Input's dtype."""
    if not ctx.has_input(slot):
        return
    shape = ctx.input_shape(slot)
    ctx.enforce(len(shape) == 2 and dims_match(shape[1], width), lambda:
                f"{slot} must be [N, {width}] (one row per sequence), got {shape_str(shape)}")
    ctx.enforce(ctx.input_dtype(slot) == ctx.input_dtype("Input"),
                lambda: f"{slot} must have Input's dtype {ctx.input_dtype('Input')}, got "
                f"{ctx.input_dtype(slot)}")


def projected_width(ctx, gates: int) -> int:
    """D from Weight [D, gates*D], after checking Input [T, gates*D] against it."""
    x, w = ctx.input_shape("Input"), ctx.input_shape("Weight")
    ctx.enforce(len(x) == 2, lambda: f"Input must be 2-D [T, {gates}D], got {shape_str(x)}")
    ctx.enforce(len(w) == 2, lambda: f"Weight must be 2-D [D, {gates}D], got {shape_str(w)}")
    # D from whichever dim is known (a program may leave any of them -1).
    known = [v for v in (w[0], w[1] // gates if w[1] >= 0 else -1,
                         x[1] // gates if x[1] >= 0 else -1) if v >= 0]
    d = known[0] if known else -1
    wide = gates * d if d >= 0 else -1
    ctx.enforce(dims_match(w[0], d), lambda: f"Weight must be [D, {gates}D], got {shape_str(w)}")
    ctx.enforce(dims_match(w[1], wide),
                lambda: f"Weight must be [D, {gates}D], got {shape_str(w)}")
    ctx.enforce(dims_match(x[1], wide),
                lambda: f"Input.shape[1] must be {gates} * D = {wide} (D = Weight.shape[0]), got "
                f"Input.shape={shape_str(x)}",
                hint=lambda: "project the input to the gate width first (an fc of size "
                     f"{gates} * D without activation)")
    for slot in ("Weight", "Bias"):
        if ctx.has_input(slot):
            ctx.enforce(ctx.input_dtype(slot) == ctx.input_dtype("Input"),
                        lambda: f"{slot} must have Input's dtype {ctx.input_dtype('Input')}, got "
                        f"{ctx.input_dtype(slot)}")
    return d
