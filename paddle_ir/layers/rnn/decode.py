"""Fluid 1.7's decoding API: Decoder, BasicDecoder with its helpers (DecodeHelper,
TrainingHelper, GreedyEmbeddingHelper, SampleEmbeddingHelper), BeamSearchDecoder and
dynamic_decode.

dynamic_decode() unrolls its loop over `max_step_num` steps when the program is
built (so it requires max_step_num). Finished sequences keep their state (and,
in beam search, extend only with end_token at no cost), so the results equal
Fluid's dynamic loop; the decoded time dim is max_step_num rather than the step
at which every sequence finished (return_length gives the true lengths).
"""

from __future__ import annotations

from paddle_ir.core.errors import InvalidProgramError
from paddle_ir.framework import Variable
from paddle_ir.layers.control_flow.compare import equal, greater_equal
from paddle_ir.layers.nn.dense import softmax, topk
from paddle_ir.layers.nn.elementwise import (
    elementwise_add,
    elementwise_floordiv,
    elementwise_mod,
    elementwise_mul,
    log,
    logical_not,
    logical_or,
)
from paddle_ir.layers.nn.indexing import gather, gather_tree
from paddle_ir.layers.nn.random import sampling_id
from paddle_ir.layers.nn.shapes import expand_as, reshape
from paddle_ir.layers.ops import cumsum
from paddle_ir.layers.rnn.cells import (
    RNNCell,
    flatten_structure,
    map_structure,
    select_rows,
    stack_steps,
    time_slice,
)
from paddle_ir.layers.tensor import cast, concat, fill_constant, fill_constant_batch_size_like
from paddle_ir.layers.tensor import range as range_

__all__ = ["BasicDecoder", "BeamSearchDecoder", "DecodeHelper", "Decoder", "GreedyEmbeddingHelper",
           "SampleEmbeddingHelper", "TrainingHelper", "dynamic_decode"]


class Decoder:
    """The decoder interface of dynamic_decode: initialize, step and (optionally) finalize."""

    def initialize(self, inits):
        raise TypeError(f"{type(self).__name__} must define initialize(inits)")

    def step(self, time, inputs, states, **kwargs):
        raise TypeError(f"{type(self).__name__} must define step(time, inputs, states)")

    def finalize(self, outputs, final_states, sequence_lengths):
        return outputs, final_states


class DecodeHelper:
    """The sampling interface of BasicDecoder: initialize, sample, next_inputs."""

    def initialize(self):
        raise TypeError(f"{type(self).__name__} must define initialize()")

    def sample(self, time, outputs, states):
        raise TypeError(f"{type(self).__name__} must define sample()")

    def next_inputs(self, time, outputs, states, sample_ids):
        raise TypeError(f"{type(self).__name__} must define next_inputs()")


def _argmax_ids(logits: Variable) -> Variable:
    _, ids = topk(logits, 1)
    return reshape(ids, [-1])


class TrainingHelper(DecodeHelper):
    """Teacher forcing: step t reads inputs[:, t]; finished once t >= sequence_length."""

    def __init__(self, inputs, sequence_length: Variable, time_major: bool = False):
        self.inputs = inputs
        self.sequence_length = sequence_length
        self.time_major = time_major
        self._axis = 0 if time_major else 1
        self._steps = flatten_structure(inputs)[0].shape[self._axis]

    def _slice(self, t: int):
        if t >= self._steps:  # past the inputs: any value will do, the sequence is finished
            t = self._steps - 1
        return map_structure(lambda x: time_slice(x, t, self._axis), self.inputs)

    def initialize(self):
        return self._slice(0), _finished_at(self.sequence_length, 0)

    def sample(self, time, outputs, states):
        return _argmax_ids(outputs)

    def next_inputs(self, time, outputs, states, sample_ids):
        t = _step_of(time)
        return _finished_at(self.sequence_length, t + 1), self._slice(t + 1), states


def _step_of(time: Variable) -> int:
    step = getattr(time, "static_step", None)
    if step is None:
        raise InvalidProgramError("this helper needs the time Variable dynamic_decode passes")
    return step


def _finished_at(sequence_length: Variable, t: int) -> Variable:
    """[B] bool: t >= sequence_length."""
    return greater_equal(fill_constant([1], sequence_length.dtype, t),
                         reshape(sequence_length, [-1]))


class GreedyEmbeddingHelper(DecodeHelper):
    """Greedy decoding: the argmax id is the next input (embedded); finished at end_token."""

    def __init__(self, embedding_fn, start_tokens: Variable, end_token: int):
        self.embedding_fn = embedding_fn
        self.start_tokens = start_tokens
        self.end_token = int(end_token)

    def initialize(self):
        finished = fill_constant_batch_size_like(self.start_tokens, [-1], "bool", 0)
        return self.embedding_fn(self.start_tokens), finished

    def sample(self, time, outputs, states):
        return _argmax_ids(outputs)

    def next_inputs(self, time, outputs, states, sample_ids):
        finished = equal(sample_ids, fill_constant([1], sample_ids.dtype, self.end_token))
        return finished, self.embedding_fn(sample_ids), states


class SampleEmbeddingHelper(GreedyEmbeddingHelper):
    """Sampling decoding: the next id is drawn from softmax(logits / softmax_temperature)."""

    def __init__(self, embedding_fn, start_tokens: Variable, end_token: int,
                 softmax_temperature: float | None = None, seed: int | None = None):
        super().__init__(embedding_fn, start_tokens, end_token)
        self.softmax_temperature = softmax_temperature
        self.seed = seed

    def sample(self, time, outputs, states):
        logits = outputs if self.softmax_temperature is None else \
            outputs * (1.0 / float(self.softmax_temperature))
        return sampling_id(softmax(logits), seed=self.seed or 0)


class BasicDecoder(Decoder):
    """cell + output_fn + a DecodeHelper; outputs are (cell_outputs, sample_ids)."""

    def __init__(self, cell: RNNCell, helper: DecodeHelper, output_fn=None):
        self.cell, self.helper, self.output_fn = cell, helper, output_fn

    def initialize(self, initial_cell_states):
        inputs, finished = self.helper.initialize()
        return inputs, initial_cell_states, finished

    def step(self, time, inputs, states, **kwargs):
        cell_outputs, cell_states = self.cell(inputs, states, **kwargs)
        if self.output_fn is not None:
            cell_outputs = self.output_fn(cell_outputs)
        sample_ids = self.helper.sample(time, cell_outputs, cell_states)
        sample_ids.stop_gradient = True
        finished, next_inputs, next_states = self.helper.next_inputs(time, cell_outputs,
                                                                     cell_states, sample_ids)
        return (cell_outputs, sample_ids), next_states, next_inputs, finished


class BeamSearchDecoder(Decoder):
    """Beam search over a cell: keeps beam_size hypotheses per batch entry, scored by their
    summed log-probabilities; finished beams only extend with end_token at no cost.
    finalize backtracks the parent ids (gather_tree) into full [T, B, beam] id paths."""

    def __init__(self, cell: RNNCell, start_token: int, end_token: int, beam_size: int,
                 embedding_fn=None, output_fn=None):
        self.cell = cell
        self.start_token, self.end_token = int(start_token), int(end_token)
        self.beam_size = int(beam_size)
        self.embedding_fn, self.output_fn = embedding_fn, output_fn

    @staticmethod
    def tile_beam_merge_with_batch(x: Variable, beam_size: int) -> Variable:
        """[B, ...] -> [B * beam_size, ...], each row repeated beam_size times."""
        tail = [d if d >= 0 else -1 for d in x.shape[1:]]
        expanded = reshape(x, [-1, 1] + tail)
        target = fill_constant_batch_size_like(x, [-1, beam_size] + tail, x.dtype, 0.0)
        return reshape(expand_as(expanded, target), [-1] + tail)

    def _split(self, x: Variable) -> Variable:
        return reshape(x, [-1, self.beam_size] + [d if d >= 0 else -1 for d in x.shape[1:]])

    def _merge(self, x: Variable) -> Variable:
        return reshape(x, [-1] + [d if d >= 0 else -1 for d in x.shape[2:]])

    def initialize(self, initial_cell_states):
        states = map_structure(lambda s: self.tile_beam_merge_with_batch(s, self.beam_size),
                      initial_cell_states)
        ref = flatten_structure(initial_cell_states)[0]
        ids = fill_constant_batch_size_like(ref, [-1, self.beam_size], "int64",
                                            self.start_token)
        # beam 0 starts with log-prob 0, the others with -inf so that the first step
        # expands a single hypothesis
        first = fill_constant_batch_size_like(ref, [-1, 1], "float32", 0.0)
        rest = fill_constant_batch_size_like(ref, [-1, self.beam_size - 1], "float32", -1e9)
        log_probs = concat([first, rest], axis=1) if self.beam_size > 1 else first
        finished = fill_constant_batch_size_like(ref, [-1, self.beam_size], "bool", 0)
        lengths = fill_constant_batch_size_like(ref, [-1, self.beam_size], "int64", 0)
        inputs = self.embedding_fn(ids) if self.embedding_fn else ids
        return inputs, (states, log_probs, finished, lengths), finished

    def step(self, time, inputs, states, **kwargs):
        cell_states, log_probs, finished, lengths = states
        merged_in = map_structure(self._merge, inputs)
        cell_out, next_cell = self.cell(merged_in, cell_states, **kwargs)
        if self.output_fn is not None:
            cell_out = self.output_fn(cell_out)
        logits = self._split(cell_out)                               # [B, beam, V]
        vocab = logits.shape[-1]
        step_lp = log(softmax(logits))
        # finished beams: 0 for end_token, -inf elsewhere, so they stay as they are
        end_row = cast(equal(range_(0, vocab, 1, "int64"),
                             fill_constant([1], "int64", self.end_token)), "float32")
        ended = (end_row - 1.0) * 1e9                                # 0 at end, -1e9 elsewhere
        fin = cast(reshape(finished, [-1, self.beam_size, 1]), "float32")
        step_lp = elementwise_add(elementwise_mul(step_lp, 1.0 - fin),
                                  elementwise_mul(fin, ended, axis=-1))
        total = elementwise_add(step_lp, reshape(log_probs, [-1, self.beam_size, 1]))
        flat = reshape(total, [-1, self.beam_size * vocab])
        scores, idx = topk(flat, self.beam_size)                     # [B, beam]
        vocab_t = fill_constant([1], "int64", vocab)
        parents = elementwise_floordiv(idx, vocab_t)
        tokens = elementwise_mod(idx, vocab_t)
        batch_pos = _batch_offsets(parents, self.beam_size)
        rows = reshape(parents + batch_pos, [-1])                    # rows of [B * beam]
        next_cell = map_structure(lambda s: gather(s, rows), next_cell)
        prev_fin = reshape(gather(reshape(finished, [-1, 1]), rows), [-1, self.beam_size])
        prev_len = reshape(gather(reshape(lengths, [-1, 1]), rows), [-1, self.beam_size])
        next_len = prev_len + cast(logical_not(prev_fin), "int64")
        next_fin = logical_or(prev_fin, equal(tokens, fill_constant([1], "int64",
                                                                    self.end_token)))
        next_inputs = self.embedding_fn(tokens) if self.embedding_fn else tokens
        outputs = (scores, tokens, parents)
        return outputs, (next_cell, scores, next_fin, next_len), next_inputs, next_fin

    def finalize(self, outputs, final_states, sequence_lengths):
        _, tokens, parents = outputs                                 # each [T, B, beam]
        return gather_tree(tokens, parents), final_states


def _batch_offsets(parents: Variable, beam: int) -> Variable:
    """[B, 1] int64: b * beam for batch entry b (the row of its first beam in [B * beam])."""
    ones = fill_constant_batch_size_like(parents, [-1, 1], "int64", 1)
    row = cumsum(ones, axis=0, exclusive=True)                       # 0, 1, 2, ...
    return elementwise_mul(row, fill_constant([1], "int64", beam))


def _zeros_like_rows(ref: Variable, dtype: str, value=0):
    return fill_constant_batch_size_like(ref, [-1] + [d if d >= 0 else -1
                                                      for d in ref.shape[1:]], dtype, value)


def dynamic_decode(decoder: Decoder, inits=None, max_step_num: int | None = None,
                   output_time_major: bool = False, impute_finished: bool = False,
                   is_test: bool = False, return_length: bool = False, **kwargs):
    """Run decoder.step for max_step_num steps (unrolled); returns (outputs, final_states)
    and, with return_length, the decoded lengths. Outputs are stacked on a time dim
    (batch-major unless output_time_major) after decoder.finalize."""
    if max_step_num is None:
        raise InvalidProgramError("dynamic_decode needs max_step_num: the loop is unrolled "
                                  "when the program is built")
    inputs, states, finished = decoder.initialize(inits)
    lengths = _zeros_like_rows(finished, "int64")
    step_outputs = []
    for t in range(int(max_step_num)):
        time = fill_constant([1], "int64", t)
        time.static_step = t
        outputs, next_states, next_inputs, next_finished = decoder.step(time, inputs, states,
                                                                        **kwargs)
        next_finished = logical_or(next_finished, finished)
        lengths = lengths + cast(logical_not(finished), "int64")
        if impute_finished:
            next_states = map_structure(lambda n, o, f=finished: select_rows(logical_not(f), n, o)
                               if len(n.shape) == len(o.shape) else n, next_states, states)
        step_outputs.append(outputs)
        inputs, states, finished = next_inputs, next_states, next_finished
    stacked = map_structure(lambda *vs: stack_steps(list(vs), 0), *step_outputs)
    final_outputs, final_states = decoder.finalize(stacked, states, lengths)
    if not output_time_major:
        final_outputs = map_structure(_batch_major, final_outputs)
    return (final_outputs, final_states, lengths) if return_length else \
        (final_outputs, final_states)


def _batch_major(x: Variable) -> Variable:
    steps = x.shape[0]
    return stack_steps([time_slice(x, t, 0) for t in range(steps)], 1)
