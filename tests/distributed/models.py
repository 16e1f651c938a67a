"""Small models for the distributed tests: a sparse embedding, a sliced fc, an optimizer."""

from __future__ import annotations

import numpy as np

import paddle_ir as pir

VOCAB, DIM = 60, 4


def ctr_model(distributed: bool, optimizer, vocab: int = VOCAB, slots: int = 1, seed: int = 3):
    """(main, startup, loss, prob): ids [-1, slots] -> shared embedding -> fc(16) -> fc(1)."""
    main, startup = pir.Program(), pir.Program()
    startup.random_seed = seed
    with pir.program_guard(main, startup):
        ids = pir.layers.data("ids", [-1, slots], dtype="int64")
        y = pir.layers.data("y", [-1, 1])
        emb = pir.layers.embedding(ids, [vocab, DIM], is_sparse=True,
                                   is_distributed=distributed,
                                   param_attr=pir.ParamAttr(name="table"))
        flat = pir.layers.reshape(emb, [-1, slots * DIM])
        hidden = pir.layers.fc(flat, 16, act="relu")
        pred = pir.layers.fc(hidden, 1)
        loss = pir.layers.mean(pir.layers.square(pred - y))
        optimizer().minimize(loss)
    main.desc.feed_target_names.extend(["ids", "y"])
    main.desc.fetch_target_names.append(loss.name)
    return main, startup, loss, pred


def batches(steps: int, batch: int, vocab: int = VOCAB, slots: int = 1, seed: int = 0):
    rng = np.random.RandomState(seed)
    out = []
    for _ in range(steps):
        ids = rng.randint(0, vocab, (batch, slots)).astype(np.int64)
        y = (np.sin(ids.sum(axis=1, keepdims=True)) > 0).astype(np.float32)
        out.append({"ids": ids, "y": y})
    return out


def split_batches(global_batches, trainers: int):
    """Trainer t's share of every global batch: rows [t * b, (t + 1) * b)."""
    per = len(global_batches[0]["ids"]) // trainers
    return [[{k: v[t * per:(t + 1) * per] for k, v in b.items()} for b in global_batches]
            for t in range(trainers)]


def initial_and_trained(main, startup, loss, global_batches):
    """(persistables after startup, after training on the global batches) on one machine."""
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    names = [v.name for v in main.global_block().vars.values() if v.persistable]
    initial = {n: np.array(scope.find_var(n).get_tensor().numpy()) for n in names}
    losses = [exe.run(main, feed=b, fetch_list=[loss], scope=scope)[0].item()
              for b in global_batches]
    trained = {n: np.array(scope.find_var(n).get_tensor().numpy()) for n in names}
    return initial, trained, losses
