"""B7's model zoo, exported by PaddlePaddle (old IR) for every engine of bench/zoo_peers.py.

    FLAGS_enable_pir_api=0 python -m bench.zoo_export OUT_DIR [MODEL ...]

Runs in the peers' environment (paddlepaddle 3.3.1, paddle2onnx, onnxruntime).
For each model it writes OUT_DIR/MODEL/:

- `model.pdmodel` / `model.pdiparams`: built in static mode with old-IR
  ProgramDesc (FLAGS_enable_pir_api=0), eval mode, random weights from Paddle's
  own initializers (`paddle.seed(0)`), saved with `save_inference_model`;
- `model.onnx`: paddle2onnx's conversion of that very .pdmodel / .pdiparams;
- `feeds.npz`: the one input (batch 1 unless --batch), fixed seed.

The vision models are `paddle.vision.models`' architectures; the BERT-like encoder
and the LSTM text classifier are built from `paddle.nn` layers (nothing in
paddle.vision has them), with the sizes named below.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

VISION = ("resnet50", "resnet18", "googlenet", "squeezenet1_1", "shufflenet_v2_x0_5",
          "mobilenet_v2", "mobilenet_v3_small")
MODELS = VISION[:4] + ("bert_encoder", "lstm_classifier") + VISION[4:]
SIZE = 224
# The encoder: 2 post-norm layers of d_model 256, 4 heads, FFN 1024 with gelu, over 64 tokens.
BERT = {"vocab": 8000, "seq": 64, "dim": 256, "heads": 4, "ffn": 1024, "layers": 2}
# The classifier: embedding 128 -> one LSTM layer of 128 over 64 tokens -> 2 classes.
LSTM = {"vocab": 8000, "seq": 64, "emb": 128, "hidden": 128, "classes": 2}


def _vision(paddle, model, batch):
    net = getattr(paddle.vision.models, model)(num_classes=1000)
    net.eval()
    image = paddle.static.data("image", [-1, 3, SIZE, SIZE], "float32")
    out = net(image)
    if isinstance(out, (list, tuple)):  # googlenet: the logits, then its two aux heads
        out = out[0]
    feed = {"image": np.random.default_rng(7).standard_normal(
        (batch, 3, SIZE, SIZE)).astype("float32")}
    return [image], [out], feed


def _op(paddle, op_type, inputs, attrs, outputs=("Out",)):
    """One op appended as such: in Paddle 3.3.1's old-IR static mode paddle.matmul and
    F.gelu, paddle.tanh call PIR-only _C_ops ("must be Value, but got Variable")."""
    from paddle.base.layer_helper import LayerHelper

    helper = LayerHelper(op_type)
    x = next(iter(inputs.values()))[0]
    outs = {name: [helper.create_variable_for_type_inference(x.dtype)] for name in outputs}
    helper.append_op(type=op_type, inputs=inputs, outputs=outs, attrs=attrs)
    return outs[outputs[0]][0]


def _encoder_layer(paddle, x, c):
    """A post-norm BERT layer: multi-head self-attention, add & norm, gelu FFN, add & norm."""
    seq, dim, heads = c["seq"], c["dim"], c["heads"]

    def split_heads(t):
        t = paddle.reshape(t, [0, seq, heads, dim // heads])
        return paddle.transpose(t, [0, 2, 1, 3])

    q, k, v = (split_heads(paddle.nn.Linear(dim, dim)(x)) for _ in "qkv")
    scores = _op(paddle, "matmul_v2", {"X": [q], "Y": [k]}, {"trans_x": False, "trans_y": True})
    weights = paddle.nn.functional.softmax(paddle.scale(scores, (dim // heads) ** -0.5))
    ctx = _op(paddle, "matmul_v2", {"X": [weights], "Y": [v]},
              {"trans_x": False, "trans_y": False})
    ctx = paddle.reshape(paddle.transpose(ctx, [0, 2, 1, 3]), [0, seq, dim])
    x = paddle.nn.LayerNorm(dim)(x + paddle.nn.Linear(dim, dim)(ctx))
    h = _op(paddle, "gelu", {"X": [paddle.nn.Linear(dim, c["ffn"])(x)]}, {"approximate": False})
    return paddle.nn.LayerNorm(dim)(x + paddle.nn.Linear(c["ffn"], dim)(h))


def _bert(paddle, batch):
    c = BERT
    ids = paddle.static.data("ids", [-1, c["seq"]], "int64")
    words = paddle.nn.Embedding(c["vocab"], c["dim"])(ids)
    pos = paddle.create_parameter([c["seq"], c["dim"]], "float32")
    h = paddle.nn.LayerNorm(c["dim"])(words + pos)
    for _ in range(c["layers"]):
        h = _encoder_layer(paddle, h, c)
    pooled = _op(paddle, "tanh", {"X": [paddle.nn.Linear(c["dim"], c["dim"])(h[:, 0])]}, {})
    out = paddle.nn.Linear(c["dim"], 2)(pooled)
    feed = {"ids": np.random.default_rng(7).integers(0, c["vocab"], (batch, c["seq"]))
            .astype("int64")}
    return [ids], [out], feed


def _lstm(paddle, batch):
    c = LSTM
    ids = paddle.static.data("ids", [-1, c["seq"]], "int64")
    emb = paddle.nn.Embedding(c["vocab"], c["emb"])(ids)
    _, (h, _) = paddle.nn.LSTM(c["emb"], c["hidden"])(emb)
    out = paddle.nn.Linear(c["hidden"], c["classes"])(h[-1])
    feed = {"ids": np.random.default_rng(7).integers(0, c["vocab"], (batch, c["seq"]))
            .astype("int64")}
    return [ids], [out], feed


def export(model: str, out_dir: str, batch: int = 1) -> dict:
    import paddle
    import paddle2onnx

    paddle.enable_static()
    paddle.seed(0)
    main, startup = paddle.static.Program(), paddle.static.Program()
    with paddle.static.program_guard(main, startup):
        if model in VISION:
            feeds, fetches, feed = _vision(paddle, model, batch)
        elif model == "bert_encoder":
            feeds, fetches, feed = _bert(paddle, batch)
        elif model == "lstm_classifier":
            feeds, fetches, feed = _lstm(paddle, batch)
        else:
            raise SystemExit(f"unknown model {model!r}; choose from {', '.join(MODELS)}")
    exe = paddle.static.Executor(paddle.CPUPlace())
    scope = paddle.static.Scope()
    where = os.path.join(out_dir, model)
    os.makedirs(where, exist_ok=True)
    with paddle.static.scope_guard(scope):
        exe.run(startup)
        prefix = os.path.join(where, "model")
        paddle.static.save_inference_model(prefix, feeds, fetches, exe, program=main)
    np.savez(os.path.join(where, "feeds.npz"), **feed)
    paddle2onnx.export(prefix + ".pdmodel", prefix + ".pdiparams",
                       save_file=os.path.join(where, "model.onnx"), opset_version=13,
                       enable_onnx_checker=True)
    return {"model": model, "ops": len(main.global_block().ops),
            "feeds": {k: list(v.shape) for k, v in feed.items()}}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out_dir")
    parser.add_argument("models", nargs="*", default=list(MODELS))
    parser.add_argument("--batch", type=int, default=1)
    args = parser.parse_args(argv)
    if os.environ.get("FLAGS_enable_pir_api") != "0":
        raise SystemExit("set FLAGS_enable_pir_api=0 before Paddle starts (old-IR programs)")
    for model in args.models:
        print(json.dumps(export(model, args.out_dir, args.batch)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
