"""A small seq2seq model in the machine-translation chapter's style, trained on a synthetic
copy task: a GRU encoder, a DynamicRNN decoder trained with teacher forcing, and the
While-loop beam-search decoder sharing the decoder's parameters by name."""

import numpy as np

import paddle_ir as pir
from paddle_ir import layers

V, E, H, LENGTH, BEAM = 7, 16, 32, 3, 3
START, END = 0, 1            # content tokens are 2..V-1


def encoder():
    src = layers.data("src", [-1, 1], dtype="int64", lod_level=1)
    emb = layers.embedding(src, size=[V, E], param_attr=pir.ParamAttr(name="src_emb"))
    proj = layers.fc(emb, size=3 * H, param_attr=pir.ParamAttr(name="enc_proj_w"),
                     bias_attr=pir.ParamAttr(name="enc_proj_b"))
    hidden = layers.dynamic_gru(proj, size=H, param_attr=pir.ParamAttr(name="enc_gru_w"),
                                bias_attr=pir.ParamAttr(name="enc_gru_b"))
    return layers.fc(layers.sequence_last_step(hidden), size=H, act="tanh",
                     param_attr=pir.ParamAttr(name="enc_out_w"),
                     bias_attr=pir.ParamAttr(name="enc_out_b"))


def decoder_step(pre_state, word_emb):
    """The decoder's cell, one definition for training and generation (shared names)."""
    state = layers.fc([pre_state, word_emb], size=H, act="tanh",
                      param_attr=[pir.ParamAttr(name="dec_ws"), pir.ParamAttr(name="dec_we")],
                      bias_attr=pir.ParamAttr(name="dec_b"))
    return state


def scores(state):
    return layers.fc(state, size=V, act="softmax", param_attr=pir.ParamAttr(name="out_w"),
                     bias_attr=pir.ParamAttr(name="out_b"))


def train_program():
    context = encoder()
    trg = layers.data("trg", [-1, 1], dtype="int64", lod_level=1)
    label = layers.data("label", [-1, 1], dtype="int64", lod_level=1)
    trg_emb = layers.embedding(trg, size=[V, E], param_attr=pir.ParamAttr(name="trg_emb"))
    rnn = layers.DynamicRNN()
    with rnn.block():
        word = rnn.step_input(trg_emb)
        pre_state = rnn.memory(init=context)
        state = decoder_step(pre_state, word)
        rnn.update_memory(pre_state, state)
        rnn.output(scores(state))
    prediction = rnn()
    return layers.mean(layers.cross_entropy(prediction, label))


def generation_program():
    context = encoder()
    init_ids = layers.data("init_ids", [-1, 1], dtype="int64", lod_level=2)
    init_scores = layers.data("init_scores", [-1, 1], dtype="float32", lod_level=2)
    array_len = layers.fill_constant(shape=[1], dtype="int64", value=LENGTH + 1)
    counter = layers.zeros(shape=[1], dtype="int64", force_cpu=True)
    state_array = layers.create_array("float32")
    layers.array_write(context, array=state_array, i=counter)
    ids_array, scores_array = layers.create_array("int64"), layers.create_array("float32")
    layers.array_write(init_ids, array=ids_array, i=counter)
    layers.array_write(init_scores, array=scores_array, i=counter)
    cond = layers.less_than(x=counter, y=array_len)
    while_op = layers.While(cond=cond)
    with while_op.block():
        pre_ids = layers.array_read(array=ids_array, i=counter)
        pre_state = layers.array_read(array=state_array, i=counter)
        pre_score = layers.array_read(array=scores_array, i=counter)
        pre_state_expanded = layers.sequence_expand(pre_state, pre_score)
        pre_ids_emb = layers.embedding(pre_ids, size=[V, E],
                                       param_attr=pir.ParamAttr(name="trg_emb"))
        state = decoder_step(pre_state_expanded, pre_ids_emb)
        current_score = scores(layers.lod_reset(state, y=pre_score))
        topk_scores, topk_indices = layers.topk(current_score, k=BEAM)
        accu = layers.elementwise_add(layers.log(topk_scores),
                                      layers.reshape(pre_score, shape=[-1]), axis=0)
        selected_ids, selected_scores = layers.beam_search(
            pre_ids, pre_score, topk_indices, accu, BEAM, end_id=END, level=0)
        with layers.Switch() as switch:
            with switch.case(layers.is_empty(selected_ids)):
                layers.fill_constant(shape=[1], value=0, dtype="bool", out=cond)
            with switch.default():
                layers.increment(x=counter, value=1, in_place=True)
                layers.array_write(state, array=state_array, i=counter)
                layers.array_write(selected_ids, array=ids_array, i=counter)
                layers.array_write(selected_scores, array=scores_array, i=counter)
                length_cond = layers.less_than(x=counter, y=array_len)
                finish_cond = layers.logical_not(layers.is_empty(x=selected_ids))
                layers.logical_and(x=length_cond, y=finish_cond, out=cond)
    return layers.beam_search_decode(ids_array, scores_array, beam_size=BEAM, end_id=END)


def copy_batch(rng, n):
    src = rng.randint(2, V, (n, LENGTH))
    lens = [[LENGTH + 1] * n]
    trg = np.concatenate([np.full((n, 1), START), src], 1).reshape(-1, 1)
    label = np.concatenate([src, np.full((n, 1), END)], 1).reshape(-1, 1)
    return src, {"src": pir.create_lod_tensor(src.reshape(-1, 1).astype(np.int64),
                                              [[LENGTH] * n]),
                 "trg": pir.create_lod_tensor(trg.astype(np.int64), lens),
                 "label": pir.create_lod_tensor(label.astype(np.int64), lens)}


def test_seq2seq_copy_task_decoded_with_beam_search():
    train, train_startup = pir.Program(), pir.Program()
    train.random_seed = train_startup.random_seed = 5
    with pir.program_guard(train, train_startup):
        loss = train_program()
        pir.optimizer.Adam(learning_rate=0.01).minimize(loss)
    gen, gen_startup = pir.Program(), pir.Program()
    with pir.program_guard(gen, gen_startup):
        sentence_ids, sentence_scores = generation_program()
    scope, exe = pir.Scope(), pir.Executor()
    exe.run(train_startup, scope=scope)
    rng = np.random.RandomState(0)
    for _ in range(300):
        _, feed = copy_batch(rng, 32)
        exe.run(train, feed=feed, fetch_list=[loss], scope=scope)
    n = 50
    src, feed = copy_batch(np.random.RandomState(123), n)
    feed = {"src": feed["src"],
            "init_ids": pir.create_lod_tensor(np.full((n, 1), START, np.int64),
                                              [[1] * n, [1] * n]),
            "init_scores": pir.create_lod_tensor(np.zeros((n, 1), np.float32),
                                                 [[1] * n, [1] * n])}
    ids, sc = exe.run(gen, feed=feed, fetch_list=[sentence_ids, sentence_scores], scope=scope,
                      return_numpy=False)
    sources, sentences = ids.lod()
    words = ids.numpy()
    copied = 0
    for k in range(n):
        first = sources[k]                       # the best hypothesis comes first
        best = words[sentences[first]:sentences[first + 1]]
        copied += list(best) == [START, *src[k], END]
        hyp_scores = [sc.numpy()[sentences[h + 1] - 1] for h in range(sources[k],
                                                                      sources[k + 1])]
        assert hyp_scores == sorted(hyp_scores, reverse=True)
    assert copied >= 0.9 * n
