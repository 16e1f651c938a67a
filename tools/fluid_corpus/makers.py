"""Per-program data makers: the arguments and synthetic data each corpus script runs on.

`plan_for(key, script, work)` gives the Plan of one script (key as run.py names it:
`models/<path>` or `book/<path>`). A maker writes the files the program reads, in the
program's own format and shapes, under `work`, and returns the program's own flags that
point at them and cut epochs and sizes. A script without a maker runs with its defaults
(the book's chapters read the shim's synthetic paddle.dataset).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np


@dataclass
class Plan:
    argv: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: Path | None = None
    samples: int = 256
    excluded: str | None = None  # a reason the script cannot run here, found by its maker
    made: bool = True  # False: no maker; the script ran with its defaults


MAKERS: dict[str, Callable[[Path, Path], Plan]] = {}


def maker(*keys: str):
    def register(fn):
        for key in keys:
            MAKERS[key] = fn
        return fn

    return register


def plan_for(key: str, script: Path, work: Path) -> Plan:
    fn = MAKERS.get(key)
    if fn is None:
        return Plan(made=False)
    out = work / key.replace("/", "__")
    out.mkdir(parents=True, exist_ok=True)
    return fn(script, out)


def _rng(name: str) -> np.random.Generator:
    return np.random.default_rng(sum(map(ord, name)))


# --- the Paddle book: the shim's paddle.dataset feeds them; cut the epochs -----------------
@maker("book/01.fit_a_line/train.py", "book/02.recognize_digits/train.py",
       "book/06.understand_sentiment/train_conv.py",
       "book/06.understand_sentiment/train_dyn_rnn.py",
       "book/06.understand_sentiment/train_stacked_lstm.py",
       "book/07.label_semantic_roles/train.py")
def _book_chapter(script: Path, out: Path) -> Plan:
    # --use_gpu is `type=bool` there: any value given is True; its default is the CPU
    return Plan(argv=["--num_epochs", "2"])


@maker("book/03.image_classification/train.py")
def _book_cifar(script: Path, out: Path) -> Plan:
    # ResNet-32 on numpy convolutions: a small pool keeps it in the timeout
    return Plan(argv=["--num_epochs", "1"], samples=96)


@maker("book/04.word2vec/train.py")
def _book_word2vec(script: Path, out: Path) -> Plan:
    # it trains until the test cost is under 5.8 (its own bar) within its 100 epochs
    return Plan(samples=200)


@maker("book/09.gan/dc_gan.py")
def _book_dcgan(script: Path, out: Path) -> Plan:
    return Plan(argv=["--epoch", "1"], samples=512)


@maker("book/05.recommender_system/train.py")
def _book_recommender(script: Path, out: Path) -> Plan:
    # it saves its inference model at batch 21 of 256 samples and returns; the test pool
    # is a quarter of the training pool
    return Plan(argv=["--num_epochs", "1"], cwd=out, samples=22 * 256)


# --- text corpora -------------------------------------------------------------------------
def _sentences(name: str, n: int, vocab: int, lo: int = 3, hi: int = 12) -> list[list[int]]:
    """n sentences of word indices in [0, vocab), each a run w, w+1, ... (learnable)."""
    g = _rng(name)
    out = []
    for _ in range(n):
        start, length = int(g.integers(0, vocab)), int(g.integers(lo, hi))
        out.append([(start + k) % vocab for k in range(length)])
    return out


def _write_lines(path: Path, lines) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return path


@maker("models/PaddleNLP/seq2seq/seq2seq/train.py")
def _seq2seq(script: Path, out: Path) -> Plan:
    """Parallel text `{prefix}.{en,vi}` and vocabularies `vocab.{en,vi}` (one word a line,
    <unk> <s> </s> first, as the en-vi data the program's download.py fetches)."""
    vocab = 60
    special = ["<unk>", "<s>", "</s>"]
    for lang, shift in (("en", 0), ("vi", 1)):
        _write_lines(out / f"vocab.{lang}", special + [f"{lang}{i}" for i in range(vocab)])
        for part, n in (("train", 256), ("tst2012", 64), ("tst2013", 64)):
            sents = _sentences("seq2seq" + part, n, vocab)
            _write_lines(out / f"{part}.{lang}",
                         [" ".join(f"{lang}{(w + shift) % vocab}" for w in s) for s in sents])
    return Plan(argv=["--src_lang", "en", "--tar_lang", "vi", "--attention", "True",
                      "--num_layers", "1", "--hidden_size", "32", "--src_vocab_size",
                      str(vocab + 3), "--tar_vocab_size", str(vocab + 3), "--batch_size", "32",
                      "--max_epoch", "2", "--train_data_prefix", str(out / "train"),
                      "--eval_data_prefix", str(out / "tst2012"), "--test_data_prefix",
                      str(out / "tst2013"), "--vocab_prefix", str(out / "vocab"),
                      "--use_gpu", "False", "--model_path", str(out / "model")], cwd=out)


@maker("models/PaddleNLP/seq2seq/variational_seq2seq/train.py")
def _variational_seq2seq(script: Path, out: Path) -> Plan:
    """PTB-style `{prefix}.{train,valid,test}.txt`; the program builds `{prefix}.vocab.txt`."""
    vocab = 60
    for part, n in (("train", 256), ("valid", 64), ("test", 64)):
        _write_lines(out / f"ptb.{part}.txt",
                     [" ".join(f"w{w}" for w in s) for s in _sentences("vseq" + part, n, vocab)])
    return Plan(argv=["--vocab_size", str(vocab + 4), "--batch_size", "32", "--hidden_size",
                      "32", "--max_epoch", "2", "--dataset_prefix", str(out / "ptb"),
                      "--model_path", str(out / "model"), "--use_gpu", "False"], cwd=out)


# --- PaddleRec ----------------------------------------------------------------------------
@maker("models/PaddleRec/din/train.py")
def _din(script: Path, out: Path) -> Plan:
    """config.txt (user, item, category counts) and `hist items;hist cats;item;cat;label`
    lines; the label says whether the target item's category is among the history's."""
    g = _rng("din")
    items, cats = 200, 20
    _write_lines(out / "config.txt", ["100", str(items), str(cats)])
    lines = []
    for _ in range(512):
        hist = [int(v) for v in g.integers(1, items, size=int(g.integers(2, 10)))]
        target = int(g.integers(1, items))
        label = int(target % cats in {h % cats for h in hist})
        lines.append(f"{' '.join(map(str, hist))};{' '.join(str(h % cats) for h in hist)};"
                     f"{target};{target % cats};{label}")
    _write_lines(out / "paddle_train.txt", lines)
    return Plan(argv=["--config_path", str(out / "config.txt"), "--train_dir",
                      str(out / "paddle_train.txt"), "--model_dir", str(out / "model"),
                      "--batch_size", "32", "--epoch_num", "2", "--use_cuda", "0"], cwd=out)


def _criteo_lines(name: str, n: int, categorical) -> list[str]:
    """Criteo text lines: label, 13 integer counts, 26 categorical fields; the label is
    whether the first count is above its median (learnable)."""
    g = _rng(name)
    lines = []
    for _ in range(n):
        counts = [int(v) for v in g.integers(0, 100, size=13)]
        label = int(counts[0] > 50)
        cats = [categorical(g, k) for k in range(26)]
        lines.append("\t".join([str(label), *map(str, counts), *cats]))
    return lines


@maker("models/PaddleRec/ctr/deepfm/local_train.py")
def _deepfm(script: Path, out: Path) -> Plan:
    """Criteo lines in train/ and test/, and the feature dictionary the program's
    preprocessing writes (a pickle of field index / category -> feature id)."""
    import pickle

    feat_dict = {i: i for i in range(1, 14)}
    for k in range(26):
        for v in range(8):
            feat_dict[f"c{k}_{v}"] = len(feat_dict) + 1
    (out / "train").mkdir(exist_ok=True)
    (out / "test").mkdir(exist_ok=True)
    def cat(g, k):
        return f"c{k}_{int(g.integers(0, 8))}"
    _write_lines(out / "train" / "part-0", _criteo_lines("deepfm", 512, cat))
    _write_lines(out / "test" / "part-0", _criteo_lines("deepfm-test", 128, cat))
    with open(out / "feat_dict.pkl", "wb") as f:
        pickle.dump(feat_dict, f)
    return Plan(argv=["--train_data_dir", str(out / "train"), "--test_data_dir",
                      str(out / "test"), "--feat_dict", str(out / "feat_dict.pkl"),
                      "--model_output_dir", str(out / "model"), "--num_epoch", "2",
                      "--batch_size", "64", "--num_feat", str(len(feat_dict) + 2),
                      "--num_thread", "1"])


@maker("models/PaddleRec/ctr/xdeepfm/local_train.py")
def _xdeepfm(script: Path, out: Path) -> Plan:
    """Criteo lines already mapped to 39 feature ids (the program's reader reads ints)."""
    (out / "train").mkdir(exist_ok=True)
    (out / "test").mkdir(exist_ok=True)
    def cat(g, k):
        return str(14 + 8 * k + int(g.integers(0, 8)))
    lines = [ln.split("\t") for ln in _criteo_lines("xdeepfm", 512, cat)]
    # its reader takes every field as a feature id: the 13 counts become ids 1..13
    ids = ["\t".join([f[0], *[str(i) for i in range(1, 14)], *f[14:]]) for f in lines]
    _write_lines(out / "train" / "part-0", ids)
    _write_lines(out / "test" / "part-0", ids[:128])
    return Plan(argv=["--train_data_dir", str(out / "train"), "--test_data_dir",
                      str(out / "test"), "--model_output_dir", str(out / "model"),
                      "--num_epoch", "2", "--batch_size", "64", "--num_feat", "300",
                      "--num_thread", "1", "--use_gpu", "0", "--print_steps", "2"])


@maker("models/PaddleRec/ctr/dcn/local_train.py")
def _dcn(script: Path, out: Path) -> Plan:
    """Criteo lines, per-field vocabularies C1.txt..C26.txt and cat_feature_num.txt
    (`C<k> <size>` lines) as the program's preprocessing writes them."""
    (out / "train").mkdir(exist_ok=True)
    (out / "valid").mkdir(exist_ok=True)
    (out / "vocab").mkdir(exist_ok=True)
    for k in range(26):
        _write_lines(out / "vocab" / f"C{k + 1}.txt", [f"c{k}_{v}" for v in range(8)])
    _write_lines(out / "cat_feature_num.txt", [f"C{k + 1}\t9" for k in range(26)])
    def cat(g, k):
        return f"c{k}_{int(g.integers(0, 8))}"
    _write_lines(out / "train" / "part-0", _criteo_lines("dcn", 512, cat))
    _write_lines(out / "valid" / "part-0", _criteo_lines("dcn-valid", 128, cat))
    return Plan(argv=["--train_data_dir", str(out / "train"), "--test_valid_data_dir",
                      str(out / "valid"), "--vocab_dir", str(out / "vocab"), "--cat_feat_num",
                      str(out / "cat_feature_num.txt"), "--model_output_dir",
                      str(out / "model"), "--num_epoch", "2", "--batch_size", "64",
                      "--num_thread", "1", "--print_steps", "2",
                      # its epochs are steps * batch / 41e6 Criteo lines: one whole pass
                      "--steps", str(41_000_000 // 64)])


@maker("models/PaddleRec/word2vec/train.py")
def _word2vec(script: Path, out: Path) -> Plan:
    """The preprocessed corpus (lines of word ids) and the `word count` dictionary."""
    vocab = 300
    (out / "train").mkdir(exist_ok=True)
    counts = _rng("w2v-counts").integers(5, 100, size=vocab)
    _write_lines(out / "dict", [f"w{i} {int(c)}" for i, c in enumerate(counts)])
    _write_lines(out / "train" / "part-0",
                 [" ".join(map(str, s)) for s in _sentences("w2v", 256, vocab, 5, 20)])
    return Plan(argv=["--train_data_dir", str(out / "train"), "--dict_path", str(out / "dict"),
                      "--model_output_dir", str(out / "model"), "--num_passes", "2",
                      "--batch_size", "64", "--print_batch", "5", "--embedding_size", "32"])


@maker("models/PaddleRec/multiview_simnet/train.py")
def _multiview_simnet(script: Path, out: Path) -> Plan:
    """It trains on the synthetic reader it ships (10000 samples); one epoch of it, with
    a 1000-id feature space instead of its default 10^6 (a [10^6, 128] table)."""
    return Plan(argv=["--epochs", "1", "--model_output_dir", str(out / "model"),
                      "--sparse_feature_dim", "1000", "--embedding_dim", "32",
                      "--hidden_size", "32"])


@maker("models/PaddleRec/tagspace/train.py")
def _tagspace(script: Path, out: Path) -> Plan:
    """`tag,word ids` lines as its preprocessing writes; one pass."""
    (out / "train").mkdir(exist_ok=True)
    g = _rng("tagspace")
    lines = []
    for _ in range(256):
        tag = int(g.integers(0, 4))
        size = int(g.integers(3, 15))
        words = [int(w) for w in g.integers(100 * tag, 100 * tag + 100, size=size)]
        lines.append(f"{tag},{' '.join(map(str, words))}")
    _write_lines(out / "train" / "part-0.csv", lines)
    _write_lines(out / "vocab_text.txt", ["400"])
    _write_lines(out / "vocab_tag.txt", ["4"])
    return Plan(argv=["--train_dir", str(out / "train"), "--vocab_text_path",
                      str(out / "vocab_text.txt"), "--vocab_tag_path", str(out / "vocab_tag.txt"),
                      "--model_dir", str(out / "model"), "--pass_num", "1",
                      "--batch_size", "16"])


# --- PaddleNLP ----------------------------------------------------------------------------
def _labelled_text(name: str, n: int, vocab: int, classes: int = 2) -> list[tuple[list[int], int]]:
    """(word indices, label): class c draws words from its own slice of the vocabulary."""
    g = _rng(name)
    width = vocab // classes
    out = []
    for _ in range(n):
        label = int(g.integers(0, classes))
        words = g.integers(label * width, (label + 1) * width, size=int(g.integers(3, 20)))
        out.append(([int(w) for w in words], label))
    return out


@maker("models/PaddleNLP/sentiment_classification/run_classifier.py")
def _senta(script: Path, out: Path) -> Plan:
    """train/dev/test.tsv (`words<TAB>label` under a header), word_dict.txt (a word a line)
    and the model config JSON."""
    import json

    vocab = 200
    _write_lines(out / "word_dict.txt", [f"w{i}" for i in range(vocab)])
    for part, n in (("train", 256), ("dev", 64), ("test", 64)):
        _write_lines(out / f"{part}.tsv", ["text_a\tlabel"] + [
            f"{' '.join(f'w{w}' for w in words)}\t{label}"
            for words, label in _labelled_text("senta" + part, n, vocab)])
    (out / "senta_config.json").write_text(json.dumps(
        {"model_type": "bilstm_net", "vocab_size": vocab + 1, "max_seq_len": 64}))
    return Plan(argv=["--task_name", "senta", "--use_cuda", "false", "--do_train", "true",
                      "--do_val", "true", "--do_infer", "false", "--batch_size", "16",
                      "--data_dir", str(out), "--vocab_path", str(out / "word_dict.txt"),
                      "--checkpoints", str(out / "ckpt"), "--save_steps", "1000",
                      "--validation_steps", "1000", "--epoch", "2", "--senta_config_path",
                      str(out / "senta_config.json"), "--skip_steps", "2"])


@maker("models/PaddleNLP/emotion_detection/run_classifier.py")
def _emotion_detection(script: Path, out: Path) -> Plan:
    """train/dev/test.tsv (`label<TAB>words` under a header) of 3 classes and vocab.txt; its
    config.json (read from its own directory) gives the rest, overridden by these flags."""
    vocab = 300
    _write_lines(out / "vocab.txt", [f"w{i}" for i in range(vocab)])
    for part, n in (("train", 256), ("dev", 64), ("test", 64)):
        _write_lines(out / f"{part}.tsv", ["label\ttext_a"] + [
            f"{label}\t{' '.join(f'w{w}' for w in words)}"
            for words, label in _labelled_text("emotion" + part, n, vocab, 3)])
    return Plan(argv=["--use_cuda", "false", "--do_train", "true", "--do_val", "true",
                      "--epoch", "2", "--batch_size", "32", "--data_dir", str(out),
                      "--vocab_path", str(out / "vocab.txt"), "--vocab_size", str(vocab + 1),
                      "--save_checkpoint_dir", str(out / "ckpt"), "--save_steps", "1000",
                      "--validation_steps", "1000", "--skip_steps", "2"])


@maker("models/PaddleNLP/language_model/train.py")
def _language_model(script: Path, out: Path) -> Plan:
    """PTB text ptb.{train,valid,test}.txt; the program's own `test` model size (one epoch,
    after which it stops itself unless the perplexity has come down: enough text for that)."""
    for part, n in (("train", 1500), ("valid", 40), ("test", 40)):
        _write_lines(out / f"ptb.{part}.txt",
                     [" ".join(f"w{w}" for w in s) for s in _sentences("lm" + part, n, 300)])
    return Plan(argv=["--model_type", "test", "--data_path", str(out), "--use_gpu", "False",
                      "--save_model_dir", str(out / "model"), "--log_path",
                      str(out / "log.txt")])


@maker("models/PaddleNLP/similarity_net/run_classifier.py")
def _similarity_net(script: Path, out: Path) -> Plan:
    """Pairwise data: train `query<TAB>positive<TAB>negative`, test `query<TAB>title<TAB>label`
    lines, term2id.dict (`term<TAB>id`); the positive shares the query's words."""
    vocab = 200
    _write_lines(out / "term2id.dict", [f"t{i}\t{i + 1}" for i in range(vocab)])
    g = _rng("simnet")
    def words(lo, hi):
        return " ".join(f"t{int(w)}" for w in g.integers(lo, hi, size=int(g.integers(3, 10))))
    train, test = [], []
    for _ in range(256):
        topic = int(g.integers(0, 10)) * 20
        query, pos, neg = words(topic, topic + 20), words(topic, topic + 20), words(0, vocab)
        train.append(f"{query}\t{pos}\t{neg}")
    for _ in range(64):
        topic = int(g.integers(0, 10)) * 20
        label = int(g.integers(0, 2))
        title = words(topic, topic + 20) if label else words(0, vocab)
        test.append(f"{words(topic, topic + 20)}\t{title}\t{label}")
    _write_lines(out / "train", train)
    _write_lines(out / "test", test)
    return Plan(argv=["--task_name", "simnet", "--use_cuda", "False", "--do_train", "True",
                      "--do_valid", "True", "--do_test", "True", "--do_infer", "False",
                      "--batch_size", "32", "--train_data_dir", str(out / "train"),
                      "--valid_data_dir", str(out / "test"), "--test_data_dir",
                      str(out / "test"), "--infer_data_dir", str(out / "test"),
                      "--output_dir", str(out / "ckpt"), "--config_path",
                      str(script.parent / "config" / "bow_pairwise.json"), "--vocab_path",
                      str(out / "term2id.dict"), "--epoch", "2", "--save_steps", "1000",
                      "--validation_steps", "1000", "--compute_accuracy", "False",
                      "--lamda", "0.958", "--task_mode", "pairwise", "--init_checkpoint", ""])


@maker("models/PaddleNLP/dialogue_domain_classification/run_classifier.py")
def _dialogue_domain(script: Path, out: Path) -> Plan:
    """train/eval/test.txt (`query<TAB>domain`, characters are the tokens) and the INI
    model.conf the released data carries; the program builds char.dict and domain.dict."""
    g = _rng("domain")
    domains = ["weather", "music", "video", "alarm"]
    def lines(n):
        out_lines = []
        for _ in range(n):
            d = int(g.integers(0, len(domains)))
            chars = "".join(chr(0x4E00 + 20 * d + int(c)) for c in g.integers(0, 20, size=8))
            out_lines.append(f"{chars}\t{domains[d]}")
        return out_lines
    for part, n in (("train", 256), ("eval", 64), ("test", 64)):
        _write_lines(out / f"{part}.txt", lines(n))
    (out / "model.conf").write_text("[model]\nemb_dim = 32\nhid_dim = 32\nhid_dim2 = 16\n"
                                    "win_sizes = [2, 3]\n")
    return Plan(argv=["--use_cuda", "false", "--cpu_num", "1", "--do_train", "true",
                      "--do_eval", "true", "--do_test", "false", "--build_dict", "true",
                      "--data_dir", f"{out}/", "--save_dir", f"{out}/output/", "--config_path",
                      str(out / "model.conf"), "--batch_size", "32", "--epoch", "2",
                      "--save_steps", "1000", "--validation_steps", "1000", "--skip_steps",
                      "2", "--checkpoints", str(out / "ckpt")])


@maker("models/PaddleNLP/machine_translation/transformer/train.py")
def _transformer(script: Path, out: Path) -> Plan:
    """BPE-style parallel lines `source<TAB>target` and the shared vocabulary (<s> <e> <unk>
    first, one token a line); its transformer.yaml (read from its directory) gives the
    rest, a tiny model through its own flags."""
    vocab = 60
    _write_lines(out / "vocab", ["<s>", "<e>", "<unk>"] + [f"t{i}" for i in range(vocab)])
    sents = _sentences("transformer", 256, vocab)
    _write_lines(out / "train", [f"{' '.join(f't{w}' for w in s)}\t"
                                 f"{' '.join(f't{(w + 1) % vocab}' for w in s)}" for s in sents])
    return Plan(argv=["--use_cuda", "False", "--training_file", str(out / "train"),
                      "--src_vocab_fpath", str(out / "vocab"), "--trg_vocab_fpath",
                      str(out / "vocab"), "--batch_size", "512", "--epoch", "2",
                      "--d_model", "32", "--d_inner_hid", "64", "--d_key", "16", "--d_value",
                      "16", "--n_head", "2", "--n_layer", "1", "--print_step", "2",
                      "--save_step", "100000", "--warmup_steps", "10", "--pool_size", "1000",
                      "--save_model_path", str(out / "saved"), "--save_checkpoint",
                      str(out / "ckpt"), "--save_param", str(out / "params")])


@maker("models/PaddleRec/gnn/train.py")
def _gnn(script: Path, out: Path) -> Plan:
    """The pickle its preprocessing writes, (sessions, next items), and config.txt (the item
    count); a session's next item follows its last one."""
    import pickle

    items = 100
    sessions = [[(s + k) % items + 1 for k in range(length)]
                for s, length in zip(range(512), _rng("gnn").integers(2, 8, size=512),
                                     strict=True)]
    targets = [session[-1] % items + 1 for session in sessions]
    with open(out / "train.txt", "wb") as f:
        pickle.dump((sessions, targets), f)
    _write_lines(out / "config.txt", [str(items + 1)])
    return Plan(argv=["--train_path", str(out / "train.txt"), "--config_path",
                      str(out / "config.txt"), "--model_path", str(out / "model"),
                      "--epoch_num", "2", "--batch_size", "64", "--hidden_size", "32",
                      "--use_cuda", "0", "--use_parallel", "0"])


@maker("models/PaddleNLP/pretrain_langauge_models/BERT/run_classifier.py")
def _bert_classifier(script: Path, out: Path) -> Plan:
    """CoLA-format train/dev/test.tsv, a WordPiece vocab.txt and a tiny bert_config.json;
    fine-tuning from scratch (no pretrained parameters)."""
    import json

    words = [f"w{i}" for i in range(100)]
    _write_lines(out / "vocab.txt", ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *words])
    for part, n in (("train", 128), ("dev", 32)):
        _write_lines(out / f"{part}.tsv", [
            f"s{i}\t{label}\t*\t{' '.join(words[w] for w in ws)}"
            for i, (ws, label) in enumerate(_labelled_text("bert" + part, n, 100))])
    _write_lines(out / "test.tsv", ["index\tsentence"] + [
        f"{i}\t{' '.join(words[w] for w in ws)}"
        for i, (ws, _) in enumerate(_labelled_text("berttest", 32, 100))])
    (out / "bert_config.json").write_text(json.dumps({
        "attention_probs_dropout_prob": 0.1, "hidden_act": "gelu", "hidden_dropout_prob": 0.1,
        "hidden_size": 32, "initializer_range": 0.02, "max_position_embeddings": 64,
        "num_attention_heads": 2, "num_hidden_layers": 2, "type_vocab_size": 2,
        "vocab_size": len(words) + 5}))
    return Plan(argv=["--task_name", "cola", "--use_cuda", "false", "--do_train", "true",
                      "--do_val", "true", "--do_test", "false", "--batch_size", "16",
                      "--data_dir", str(out), "--vocab_path", str(out / "vocab.txt"),
                      "--bert_config_path", str(out / "bert_config.json"), "--checkpoints",
                      str(out / "ckpt"), "--max_seq_len", "32", "--epoch", "2",
                      "--skip_steps", "2", "--save_steps", "10000", "--validation_steps",
                      "10000", "--learning_rate", "1e-3", "--random_seed", "1"])
