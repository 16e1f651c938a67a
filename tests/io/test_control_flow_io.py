"""Programs with sub-blocks on disk: bytes, inference models, training jobs, check and dump."""

import numpy as np

import paddle_ir as pir
from paddle_ir import io, layers
from paddle_ir.analysis.checker import check_program
from paddle_ir.cli.main import main as cli_main
from tests.layers.test_dynamic_rnn import SEED_LENGTHS, D, build, nested


def seed_batch(seed=3):
    return pir.create_lod_tensor(np.random.default_rng(seed).normal(size=(15, D)), SEED_LENGTHS)


def trained_nested():
    main, startup, x, article = build(nested, lod_level=2)
    with pir.program_guard(main, startup):
        loss = layers.mean(layers.square(article))
        pir.optimizer.SGD(0.1).minimize(loss)
    return main, startup, article, loss


def test_a_program_with_loop_and_grad_blocks_round_trips_through_bytes():
    main, startup, article, loss = trained_nested()
    data = main.serialize()
    again = pir.Program.parse(data)
    assert again.serialize() == data
    assert [(b.parent_idx, b.forward_block_idx) for b in again.blocks] == [
        (b.parent_idx, b.forward_block_idx) for b in main.blocks]
    results = []
    for program in (main, again):
        exe, scope = pir.Executor(), pir.Scope()
        exe.run(startup, scope=scope)
        results.append([exe.run(program, feed={"x": seed_batch()}, fetch_list=[loss],
                                scope=scope)[0] for _ in range(2)])
    np.testing.assert_array_equal(results[0], results[1])
    assert results[0][1] < results[0][0]  # one SGD step through both loops lowered the loss
    assert check_program(again.desc) == []


def test_an_inference_model_keeps_the_loop_bodies_it_runs(tmp_path):
    main, startup, article, loss = trained_nested()
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    (want,) = exe.run(main.clone(for_test=True), feed={"x": seed_batch()},
                      fetch_list=[article], scope=scope)
    pruned = io.save_inference_model(tmp_path / "model", ["x"], [article], exe, main,
                                     scope=scope)
    # block 0 and the two loop bodies; the grad blocks went with the backward ops
    assert [b.parent_idx for b in pruned.blocks] == [-1, 0, 1]
    whiles = [op for b in pruned.blocks for op in b.ops if op.type == "while"]
    assert [op.attr("sub_block") for op in whiles] == [1, 2]
    assert all(op.attr("is_test") for op in whiles)
    assert check_program(pruned.desc) == []

    loaded_scope = pir.Scope()
    program, feeds, fetches = io.load_inference_model(tmp_path / "model", scope=loaded_scope)
    (got,) = pir.Executor().run(program, feed={feeds[0]: seed_batch()}, fetch_list=fetches,
                                scope=loaded_scope)
    np.testing.assert_allclose(got, want, rtol=1e-12)


def test_a_training_job_with_loops_saves_and_resumes(tmp_path):
    main, startup, article, loss = trained_nested()
    io.save_train_program(tmp_path / "job", main, startup, ["x"], [loss])
    exe, scope = pir.Executor(), pir.Scope()
    exe.run(startup, scope=scope)
    exe.run(main, feed={"x": seed_batch()}, fetch_list=[loss], scope=scope)
    io.save_persistables(exe, tmp_path / "ckpt", main, scope)
    (want,) = exe.run(main, feed={"x": seed_batch()}, fetch_list=[loss], scope=scope)

    loaded_main, _ = io.load_train_program(tmp_path / "job")
    resumed = pir.Scope()
    io.load_persistables(exe, tmp_path / "ckpt", loaded_main, resumed)
    (got,) = pir.Executor().run(loaded_main, feed={"x": seed_batch()},
                                fetch_list=loaded_main.fetch_target_names, scope=resumed)
    np.testing.assert_array_equal(got, want)


def test_check_reports_bad_block_references():
    main, *_ = trained_nested()
    desc = main.desc
    assert check_program(desc) == []
    while_op = next(op for op in desc.blocks[0].ops if op.type == "while")
    attr = next(a for a in while_op.attrs if a.name == "sub_block")
    attr.block_idx = 2  # the inner body, whose parent is block 1
    desc.blocks[3].forward_block_idx = 9
    problems = "\n".join(str(p) for p in check_program(desc))
    assert "attribute 'sub_block' refers to block 2, whose parent is block 1, but the op is " \
           "in block 0" in problems
    assert "block 3: forward_block_idx 9 does not name a sub-block" in problems


def test_dump_shows_every_block(tmp_path, capsys):
    main, *_ = trained_nested()
    path = tmp_path / "main.pb"
    io.save_program(path, main)
    assert cli_main(["dump", str(path)]) == 0
    out = capsys.readouterr().out
    for header in ("{ // block 1 (parent 0)", "{ // block 2 (parent 1)",
                   "{ // block 3 (parent 0, grad of block 1)",
                   "{ // block 4 (parent 3, grad of block 2)"):
        assert header in out
    assert "sub_block = block[1]" in out and "= while_grad(" in out
    assert ": STEP_SCOPES" in out and ": LOD_TENSOR_ARRAY" in out and ": LOD_RANK_TABLE" in out
