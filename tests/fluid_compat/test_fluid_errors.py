"""The remaining error paths of the Fluid surface, each matched by its message."""

import numpy as np
import pytest

import paddle_ir as fluid


@pytest.fixture(autouse=True)
def fresh_programs():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.unique_name.guard(), fluid.program_guard(main, startup), \
            fluid.scope_guard(fluid.core.Scope()):
        yield main, startup


def test_reader_construction_and_source_errors(fresh_programs):
    x = fluid.layers.data("x", [2])
    with pytest.raises(fluid.PaddleIRError, match="from_generator needs feed_list"):
        fluid.io.DataLoader.from_generator(feed_list=None)
    loader = fluid.io.DataLoader.from_generator(feed_list=[x], return_list=True)
    with pytest.raises(fluid.PaddleIRError, match="the DataLoader has no data source"):
        list(loader())
    loader.set_batch_generator(lambda: iter([(np.ones((3, 2), np.float32), 1)]))
    with pytest.raises(fluid.PaddleIRError, match=r"the batch generator gave 2 values, but the "
                                                  r"reader feeds 1 variables \['x'\]"):
        list(loader())
    loader.set_batch_generator(lambda: iter([np.ones((3, 2), np.float32)]))
    [values] = list(loader())  # return_list=True: the values, in feed_list order
    assert isinstance(values, list) and np.array(values[0]).shape == (3, 2)
    with pytest.raises(fluid.PaddleIRError, match=r"shapes \(2\), dtypes \(1\) and lod_levels "
                                                  r"\(2\) must have one entry per variable"):
        fluid.layers.py_reader(capacity=4, shapes=[[-1, 1], [-1, 2]], dtypes=["int64"])
    reader = fluid.layers.py_reader(capacity=4, shapes=[[-1, 2]], dtypes=["float32"])
    assert fluid.layers.read_file(reader).shape == (-1, 2)
    assert fluid.layers.double_buffer(reader) is reader


def test_feeder_saver_and_op_errors(fresh_programs, tmp_path):
    main, startup = fresh_programs
    ids = fluid.layers.data("ids", [1], dtype="int64")
    with pytest.raises(fluid.PaddleIRError, match="feed_list holds Variables or their names, "
                                                  "got 3"):
        fluid.DataFeeder([3], None)
    feeds = fluid.DataFeeder([ids], None).decorate_reader(lambda: iter([[([1],), ([2],)]]))
    assert [np.array(f["ids"]).tolist() for f in feeds()] == [[[1], [2]]]
    with pytest.raises(fluid.ProgramError, match="depth must be positive, got 0"):
        fluid.layers.one_hot(ids, 0)
    array = fluid.layers.create_array("float32")
    exe = fluid.Executor(fluid.CPUPlace())
    with pytest.raises(fluid.PaddleIRError, match=r"of type LOD_TENSOR_ARRAY holds no tensor"):
        fluid.io.save_vars(exe, str(tmp_path), main, vars=[array])
    w = fluid.layers.fc(fluid.layers.data("x", [2]), 1, param_attr="w", bias_attr=False)
    assert w is not None
    fluid.global_scope().var("w").value = fluid.SelectedRows([0], np.ones((1, 1), np.float32), 2)
    with pytest.raises(fluid.PaddleIRError, match="'w' is declared LOD_TENSOR but the scope "
                                                  "holds a SelectedRows"):
        fluid.io.save_params(exe, str(tmp_path), main)
