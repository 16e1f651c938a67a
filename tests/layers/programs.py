"""What the layer tests share: build a program with a function, run it, fetch its outputs."""

import paddle_ir as pir
from paddle_ir import layers


def run_built(build, feed):
    """Run `build()`'s program (startup first, in a scope of its own); its fetched outputs."""
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        outs = build()
    outs = list(outs) if isinstance(outs, (list, tuple)) else [outs]
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    return exe.run(main, feed=feed, fetch_list=outs, scope=scope)


def data_like(name, arr):
    """A data variable for feeding `arr`: its trailing dims and dtype, any batch size."""
    return layers.data(name, [-1] + list(arr.shape[1:]), dtype=str(arr.dtype))
