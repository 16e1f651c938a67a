"""`paddle-ir check` and `dump` do work linear in a program's size (issue 16, item 6), shown
by counting work, not by timing: the Python lines run and C calls made for 2N ops are about
twice those for N (a quadratic pass makes them 4x), the checker's rules run once per
distinct op shape however long the chain, and replaying a recorded rule still finds a
mismatched declaration anywhere in the chain."""

import sys

import pytest

from bench.long_chain import build_chain
from paddle_ir.analysis.checker import MISMATCH, _Checker, check_program
from paddle_ir.cli.check import loop_warnings
from paddle_ir.cli.dump import render_program
from paddle_ir.core import utf8check
from paddle_ir.framework import Program, undecodable_strings
from paddle_ir.proto import framework_pb2 as pb

_CHAINS = {n: build_chain(n)[0].desc for n in (100, 200, 400)}


def _calls(fn) -> int:
    """Python lines executed and C functions called while fn() runs: work a quadratic
    pass cannot hide (a slice or a scan inside a loop runs lines or C calls per item)."""
    count = 0

    def trace(frame, event, arg):
        nonlocal count
        count += 1
        return trace

    def profile(frame, event, arg):
        nonlocal count
        if event == "c_call":
            count += 1

    # The tracer and profiler that were installed before (coverage's, a debugger's) come
    # back afterwards: settrace(None) would switch coverage off for every later test.
    previous_trace, previous_profile = sys.gettrace(), sys.getprofile()
    sys.setprofile(profile)
    sys.settrace(trace)
    try:
        fn()
    finally:
        sys.settrace(previous_trace)
        sys.setprofile(previous_profile)
    return count


@pytest.mark.parametrize("name, work", [
    ("check", check_program),
    ("loop warnings", loop_warnings),
    ("parse", lambda desc: Program.parse(desc.SerializeToString())),
    ("dump text", lambda desc: render_program(desc, "text", None)),
    ("dump dot", lambda desc: render_program(desc, "dot", None)),
])
@pytest.mark.parametrize("utf8_by", ["twin", "walk"])
def test_work_per_op_does_not_grow_with_the_program(name, work, utf8_by, monkeypatch):
    monkeypatch.setattr(utf8check, "_TWIN_FROM_BYTES", 0 if utf8_by == "twin" else 1 << 62)
    work(_CHAINS[100])  # first-use costs (op defaults, the UTF-8 twin) out of the way
    calls = {n: _calls(lambda d=desc: work(d)) for n, desc in _CHAINS.items()}
    first, second = calls[200] - calls[100], calls[400] - calls[200]  # 100 ops, then 200
    assert first > 0
    assert second <= 2.2 * first, (name, calls)


def test_rules_run_once_per_distinct_op_shape():
    for length in (50, 400):
        checker = _Checker(_CHAINS[400] if length == 400 else build_chain(length)[0].desc)
        checker.check_structure()
        checker.check_ops()
        checker.check_inference()
        assert checker.problems == []
        assert checker.inference.rule_runs == 2  # one scale, one elementwise_add


def _declared(desc: pb.ProgramDesc, name: str) -> pb.VarDesc:
    return next(v for v in desc.blocks[0].vars if v.name == name)


def test_a_replayed_rule_still_finds_a_wrong_declaration_deep_in_the_chain():
    desc = pb.ProgramDesc()
    desc.CopyFrom(_CHAINS[200])
    victim = desc.blocks[0].ops[151].outputs[0].arguments[0]
    del _declared(desc, victim).lod_desc.tensor.dims[:]
    _declared(desc, victim).lod_desc.tensor.dims.extend([-1, 5])
    problems = check_program(desc)
    assert [p.category for p in problems] == [MISMATCH]
    assert f"variable {victim!r} is declared differently" in problems[0].message
    assert "shape [-1, 5] vs [-1, 4]" in problems[0].message


def test_aliased_arguments_are_a_different_op_shape():
    """x + x and x + y may infer differently, so they never share a recorded effect."""
    desc = pb.ProgramDesc()
    desc.CopyFrom(_CHAINS[100])
    add = desc.blocks[0].ops[1]  # elementwise_add(h, y) -> h'
    add.inputs[1].arguments[0] = add.inputs[0].arguments[0]  # elementwise_add(h, h)
    checker = _Checker(desc)
    checker.check_structure()
    checker.check_ops()
    checker.check_inference()
    assert checker.problems == []
    assert checker.inference.rule_runs == 3


def _garbled(desc: pb.ProgramDesc) -> pb.ProgramDesc:
    """`desc` with its first op's output name no longer UTF-8 (wherever the name occurs)."""
    name = desc.blocks[0].ops[0].outputs[0].arguments[0].encode()
    data = desc.SerializeToString().replace(name, name[:-1] + b"\xff")
    return pb.ProgramDesc.FromString(data)


def test_text_that_is_not_utf8_is_found_with_and_without_the_twin(monkeypatch):
    sound = _CHAINS[400]  # big enough for the twin (small programs are walked)
    assert len(sound.SerializeToString()) >= utf8check._TWIN_FROM_BYTES
    bad = _garbled(sound)
    assert not utf8check.all_text_utf8(bad)
    paths = undecodable_strings(bad)
    assert paths and all("tmp" not in p for p in paths)  # paths, not the text
    with monkeypatch.context() as patched:  # the twin alone answers for a sound program
        patched.setattr(utf8check, "_has_undecodable", None)
        assert utf8check.all_text_utf8(sound)
    monkeypatch.setitem(utf8check._TWINS, pb.ProgramDesc.DESCRIPTOR.full_name, None)
    assert not utf8check.all_text_utf8(bad)  # the walk alone agrees
    assert utf8check.all_text_utf8(sound)
    assert undecodable_strings(bad) == paths
    small = _garbled(_CHAINS[100])  # below the size for the twin: walked
    assert len(small.SerializePartialToString()) < utf8check._TWIN_FROM_BYTES
    assert undecodable_strings(small)


def test_an_attribute_missing_its_type_is_reported_not_raised():
    """The op-shape key reads attributes as bytes: a required field missing from one is a
    problem the checker lists, never a protobuf EncodeError."""
    desc = pb.ProgramDesc()
    desc.CopyFrom(_CHAINS[100])
    desc.blocks[0].ops[0].attrs[0].ClearField("type")
    texts = [str(p) for p in check_program(desc)]
    assert "[InvalidProgram] required field blocks[0].ops[0].attrs[0].type is missing" in texts


def test_counting_restores_the_tracer_that_was_installed():
    def outer(frame, event, arg):
        return None

    before_trace, before_profile = sys.gettrace(), sys.getprofile()
    sys.settrace(outer)
    try:
        _calls(lambda: None)
        assert sys.gettrace() is outer  # a coverage tool's tracer survives the count
    finally:
        sys.settrace(before_trace)
        sys.setprofile(before_profile)
