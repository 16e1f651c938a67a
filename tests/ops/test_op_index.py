"""Op modules load on demand from the generated table ops/_index.py: the table matches
what the modules register, a fresh `import paddle_ir` loads few of them and nothing heavy,
and the order modules load in changes no op."""

import subprocess
import sys

from paddle_ir.ops._index import MODULE_OPS
from tools.gen_op_index import COMMAND, build_index


def _run(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_the_index_matches_what_the_op_modules_register():
    built = build_index()  # imports every module in ops/
    if built != MODULE_OPS:
        owner_now = {t: m for m, types in built.items() for t in types}
        owner_listed = {t: m for m, types in MODULE_OPS.items() for t in types}
        changes = [f"{t}: listed under {owner_listed.get(t)}, registered by {owner_now.get(t)}"
                   for t in sorted(set(owner_now) | set(owner_listed))
                   if owner_now.get(t) != owner_listed.get(t)]
        raise AssertionError(f"ops/_index.py is stale; run `{COMMAND}`:\n  "
                             + "\n  ".join(changes[:20]))


def test_grad_ops_are_indexed_with_their_forward_op():
    owner = {t: m for m, types in MODULE_OPS.items() for t in types}
    assert owner["softmax_grad"] == owner["softmax"] == "paddle_ir.ops.nn.softmax"
    assert owner["relu_grad"] == "paddle_ir.ops.math.activation"
    assert owner["lookup_table_grad"] == "paddle_ir.ops.tensor.lookup_table"


# Loaded only on the paths that need them (see also test_imports._HEAVY).
_NOT_AT_IMPORT = ("scipy", "numpy.testing", "numpy.f2py", "paddle_ir.proto.paddle_framework_pb2")


def test_a_fresh_import_loads_few_op_modules_and_nothing_heavy():
    out = _run(
        "import sys, paddle_ir\n"
        "from paddle_ir.ops._index import MODULE_OPS\n"
        f"print(sorted(m for m in sys.modules if m.startswith({_NOT_AT_IMPORT!r})))\n"
        "print(' '.join(sorted(m for m in MODULE_OPS if m in sys.modules)))\n"
        "print(len(MODULE_OPS))\n")
    heavy, loaded, total = out.splitlines()
    assert heavy == "[]"
    # the ops whose helpers the layers and metrics import by name (fill's constant
    # attributes, auc's shapes, gru_unit's activation ids), nothing else
    assert set(loaded.split()) == {"paddle_ir.ops.tensor.fill", "paddle_ir.ops.metrics.auc",
                                   "paddle_ir.ops.rnn.gru_unit"}
    assert int(total) > 80


def test_asking_for_an_op_loads_its_module_and_enumerating_loads_them_all():
    out = _run(
        "import sys\n"
        "from paddle_ir.ops import registry\n"
        "assert 'paddle_ir.ops.nn.softmax' not in sys.modules\n"
        "d = registry.get_op_def('softmax_grad')\n"
        "assert d.type == 'softmax_grad' and d.kernels and d.module == 'paddle_ir.ops.nn.softmax'\n"
        "assert 'paddle_ir.ops.nn.softmax' in sys.modules\n"
        "assert 'paddle_ir.ops.nn.conv' not in sys.modules\n"
        "assert registry.get_op_def('no_such_op') is None\n"
        "types = registry.registered_op_types()\n"
        "from paddle_ir.ops._index import MODULE_OPS\n"
        "assert all(m in sys.modules for m in MODULE_OPS)\n"
        "assert types == sorted(t for ts in MODULE_OPS.values() for t in ts)\n"
        "print('ok')\n")
    assert out.strip() == "ok"


_FINGERPRINT = """
from paddle_ir.ops import registry
from paddle_ir.ops._index import MODULE_OPS

def name(fn):
    return None if fn is None else f"{fn.__module__}.{fn.__qualname__}"

def fingerprint(d):
    return (d.doc, d.inputs, d.outputs, d.attrs, d.key_inputs, d.dtype_from, d.fallback,
            d.module, name(d.infer_shape_fn), name(d.infer_var_type_fn), name(d.grad_maker_fn),
            sorted((str(k), name(v.fn), v.lod, v.control) for k, v in d.kernels.items()))
"""


def test_the_order_op_modules_load_in_changes_no_op():
    """Each op's whole definition sits in the module that registers it: an op asked for
    first (with only the modules loaded so far) equals the same op once all are loaded,
    whichever order they load in."""
    for order in ("sorted", "reversed"):
        _run(_FINGERPRINT + (
            f"types = {order}(sorted(t for ts in MODULE_OPS.values() for t in ts))\n"
            "first = {t: fingerprint(registry.get_op_def(t)) for t in types}\n"
            "registry.load_all()\n"
            "changed = [t for t in types if fingerprint(registry.get_op_def(t)) != first[t]]\n"
            "assert not changed, changed\n"))


def test_threads_asking_at_once_get_complete_ops():
    """import_module waits while another thread imports the module: no thread sees an op
    registered but without its kernels yet."""
    out = _run(_FINGERPRINT + (
        "import threading\n"
        "types = ['conv2d', 'conv2d_grad', 'depthwise_conv2d', 'lstm', 'lstm_grad', 'gru']\n"
        "start, seen = threading.Barrier(len(types)), {}\n"
        "def ask(t):\n"
        "    start.wait()\n"
        "    seen[t] = fingerprint(registry.get_op_def(t))\n"
        "threads = [threading.Thread(target=ask, args=(t,)) for t in types]\n"
        "[th.start() for th in threads]; [th.join() for th in threads]\n"
        "registry.load_all()\n"
        "assert all(seen[t] == fingerprint(registry.get_op_def(t)) for t in types)\n"
        "print(sorted(seen))\n"))
    assert out.strip() == repr(sorted(["conv2d", "conv2d_grad", "depthwise_conv2d", "lstm",
                                       "lstm_grad", "gru"]))


def test_registering_an_op_modules_type_elsewhere_fails_at_once():
    """As when every op module loaded with the package: the clash is reported where the
    second registration is, not when the op module loads later."""
    out = _run(
        "import sys\n"
        "from paddle_ir.ops.registry import register_op, In, Out\n"
        "assert 'paddle_ir.ops.nn.softmax' not in sys.modules\n"
        "try:\n"
        "    register_op('softmax', inputs=[In('X')], outputs=[Out('Out')])\n"
        "except ValueError as exc:\n"
        "    print(exc)\n"
        "op = register_op('my_own_op', inputs=[In('X')], outputs=[Out('Out')])\n"
        "print(op.module)\n")
    assert out.splitlines() == ["op type 'softmax' is registered twice", "__main__"]
