"""Models PaddlePaddle 3.3.1 saved (tests/fixtures/paddle/) run here with Paddle's results,
in both of Paddle's layouts, and survive Paddle -> paddle-ir -> Paddle unchanged."""

import shutil

import numpy as np
import pytest
from google.protobuf import text_format

from paddle_ir import io, paddle_format
from paddle_ir.executor import Executor, Scope
from paddle_ir.proto import paddle_framework_pb2 as ppb
from tests.paddle_helpers import (
    FIXTURES,
    MODELS,
    OP_TYPES,
    assert_matches_paddle,
    feeds,
    paddle_desc,
    run_model,
)


@pytest.mark.parametrize("name", MODELS)
def test_pdmodel_gives_paddles_outputs(name):
    assert_matches_paddle(name, run_model(FIXTURES / name / "model.pdmodel", feeds(name)))


@pytest.mark.parametrize("name", MODELS)
def test_fluid_separate_files_give_the_same_outputs(name):
    combined = run_model(FIXTURES / name / "model", feeds(name))  # the path prefix
    separate = run_model(FIXTURES / name / "fluid", feeds(name))
    for a, b in zip(combined, separate, strict=True):
        np.testing.assert_array_equal(a, b)
    assert_matches_paddle(name, separate)


@pytest.mark.parametrize("name", [m for m in MODELS
                                  if (FIXTURES / m / "output_lods.npz").exists()])
def test_outputs_carry_paddles_lod(name):
    """Where Paddle's fetched output had a LoD (boxes per image), ours has the same."""
    scope = Scope()
    program, _, fetches = io.load_inference_model(str(FIXTURES / name / "model.pdmodel"),
                                                  scope=scope)
    got = Executor().run(program, feed=feeds(name), fetch_list=fetches, scope=scope,
                         return_numpy=False)
    with np.load(FIXTURES / name / "output_lods.npz", allow_pickle=False) as data:
        expected = {int(k.split(".")[1]): str(data[k]) for k in data.files}
    assert expected
    for k, lod in expected.items():
        assert str([[int(v) for v in level] for level in got[k].offsets]) == lod, k


def test_fluid_combined_params_file(tmp_path):
    """fluid 1.x could also keep every parameter in one file, __params__, beside __model__."""
    shutil.copy(FIXTURES / "mlp" / "fluid" / "__model__", tmp_path / "__model__")
    shutil.copy(FIXTURES / "mlp" / "model.pdiparams", tmp_path / "__params__")
    model = paddle_format.locate(tmp_path)
    assert model.params_file == str(tmp_path / "__params__") and model.layout == "fluid"
    assert_matches_paddle("mlp", run_model(tmp_path, feeds("mlp")))


@pytest.mark.parametrize("name", MODELS)
def test_feed_and_fetch_ops_become_targets(name):
    desc = paddle_desc(FIXTURES / name / "model.pdmodel")
    feed_ops = [op for op in desc.blocks[0].ops if op.type == "feed"]
    program = paddle_format.load_paddle_program(FIXTURES / name / "model.pdmodel")
    by_col = sorted(feed_ops, key=lambda op: op.attrs[[a.name for a in op.attrs].index("col")].i)
    assert program.feed_target_names == [op.outputs[0].arguments[0] for op in by_col]
    assert program.fetch_target_names and all(
        not n.startswith("fetch") for n in program.fetch_target_names)
    ours = program.desc.blocks[0]
    assert {op.type for op in ours.ops} == OP_TYPES[name]
    assert not any(v.name in ("feed", "fetch") for v in ours.vars)


def _canonical(desc: ppb.ProgramDesc) -> ppb.ProgramDesc:
    """The desc with attrs, slots and vars in name order: Paddle's own writer orders them by
    hash maps, so order is not part of a program's meaning."""
    out = ppb.ProgramDesc()
    out.CopyFrom(desc)
    for block in out.blocks:
        vars_ = sorted(block.vars, key=lambda v: v.name)
        del block.vars[:]
        block.vars.extend(vars_)
        for op in block.ops:
            for field in ("attrs", "inputs", "outputs"):
                items = sorted(getattr(op, field),
                               key=lambda a: a.name if field == "attrs" else a.parameter)
                del getattr(op, field)[:]
                getattr(op, field).extend(items)
            # Paddle's writer keeps a feed/fetch op's framework attrs; ours writes only col.
            if op.type in ("feed", "fetch"):
                kept = [a for a in op.attrs if a.name == "col"]
                del op.attrs[:]
                op.attrs.extend(kept)
    return out


@pytest.mark.parametrize("name", MODELS)
def test_round_trip_keeps_the_program(name):
    original = paddle_desc(FIXTURES / name / "model.pdmodel")
    back = paddle_format.to_paddle(paddle_format.from_paddle(original))
    assert text_format.MessageToString(_canonical(back)) == \
        text_format.MessageToString(_canonical(original))


@pytest.mark.parametrize("name", MODELS)
def test_round_trip_through_files_runs_the_same(name, tmp_path):
    scope = Scope()
    # optimize=False: the program and parameters as saved (no load-time folding).
    program, _, _ = io.load_inference_model(str(FIXTURES / name / "model.pdmodel"), scope=scope,
                                            optimize=False)
    written = paddle_format.write_paddle_model(tmp_path / "again", program, scope)
    assert [p.rsplit(".", 1)[1] for p in written] == ["pdiparams", "pdmodel"]
    # Same records, same bytes: sorted-name order, LoDTensor layout.
    assert (tmp_path / "again.pdiparams").read_bytes() == \
        (FIXTURES / name / "model.pdiparams").read_bytes()
    assert_matches_paddle(name, run_model(tmp_path / "again.pdmodel", feeds(name)))
    paddle_format.write_paddle_model(tmp_path / "fluid", program, scope, layout="fluid")
    for record in (FIXTURES / name / "fluid").iterdir():  # Paddle's own per-variable files
        assert (tmp_path / "fluid" / record.name).read_bytes() == record.read_bytes() or \
            record.name == "__model__"
    assert_matches_paddle(name, run_model(tmp_path / "fluid", feeds(name)))


@pytest.mark.parametrize("name", MODELS)
def test_framework_attrs_are_kept_but_not_interpreted(name):
    program = paddle_format.load_paddle_program(FIXTURES / name / "model.pdmodel")
    for op in program.desc.blocks[0].ops:
        kept_attrs = [ppb.OpDesc.Attr.FromString(raw) for raw in op.paddle_attrs]
        kept = {a.name for a in kept_attrs}
        regular = {a.name for a in op.attrs}
        assert "op_namescope" in kept and "op_device" in kept
        # A re-typed attr keeps only its type; a SCALARS one (set_value's values) keeps
        # each scalar's type too, so that writing back restores them.
        scalars = {a.name for a in kept_attrs if a.type in (ppb.SCALAR, ppb.SCALARS)}
        assert not kept & regular - {"padding_idx"} - scalars
