"""Programs in the form Paddle 1.x writes its tensor-array ops, for the tests of
read_from_array, write_to_array and lod_array_length.

Paddle's form (checked against a program PaddlePaddle 3.3.1 saved in its legacy static
mode, which still writes these op types): `write_to_array` binds X and I only and
updates the array Out holds; the array variable has no create_array op; `array_read` and
`array_length` are `read_from_array` and `lod_array_length`; `while` carries
`skip_eager_deletion_vars`. The programs here are built
with paddle-ir's layers, written as a Paddle ProgramDesc, brought to that form, and read
back, so they go through the same reader a Paddle file does.
"""

from __future__ import annotations

import paddle_ir as pir
from paddle_ir import layers, paddle_format
from paddle_ir.proto import paddle_framework_pb2 as ppb

PADDLE_NAMES = {"array_write": "write_to_array", "array_read": "read_from_array",
                "array_length": "lod_array_length"}


def paddle_form(program: pir.Program) -> pir.Program:
    """`program` with Paddle's op types and slots for its array ops (see the module doc)."""
    desc = paddle_format.to_paddle(program.desc)
    for block in desc.blocks:
        kept = [op for op in block.ops if op.type != "create_array"]
        del block.ops[:]
        block.ops.extend(kept)
        for op in block.ops:
            op.type = PADDLE_NAMES.get(op.type, op.type)
            if op.type == "while":  # Paddle's while carries its garbage collector's list
                op.attrs.add(name="skip_eager_deletion_vars", type=ppb.STRINGS)
            if op.type == "write_to_array":
                slots = [v for v in op.inputs if v.parameter != "Array"]
                del op.inputs[:]
                op.inputs.extend(slots)
    return pir.Program.from_desc(paddle_format.from_paddle(desc))


def doubling_loop(steps: int):
    """arr[0] = x; while i < steps: arr[i + 1] = arr[i] * 2 + 1; then len(arr), arr[steps]
    (the loop of a Paddle 3.3.1 program: Paddle gave [[7, 15, 23], [31, 39, 47]] for
    x = arange(6).reshape(2, 3) and 3 steps, and length 4)."""
    main = pir.Program()
    with pir.program_guard(main, pir.Program()):
        x = layers.data("x", [-1, 3])
        arr = layers.create_array("float32")
        i = layers.fill_constant([1], "int64", 0)
        limit = layers.fill_constant([1], "int64", steps)
        layers.array_write(x, i, arr)
        cond = layers.less_than(i, limit)
        loop = layers.While(cond)
        with loop.block():
            nxt = layers.scale(layers.array_read(arr, i), scale=2.0, bias=1.0)
            layers.increment(i, in_place=True)
            layers.array_write(nxt, i, arr)
            layers.less_than(i, limit, cond=cond)
        n = layers.array_length(arr)
        last = layers.array_read(arr, limit)
    return main, n.name, last.name
