"""The op registry (ops/registry.py): its API on op types registered into an empty
registry, and the spec check shared by builder, executor and checker."""

import importlib
import subprocess
import sys

import numpy as np
import pytest

import paddle_ir as pir
from paddle_ir.analysis.checker import check_program
from paddle_ir.core.errors import InvalidProgramError
from paddle_ir.ops import registry
from paddle_ir.ops.registry import (
    COMMON_ATTRS,
    FLOATS,
    REQUIRED,
    Attr,
    In,
    KernelKey,
    Out,
    get_op_def,
    register_op,
)
from paddle_ir.proto import framework_pb2 as pb


@pytest.fixture
def empty_registry(monkeypatch):
    """An empty registry for the test, so no test op reaches the real op list."""
    monkeypatch.setattr(registry, "_REGISTRY", {})


def runtime_name(text: str) -> str:
    """An equal string that is not the interned literal (names parsed from files are not)."""
    return "".join(list(text))


def make_op(op_type="probe", **kwargs):
    return register_op(op_type, inputs=[In("X"), In("Y", dispensable=True)],
                       outputs=[Out("Out"), Out("Mask")],
                       attrs=[Attr("axis", "int"), Attr("scale", "float", 1.0)], **kwargs)


def test_slot_and_attribute_lookups_find_each_entry_by_an_equal_name(empty_registry):
    op = make_op()
    for slot in ("X", "Y"):
        assert op.input_slot(runtime_name(slot)) is op.inputs[["X", "Y"].index(slot)]
    for slot in ("Out", "Mask"):
        assert op.output_slot(runtime_name(slot)) is op.outputs[["Out", "Mask"].index(slot)]
    assert op.input_slot("Z") is None and op.output_slot("X") is None
    assert op.attr_spec(runtime_name("scale")).default == 1.0
    assert op.attr_spec("op_role") is COMMON_ATTRS["op_role"]
    assert op.attr_spec("nope") is None


def test_an_attribute_without_a_default_is_required(empty_registry):
    op = make_op()
    assert op.attr_spec("axis").required is True and op.attr_spec("axis").default is REQUIRED
    assert op.attr_spec("scale").required is False
    assert Attr("flag", "bool", False).required is False  # a falsy default is still one
    with pytest.raises(ValueError, match="attribute 'w': unknown kind 'matrix'"):
        Attr("w", "matrix")


def test_key_inputs_and_dtype_from_default_to_the_first_input(empty_registry):
    op = make_op()
    assert op.key_inputs == ("X",) and op.dtype_from == "X"
    keyed = make_op("keyed", key_inputs=["Y"])
    assert keyed.key_inputs == ("Y",) and keyed.dtype_from == "Y"
    both = make_op("both", key_inputs=["Y", "X"])  # the dtype comes from the first key input
    assert both.key_inputs == ("Y", "X") and both.dtype_from == "Y"
    chosen = make_op("chosen", key_inputs=["X", "Y"], dtype_from="attr:dtype")
    assert chosen.dtype_from == "attr:dtype"
    bare = register_op("bare")
    assert bare.key_inputs == () and bare.dtype_from is None
    assert registry.get_op_def("keyed") is keyed
    assert registry.registered_op_types() == ["bare", "both", "chosen", "keyed", "probe"]


def test_kernels_register_per_dtype_and_storage(empty_registry):
    op = make_op(key_inputs=["X", "Y"])
    assert op.kernel_list() == "(none)"

    @op.kernel(storage=["dense", "selected_rows"], dtypes=FLOATS)
    def k(attrs, x, y):
        return x

    for dt in FLOATS:
        kernel = op.find_kernel(KernelKey(("dense", "selected_rows"), dt))
        assert kernel.fn is k and kernel.lod is False and kernel.control is False
    assert op.find_kernel(KernelKey(("dense", "dense"), np.dtype(np.float32))) is None
    assert op.kernel_list() == ("(dense, selected_rows; float32; cpu), "
                                "(dense, selected_rows; float64; cpu)")
    op.kernel(dtypes=[np.int64], lod=True)(k)  # default storage: dense for every key input
    assert op.find_kernel(KernelKey(("dense", "dense"), np.dtype(np.int64))).lod is True


def test_registration_errors_name_the_op(empty_registry):
    op = make_op()
    with pytest.raises(ValueError, match="op type 'probe' is registered twice"):
        make_op()
    with pytest.raises(ValueError, match=r"probe: kernel storage \('dense', 'dense'\) does not "
                                         r"match key inputs \('X',\)"):
        op.kernel(storage=["dense", "dense"])
    op.kernel(dtypes=[np.float32])(lambda attrs, x: x)
    with pytest.raises(ValueError, match=r"probe: kernel \(dense; float32; cpu\) registered "
                                         r"twice"):
        op.kernel(dtypes=[np.float32])(lambda attrs, x: x)


def test_decorators_return_the_function_they_attach(empty_registry):
    op = make_op()

    def rule(ctx):
        return None

    assert op.infer_shape(rule) is rule and op.infer_shape_fn is rule
    assert op.infer_var_type(rule) is rule and op.infer_var_type_fn is rule
    assert op.grad_maker(rule) is rule and op.grad_maker_fn is rule
    assert op.kernel(dtypes=[np.float64])(rule) is rule


def test_slot_and_attribute_specs_are_immutable_hashable_values():
    x = In("X")
    assert (x.duplicable, x.dispensable, x.no_need_buffer) == (False, False, False)
    assert hash(x) == hash(In("X")) and {x, In("X")} == {x}
    attr = Attr("axis", "int", 0)
    assert hash(attr) == hash(Attr("axis", "int", 0))
    for spec, field in ((x, "name"), (attr, "default")):
        with pytest.raises(AttributeError):
            setattr(spec, field, "changed")


def test_op_roles_are_paddles():
    # Paddle's OpRole values (framework/op_proto_maker.h): forward 0, backward 1,
    # optimize 2, loss 0x100; an op without the attribute is a forward op.
    assert (registry.OP_ROLE_FORWARD, registry.OP_ROLE_BACKWARD, registry.OP_ROLE_OPTIMIZE,
            registry.OP_ROLE_LOSS) == (0, 1, 2, 256)
    assert COMMON_ATTRS["op_role"].default == registry.OP_ROLE_FORWARD


# ----------------------------------------------------------------------------------------------
# One check of an op against its spec (OpDef.problems), three users with one voice:
# the builder raises the first problem, the executor raises the first, and
# `paddle-ir check` lists them all, each with the same message.


_NEEDS_K = register_op("test_spec_needs_k", inputs=[In("X")], outputs=[Out("Out")],
                       attrs=[Attr("k", "int", doc="no default: required")],
                       doc="an op for tests/ops/test_registry.py")


def test_problems_lists_every_defect_in_one_wording():
    scale = get_op_def("scale")
    found = scale.problems({"X": ["a", "b"], "Z": ["c"]}, {},
                           {"scale": "big", "colour": "red", "op_role": 1})
    assert found == [
        "input X of scale takes one variable, got 2: ['a', 'b']",
        "scale has no input slot 'Z'; its inputs are ['X', 'ScaleTensor']",
        "output Out of scale is required but is not given",
        "attribute 'scale' of scale must be a float, got str 'big'",
        "scale has no attribute 'colour'; its attributes are ['scale', 'bias', "
        "'bias_after_scale']",
    ]
    assert _NEEDS_K.problems({"X": ["a"]}, {"Out": ["b"]}, {}) == [
        "attribute 'k' of test_spec_needs_k is required but is not given"]
    assert scale.problems({"X": ["a"]}, {"Out": ["b"]}, {"op_role": 1}) == []
    assert list(scale.with_defaults({"op_role": 1, "scale": 2.0})) == [
        "scale", "bias", "bias_after_scale", "op_role"]


def _program():
    main, startup = pir.Program(), pir.Program()
    with pir.program_guard(main, startup):
        x = pir.layers.data("x", [-1, 3])
        y = pir.layers.scale(x, 2.0)
    return main, y


def _parsed(mutate):
    main, y = _program()
    desc = pb.ProgramDesc()
    desc.CopyFrom(main.desc)
    mutate(desc.blocks[0].ops[0])
    return desc, y


@pytest.mark.parametrize("mutate, message", [
    (lambda op: op.inputs[0].arguments.append("x"),
     "input X of scale takes one variable, got 2: ['x', 'x']"),
    (lambda op: next(a for a in op.attrs if a.name == "scale").__setattr__("type", pb.STRING),
     "attribute 'scale' of scale must be float (AttrType FLOAT), but the program stores "
     "STRING"),
    (lambda op: op.attrs.add(name="colour", type=pb.STRING, s="red"),
     "scale has no attribute 'colour'"),
])
def test_executor_and_checker_say_the_same(mutate, message):
    desc, y = _parsed(mutate)
    program = pir.Program.parse(desc.SerializeToString())
    with pytest.raises(InvalidProgramError, match="op #0 scale") as raised:
        pir.Executor().run(program, feed={"x": np.ones((1, 3), np.float32)},
                           fetch_list=[y.name], scope=pir.Scope())
    assert message in str(raised.value)
    texts = [str(p) for p in check_program(desc)]
    assert any(message in t for t in texts), texts


def test_builder_raises_the_first_problem_in_the_same_words():
    main, _ = _program()
    block = main.global_block()
    x = block.var("x")
    with pytest.raises(InvalidProgramError,
                       match=r"input X of scale takes one variable, got 2: \['x', 'x'\]"):
        block.append_op("scale", inputs={"X": [x, x]}, outputs={"Out": x})
    with pytest.raises(InvalidProgramError, match="attribute 'k' of test_spec_needs_k is "
                                                  "required but is not given"):
        block.append_op("test_spec_needs_k", inputs={"X": x}, outputs={"Out": x})
    with pytest.raises(InvalidProgramError, match=r"attribute 'scale' of scale must be a float, "
                                                  r"got str 'big'"):
        block.append_op("scale", inputs={"X": x}, outputs={"Out": x}, attrs={"scale": "big"})


def test_every_grad_op_attribute_defaults_as_its_forward_op_s():
    """A grad op takes its attributes from its forward op (the grad makers copy them); a
    program from elsewhere that leaves one out must get the forward op's default, so the
    two specs agree on every attribute they share (kind and default)."""
    registry.load_all()
    pairs, disagree = 0, []
    for op_type in registry.registered_op_types():
        grad = registry.get_op_def(op_type + "_grad")
        if grad is None:
            continue
        forward = {a.name: a for a in registry.get_op_def(op_type).attrs}
        for a in grad.attrs:
            if a.name in forward:
                pairs += 1
                f = forward[a.name]
                if (a.kind, a.default) != (f.kind, f.default):
                    disagree.append(f"{op_type}_grad.{a.name}: {a.kind} {a.default!r} vs "
                                    f"{f.kind} {f.default!r}")
    assert pairs > 300  # sequence_pool's pad_value, conv's strides, ...
    assert disagree == []


def test_every_op_records_the_module_that_registers_it_also_through_a_helper():
    """The op index (ops/_index.py) loads an op's module on first use: each op, also those
    a helper registers (register_simple's `norm` and `norm_grad`, activation tables),
    names the op module whose import ran, as the index lists it."""
    from paddle_ir.ops import _index

    registry.load_all()
    listed = {op: module for module, ops in _index.MODULE_OPS.items() for op in ops}
    assert len(listed) > 500
    wrong = {op: registry.get_op_def(op).module for op, module in listed.items()
             if registry.get_op_def(op).module != module}
    assert wrong == {}
    assert registry.get_op_def("norm_grad").module == "paddle_ir.ops.nn.norm"


def test_an_op_defined_without_register_op_names_no_module():
    """An OpDef built directly (as tests build a test-only op for the registry) comes from
    no op module's import: its module is "", which the op index generator
    (tools/gen_op_index.py) leaves out, rather than a missing attribute it would fail on."""
    opdef = registry.OpDef("hand_made", "", (In("X"),), (Out("Out"),), ())
    assert opdef.module == ""


def test_register_op_takes_everything_but_the_type_by_keyword(monkeypatch):
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    with pytest.raises(TypeError, match="positional argument"):
        register_op("probe_positional", [In("X")])
    assert "probe_positional" not in registry._REGISTRY


@pytest.mark.parametrize("storage", [["dense"], ["dense", "dense", "dense"], []])
def test_a_kernel_s_storage_must_name_one_type_per_key_input(monkeypatch, storage):
    """Fewer storage types than key inputs is refused as more are: the key would never be
    asked for (the executor asks one storage per key input)."""
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    op = register_op("probe_two_keys", inputs=[In("X"), In("Y")], outputs=[Out("Out")],
                     key_inputs=["X", "Y"])
    with pytest.raises(ValueError, match=r"probe_two_keys: kernel storage .* does not match "
                                         r"key inputs \('X', 'Y'\)"):
        op.kernel(storage=storage)
    assert op.kernels == {}


def test_an_op_module_being_imported_is_waited_for_not_taken_as_loaded(tmp_path, monkeypatch):
    """While an op module imports (here by a plain import, in another thread) and has
    registered only some of its ops, a get_op_def for a later op of it must wait for the
    import to end, not take the module as loaded and answer None."""
    import importlib
    import sys
    import threading
    import types

    sync = types.SimpleNamespace(first=threading.Event(), go_on=threading.Event())
    (tmp_path / "probe_ops.py").write_text(
        "import probe_sync\n"
        "from paddle_ir.ops.registry import In, Out, register_op\n"
        "register_op('probe_first', inputs=[In('X')], outputs=[Out('Out')])\n"
        "probe_sync.first.set()\n"
        "probe_sync.go_on.wait(10)\n"
        "register_op('probe_later', inputs=[In('X')], outputs=[Out('Out')])\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setitem(sys.modules, "probe_sync", sync)
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(registry, "_LOADED", set(registry._LOADED))
    table = runtime_name("probe_ops")  # the index's string, not the importer's
    monkeypatch.setattr(registry, "_MODULE_OF", {**registry._MODULE_OF,
                                                 "probe_first": table, "probe_later": table})
    monkeypatch.delitem(sys.modules, "probe_ops", raising=False)
    importer = threading.Thread(target=importlib.import_module,
                                args=(runtime_name("probe_ops"),))
    importer.start()
    assert sync.first.wait(10)
    got = {}
    asker = threading.Thread(target=lambda: got.update(op=registry.get_op_def("probe_later")))
    asker.start()
    asker.join(0.3)  # it must be waiting for the import
    sync.go_on.set()
    importer.join(10)
    asker.join(10)
    assert got["op"] is not None and got["op"].type == "probe_later"
    sys.modules.pop("probe_ops", None)


@pytest.mark.parametrize("owner", ["probe_a_owner", "probe_z_owner"])
def test_the_index_owner_loads_first_whichever_way_the_module_names_sort(tmp_path, monkeypatch,
                                                                        owner):
    """Registering an op type that the op index (ops/_index.py) assigns to another module
    imports that module first, so the clash is refused here, where it is made, rather than
    when the owner loads later; whichever way the two names sort (probe_a_owner <
    probe_m_registrar < probe_z_owner)."""
    (tmp_path / f"{owner}.py").write_text(
        "from paddle_ir.ops.registry import In, Out, register_op\n"
        "register_op('probe_owned', inputs=[In('X')], outputs=[Out('Out')])\n")
    (tmp_path / "probe_m_registrar.py").write_text(
        "from paddle_ir.ops.registry import In, Out, register_op\n"
        "register_op('probe_owned', inputs=[In('X')], outputs=[Out('Out')])\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    monkeypatch.setattr(registry, "_LOADED", set(registry._LOADED))
    monkeypatch.setitem(registry._MODULE_OF, "probe_owned", owner)
    for name in (owner, "probe_m_registrar"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    try:
        with pytest.raises(ValueError, match="op type 'probe_owned' is registered twice"):
            importlib.import_module("probe_m_registrar")
        assert registry._REGISTRY["probe_owned"].module == owner
    finally:
        for name in (owner, "probe_m_registrar"):
            sys.modules.pop(name, None)


def test_an_attribute_value_is_its_default_as_the_desc_stores_it():
    """FLOAT and FLOATS values compare as float32 (what an OpDesc holds), FLOAT64S as
    doubles; lists element by element; a required attribute has no default to match."""
    from paddle_ir.ops.registry import REQUIRED, same_attr_value

    tenth32 = float(np.float32(0.1))
    assert same_attr_value("float", 0.1, tenth32)
    assert same_attr_value("floats", [0.1, 2.0], [tenth32, 2.0])
    assert not same_attr_value("floats", [0.1], [tenth32, 2.0])  # another length
    assert not same_attr_value("float64s", [0.1], [tenth32])  # doubles stay doubles
    assert same_attr_value("ints", [3, 4], [3, 4]) and not same_attr_value("ints", [3], [4])
    assert not same_attr_value("int", 0, REQUIRED) and not same_attr_value("ints", [], REQUIRED)


@pytest.mark.parametrize("call", ["registry.load_all()", "registry.registered_op_types()"])
def test_load_all_and_the_op_list_load_every_op_module_in_a_fresh_interpreter(call):
    """Nothing else loaded first: either call alone registers every op type the op index
    lists (the suite's own process has most modules loaded by the time a test calls it)."""
    code = ("from paddle_ir.ops import registry, _index\n"
            f"{call}\n"
            "listed = {op for ops in _index.MODULE_OPS.values() for op in ops}\n"
            "print(len(listed), len(listed - set(registry._REGISTRY)))\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    listed, missing = map(int, proc.stdout.split())
    assert listed > 500 and missing == 0


def test_a_helper_registering_inside_a_comprehension_names_the_importing_op_module(
        tmp_path, monkeypatch):
    """register_op names the module whose top-level code runs, also when a helper of
    another module registers from a list comprehension (a frame of its own, named
    '<listcomp>', in the helper's globals) or a lambda."""
    (tmp_path / "probe_helper_lib.py").write_text(
        "from paddle_ir.ops.registry import In, Out, register_op\n"
        "def register_all(names):\n"
        "    return [register_op(n, inputs=[In('X')], outputs=[Out('Out')]) for n in names]\n"
        "register_one = lambda n: register_op(n, inputs=[In('X')], outputs=[Out('Out')])\n")
    (tmp_path / "probe_user_ops.py").write_text(
        "import probe_helper_lib\n"
        "probe_helper_lib.register_all(['probe_listed_a', 'probe_listed_b'])\n"
        "probe_helper_lib.register_one('probe_by_lambda')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    for name in ("probe_helper_lib", "probe_user_ops"):
        monkeypatch.delitem(sys.modules, name, raising=False)
    try:
        importlib.import_module("probe_user_ops")
        for op in ("probe_listed_a", "probe_listed_b", "probe_by_lambda"):
            assert registry._REGISTRY[op].module == "probe_user_ops", op
    finally:
        for name in ("probe_helper_lib", "probe_user_ops"):
            sys.modules.pop(name, None)
