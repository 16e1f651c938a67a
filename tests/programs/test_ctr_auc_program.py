"""A CTR-style model in the style of PaddlePaddle/models' ctr DNN: sparse id embeddings
(pooled per instance) and dense features into an MLP with a softmax click probability,
trained with Adam on a synthetic rule, evaluated by layers.auc's batch and global AUC, with
gradient clipping and a decaying learning rate; the global AUC must exceed 0.9."""

import numpy as np

import paddle_ir as pir
from paddle_ir import layers
from paddle_ir.core.lod_tensor import LoDTensor
from paddle_ir.passes.clip import GradientClipByGlobalNorm

VOCAB, DENSE = 50, 4


def _batch(rng, n):
    lengths = rng.randint(1, 4, size=n)
    ids = rng.randint(0, VOCAB, size=(lengths.sum(), 1)).astype(np.int64)
    dense = rng.uniform(-1, 1, (n, DENSE)).astype(np.float32)
    # clicked when the instance holds an id below 15 or its first dense feature is large
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    has_low = np.array([(ids[s:s + k, 0] < 15).any() for s, k in zip(starts, lengths,
                                                                     strict=True)])
    label = (has_low | (dense[:, 0] > 0.6)).astype(np.int64).reshape(-1, 1)
    t = LoDTensor(ids)
    t.set_recursive_sequence_lengths([lengths.tolist()])
    return {"ids": t, "dense": dense, "label": label}


def test_ctr_dnn_with_auc_learns_the_rule():
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        ids = layers.data("ids", [-1, 1], dtype="int64", lod_level=1)
        dense = layers.data("dense", [-1, DENSE])
        label = layers.data("label", [-1, 1], dtype="int64")
        emb = layers.embedding(ids, [VOCAB, 8], is_sparse=True)
        pooled = layers.sequence_pool(emb, "sum")
        h = layers.fc([pooled, dense], 16, act="relu")
        prob = layers.fc(h, 2, act="softmax")
        loss = layers.mean(layers.cross_entropy(prob, label))
        global_auc, batch_auc, _ = layers.auc(prob, label, num_thresholds=255, slide_steps=5)
        test_prog = main.clone(for_test=True)  # before the optimizer: evaluation only
        lr = layers.exponential_decay(0.05, decay_steps=50, decay_rate=0.8)
        pir.optimizer.Adam(lr, grad_clip=GradientClipByGlobalNorm(5.0)).minimize(loss)
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    rng = np.random.RandomState(3)
    for _ in range(150):
        exe.run(main, feed=_batch(rng, 32), fetch_list=[loss], scope=scope)
    # the trained model scores held-out batches (the test program has no update ops)
    assert not [op for op in test_prog.global_block().ops if op.type in ("adam", "sgd")]
    aucs = [exe.run(test_prog, feed=_batch(rng, 64), fetch_list=[batch_auc], scope=scope)[0]
            for _ in range(5)]
    final_batch = float(np.asarray(aucs[-1]).reshape(-1)[0])
    (g,) = exe.run(test_prog, feed=_batch(rng, 64), fetch_list=[global_auc], scope=scope)
    assert final_batch > 0.9, final_batch
    assert float(np.asarray(g).reshape(-1)[0]) > 0.85
