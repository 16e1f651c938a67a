"""Seed inputs for the fuzz targets: valid programs, tensor records, parameter and feed files.

Every seed is built by paddle-ir itself (nothing is shipped as opaque bytes),
under a fresh name namespace with fixed seeds, so a run's inputs depend only
on hypothesis's draws. The mutators start from these and break them.
"""

from __future__ import annotations

import functools
import io

import numpy as np

import paddle_ir as pir
from paddle_ir.core import tensor_io
from paddle_ir.framework import unique_name
from paddle_ir.proto import framework_pb2 as pb


def _classifier() -> tuple[pir.Program, pir.Program]:
    """LoD ids -> sparse embedding -> sequence_pool -> fc -> softmax loss, lazy Adam."""
    main, startup = pir.Program(), pir.Program()
    main.random_seed = startup.random_seed = 1
    with pir.program_guard(main, startup):
        words = pir.layers.data("words", [-1, 1], dtype="int64", lod_level=1)
        label = pir.layers.data("label", [-1, 1], dtype="int64")
        emb = pir.layers.embedding(words, [50, 8], is_sparse=True)
        pooled = pir.layers.sequence_pool(emb, "average")
        logits = pir.layers.fc(pooled, 4, act="relu")
        loss = pir.layers.mean(pir.layers.softmax_with_cross_entropy(logits, label))
        pir.optimizer.Adam(0.01, lazy_mode=True).minimize(loss)
    main.desc.feed_target_names.extend(["words", "label"])
    main.desc.fetch_target_names.append(loss.name)
    return main, startup


def _mlp() -> tuple[pir.Program, pir.Program]:
    """Two fc layers, reshape, concat, top_k and accuracy, trained with momentum."""
    main, startup = pir.Program(), pir.Program()
    main.random_seed = startup.random_seed = 2
    with pir.program_guard(main, startup):
        x = pir.layers.data("x", [-1, 6])
        label = pir.layers.data("label", [-1, 1], dtype="int64")
        h = pir.layers.fc(x, 5, act="tanh")
        h = pir.layers.concat([h, pir.layers.reshape(x, [-1, 6])], axis=1)
        probs = pir.layers.fc(h, 3, act="softmax")
        loss = pir.layers.mean(pir.layers.cross_entropy(probs, label))
        pir.layers.accuracy(probs, label, k=2)
        pir.optimizer.Momentum(0.1, 0.9).minimize(loss)
    return main, startup


def _sequences() -> tuple[pir.Program, pir.Program]:
    """Two-level LoD through the sequence ops and an LSTM."""
    main, startup = pir.Program(), pir.Program()
    main.random_seed = startup.random_seed = 3
    with pir.program_guard(main, startup):
        x = pir.layers.data("seq", [-1, 4], lod_level=2)
        y = pir.layers.data("y", [-1, 4], lod_level=1)
        expanded = pir.layers.sequence_expand(y, x, ref_level=0)
        soft = pir.layers.sequence_softmax(pir.layers.reduce_sum(x, dim=[1], keep_dim=True))
        padded, length = pir.layers.sequence_pad(y, pir.layers.fill_constant([1], "float32",
                                                                              0.0))
        pir.layers.sequence_unpad(padded, length)
        pir.layers.sequence_reverse(pir.layers.sequence_concat([y, y]))
        proj = pir.layers.fc(y, 16)
        hidden, _ = pir.layers.dynamic_lstm(proj, 16)
        pir.layers.sequence_last_step(hidden)
        pir.layers.lod_reset(expanded, y)
        pir.layers.sequence_mask(length, maxlen=5)
        pir.layers.cast(soft, "float64")
    return main, startup


def _sparse() -> tuple[pir.Program, pir.Program]:
    """CSR features, sparse_dot, storage casts and retain, trained with Adagrad."""
    main, startup = pir.Program(), pir.Program()
    main.random_seed = startup.random_seed = 4
    with pir.program_guard(main, startup):
        x = pir.layers.csr_data("x", [-1, 20])
        label = pir.layers.data("label", [-1, 1])
        helper = pir.layers.helper.LayerHelper("lr")
        w = helper.create_parameter(pir.ParamAttr(), [20, 1])
        logits = pir.layers.sparse_dot(x, w)
        loss = pir.layers.mean(pir.layers.sigmoid_cross_entropy_with_logits(logits, label))
        rows = pir.layers.cast_storage(pir.layers.matmul(logits, logits, transpose_x=True),
                                       "row_sparse")
        pir.layers.cast_storage(rows, "default")
        pir.optimizer.Adagrad(0.1).minimize(loss)
    return main, startup


BUILDERS = (_classifier, _mlp, _sequences, _sparse)


@functools.lru_cache(maxsize=1)
def programs() -> tuple[pb.ProgramDesc, ...]:
    """Main and startup programs of every builder, as descs (mutate copies only)."""
    descs = []
    for build in BUILDERS:
        with unique_name.guard():
            main, startup = build()
        descs += [main.desc, startup.desc]
    return tuple(descs)


@functools.lru_cache(maxsize=1)
def program_bytes() -> tuple[bytes, ...]:
    return tuple(d.SerializeToString(deterministic=True) for d in programs())


def _dense_values() -> list:
    rng = np.random.default_rng(0)
    return [
        np.float32(2.5),
        np.zeros((0, 3), np.float32),
        rng.random((3, 4)).astype(np.float32),
        rng.integers(0, 9, (5,)).astype(np.int64),
        np.array([True, False]),
        rng.random((2, 2, 2)).astype(np.float16),
        pir.create_lod_tensor(rng.random((6, 2)), [[3, 1, 2]]),
        pir.create_lod_tensor(np.arange(5, dtype=np.int32).reshape(5, 1), [[2, 0], [3, 2]]),
    ]


@functools.lru_cache(maxsize=1)
def lod_records() -> tuple[bytes, ...]:
    return tuple(tensor_io.serialize_lod_tensor(v) for v in _dense_values())


@functools.lru_cache(maxsize=1)
def selected_rows_records() -> tuple[bytes, ...]:
    return tuple(tensor_io.serialize_selected_rows(sr) for sr in (
        pir.SelectedRows([7, 2, 7], np.ones((3, 2), np.float32), 10),
        pir.SelectedRows([], np.zeros((0, 4), np.float64), 3),
        pir.SelectedRows([0], np.arange(6, dtype=np.int64).reshape(1, 2, 3), 1),
    ))


@functools.lru_cache(maxsize=1)
def csr_records() -> tuple[bytes, ...]:
    return tuple(tensor_io.serialize_csr(c) for c in (
        pir.CSRTensor([7.0, 8.0, 9.0], [0, 2, 1], [0, 2, 2, 3], (3, 5)),
        pir.CSRTensor(np.zeros(0, np.float32), [], [0, 0], (1, 4)),
    ))


def params_program() -> pb.ProgramDesc:
    """The program whose persistables the parameter-file target loads."""
    return programs()[0]  # the classifier: dense fc weights, Adam moments, an embedding


@functools.lru_cache(maxsize=1)
def npy_files() -> tuple[bytes, ...]:
    seeds = []
    for value in (np.arange(6, dtype=np.float32).reshape(2, 3), np.int64(4),
                  np.zeros((0,), np.float64), np.array([[1, 2]], dtype=">i4"),
                  np.asfortranarray(np.ones((2, 3), np.float32))):
        buf = io.BytesIO()
        np.save(buf, value, allow_pickle=False)
        seeds.append(buf.getvalue())
    return tuple(seeds)


@functools.lru_cache(maxsize=1)
def npz_files() -> tuple[bytes, ...]:
    seeds = []
    for compressed in (False, True):
        buf = io.BytesIO()
        save = np.savez_compressed if compressed else np.savez
        save(buf, x=np.ones((2, 3), np.float32),
             **{"words": np.arange(4, dtype=np.int64).reshape(4, 1),
                "words.lod": np.asarray("[[3, 1]]"),
                "g.rows": np.array([1, 1]), "g.value": np.ones((2, 2)),
                "g.height": np.asarray(3),
                "c.data": np.ones(2), "c.indices": np.array([0, 2]),
                "c.indptr": np.array([0, 1, 2]), "c.shape": np.array([2, 3])})
        seeds.append(buf.getvalue())
    return tuple(seeds)
