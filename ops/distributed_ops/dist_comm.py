"""send, send_barrier, recv, fetch_barrier, prefetch, listen_and_serv: parameter-server traffic.

These ops move values between trainers and parameter servers. Their kernels
do no transport themselves: they call the communicator that the process
running the program placed in its scope under `COMMUNICATOR` (a trainer's
client or a server's round, see paddle_ir/distributed/), so that the
registry, InferShape and kernel selection stay as for every other op and a
transpiled program is an ordinary ProgramDesc.

Trainer side, per step (Fluid's DistributeTranspiler order):

    send(X=[g_0.block0, ...], epmap, send_varnames)   queue each gradient block for its server
    send_barrier(endpoints)                           sync mode: this trainer's step is sent
    recv(Out=[w.block0, ...], epmap, varnames)        the updated parameter blocks
    fetch_barrier(endpoints)                          sync mode: every block has arrived
    prefetch(X=[ids_0, ...], Out=[rows_0, ...])       rows of a distributed table (forward)

Server side: `listen_and_serv` holds one optimize sub-block per parameter
block; each time the server's communicator has a round of gradients (sync:
every trainer's, merged and scaled by 1/trainers; async: one push), the
kernel runs the sub-blocks of the gradients in that round.
"""

from __future__ import annotations

import numpy as np

from paddle_ir.core.dtypes import to_numpy_dtype
from paddle_ir.core.errors import KernelError, OpLocation
from paddle_ir.ops.registry import Attr, In, Out, register_op

COMMUNICATOR = "@COMMUNICATOR@"  # the scope variable a distributed process sets
_DTYPES = [np.float32]  # no key inputs: the executor asks for float32


def communicator(ctx, op_type: str):
    holder = ctx.scope.find_var(COMMUNICATOR)
    if holder is None or holder.value is None:
        raise KernelError(
            f"{op_type} needs a communicator, and this scope has none: a transpiled program "
            "runs inside paddle_ir.distributed (a trainer or a server), not on a plain Executor",
            op=OpLocation(op_type=op_type),
            hint="run it with paddle_ir.distributed.train(...) or `paddle-ir train`")
    return holder.value


def _names_attr(name: str, doc: str):
    return Attr(name, "strings", [], doc)


def _same_length(ctx, slot: str, attr: str, output: bool = False) -> None:
    names = ctx.output_names(slot) if output else ctx.input_names(slot)
    ctx.enforce(len(ctx.attr(attr)) == len(names), lambda:
                f"{attr} must name one entry per {slot} ({len(names)}), got {ctx.attr(attr)}")


# -- trainer side -------------------------------------------------------------------------------
send = register_op(
    "send",
    inputs=[In("X", "gradient blocks (dense or SelectedRows)", duplicable=True)],
    outputs=[],
    attrs=[_names_attr("epmap", "the server of each X"),
           _names_attr("send_varnames", "the name of each X on its server"),
           Attr("sync_mode", "bool", True, "pushes wait for send_barrier")],
    key_inputs=[],
    doc=__doc__,
)


@send.infer_shape
def _(ctx):
    _same_length(ctx, "X", "epmap")
    _same_length(ctx, "X", "send_varnames")


@send.kernel(storage=[], dtypes=_DTYPES, control=True)
def send_kernel(ctx, attrs, xs):
    communicator(ctx, "send").send(attrs["send_varnames"], xs, attrs["epmap"])


def _barrier(op_type: str, doc: str):
    """A sync-mode barrier op: no slots, every server in `endpoints`, one communicator call."""
    op = register_op(op_type, attrs=[_names_attr("endpoints", "every server")], key_inputs=[],
                     doc=doc)
    op.infer_shape(lambda ctx: None)

    def kernel(ctx, attrs):
        getattr(communicator(ctx, op_type), op_type)(attrs["endpoints"])

    kernel.__name__ = kernel.__qualname__ = f"{op_type}_kernel"
    op.kernel(storage=[], dtypes=_DTYPES, control=True)(kernel)
    return op


def _write_outputs(ctx, values) -> None:
    """Values a communicator returned, into the op's Out variables in order."""
    for name, value in zip(ctx.output_names("Out"), values, strict=True):
        ctx.scope.var(name).value = value


send_barrier = _barrier(
    "send_barrier", "Sync mode: tell every server that this trainer has sent its step (see send).")


recv = register_op(
    "recv",
    outputs=[Out("Out", "parameter blocks, updated", duplicable=True)],
    attrs=[_names_attr("epmap", "the server of each Out"),
           _names_attr("varnames", "the name of each Out on its server")],
    key_inputs=[],
    doc="Receive the updated parameter blocks from their servers (see send).",
)


@recv.infer_shape
def _(ctx):
    _same_length(ctx, "Out", "epmap", output=True)
    _same_length(ctx, "Out", "varnames", output=True)
    if not ctx.is_runtime:  # at run time the blocks' shapes are the servers' answer
        for i, name in enumerate(ctx.output_names("Out")):
            info = ctx.var_info(name)
            ctx.set_output("Out", info.shape, info.dtype, i=i)


@recv.kernel(storage=[], dtypes=_DTYPES, control=True)
def recv_kernel(ctx, attrs):
    _write_outputs(ctx, communicator(ctx, "recv").recv(attrs["varnames"], attrs["epmap"]))


fetch_barrier = _barrier(
    "fetch_barrier", "Sync mode: every parameter block of this step has arrived (see send).")


prefetch = register_op(
    "prefetch",
    inputs=[In("X", "ids per shard [n_k, 1] (split_ids' Out)", duplicable=True)],
    outputs=[Out("Out", "the rows of those ids, [n_k, D]", duplicable=True)],
    attrs=[_names_attr("epmap", "the server of each shard"),
           _names_attr("table_names", "the table's name on each server"),
           Attr("width", "long", -1, "D, the table's row width"),
           Attr("dtype", "int", 5, "the table's element type (DataType)")],
    key_inputs=[],
    doc="Pull only the rows a batch looks up from a distributed table (see send).",
)


@prefetch.infer_shape
def _(ctx):
    _same_length(ctx, "X", "epmap")
    _same_length(ctx, "X", "table_names")
    if not ctx.is_runtime:
        for i in range(ctx.input_count("X")):
            ctx.set_output("Out", (-1, ctx.attr("width")), to_numpy_dtype(ctx.attr("dtype")),
                           i=i)


@prefetch.kernel(storage=[], dtypes=_DTYPES, control=True)
def prefetch_kernel(ctx, attrs, ids):
    _write_outputs(ctx, communicator(ctx, "prefetch").prefetch(attrs["table_names"], ids,
                                                               attrs["epmap"]))


# -- server side --------------------------------------------------------------------------------
listen_and_serv = register_op(
    "listen_and_serv",
    inputs=[In("X", "unused: the gradients a round holds arrive through the communicator",
               duplicable=True, dispensable=True)],
    outputs=[],
    attrs=[Attr("endpoint", "string", "", "this server's name"),
           Attr("Fanin", "int", 1, "how many trainers push to it"),
           Attr("sync_mode", "bool", True, "merge every trainer's push before updating"),
           Attr("optimize_blocks", "blocks", [], "one update sub-block per parameter block"),
           Attr("lr_decay_blocks", "blocks", [], "the learning-rate schedule's block (Fluid's "
                "lr_decay_block_id), run once per round before the updates; [] when the "
                "rate is a constant"),
           _names_attr("grad_to_block_id", "'grad:block index' for each received gradient"),
           _names_attr("var_slices", "'name|origin|rows|begin|end' or 'name|origin|mod|k|n' "
                       "or 'name|origin|whole||': which part of which single-machine "
                       "variable each persistable here holds")],
    key_inputs=[],
    doc=__doc__,
)


@listen_and_serv.infer_shape
def _(ctx):
    blocks = set(ctx.attr("optimize_blocks"))
    lr_blocks = ctx.attr("lr_decay_blocks")
    ctx.enforce(len(lr_blocks) <= 1 and not set(lr_blocks) & blocks,
                lambda: f"lr_decay_blocks {list(lr_blocks)} must be empty or one block that is not "
                f"one of the optimize_blocks {sorted(blocks)}")
    for entry in ctx.attr("grad_to_block_id"):
        grad, _, idx = entry.rpartition(":")
        ctx.enforce(bool(grad) and idx.lstrip("-").isdigit() and int(idx) in blocks, lambda:
                    f"grad_to_block_id entry {entry!r} must be 'grad:block' with a block of "
                    f"optimize_blocks {sorted(blocks)}")


def grad_blocks(attrs) -> dict[str, int]:
    """grad name -> the optimize block that consumes it."""
    pairs = (entry.rpartition(":") for entry in attrs["grad_to_block_id"])
    return {grad: int(idx) for grad, _, idx in pairs}


@listen_and_serv.kernel(storage=[], dtypes=_DTYPES, control=True)
def listen_and_serv_kernel(ctx, attrs, xs):
    """Run the update blocks of the gradients in the server's current round."""
    received = communicator(ctx, "listen_and_serv").round_grads()
    blocks = grad_blocks(attrs)
    for lr_block in attrs["lr_decay_blocks"]:  # this round's learning rate, before any update
        ctx.run_block(lr_block, ctx.new_scope())
    for idx in sorted({blocks[g] for g in received}):
        ctx.run_block(idx, ctx.new_scope())
