"""fluid.framework's reserved names, dtype helpers and the small members Fluid programs
use on Program, Block, Operator and Variable."""

from __future__ import annotations

import numpy as np
import pytest

import paddle_ir.fluid as fluid
from paddle_ir.fluid import framework


def test_reserved_names_are_fluids_strings():
    assert framework.GRAD_VAR_SUFFIX == "@GRAD"
    assert framework.TEMP_VAR_NAME == "@TEMP@" and framework.EMPTY_VAR_NAME == "@EMPTY@"
    assert framework.ZERO_VAR_SUFFIX == "@ZERO"
    assert framework.CONTROL_DEP_VAR_PREFIX == "__control_var"


def test_dtype_helpers():
    VarType = fluid.core.VarDesc.VarType
    assert framework.convert_np_dtype_to_dtype_(np.float32) == VarType.FP32
    assert framework.convert_np_dtype_to_dtype_("int64") == VarType.INT64
    assert framework.dtype_is_floating(VarType.FP64) and framework.dtype_is_floating("float16")
    assert not framework.dtype_is_floating("int32")


def test_cpu_num_reads_cpu_num(monkeypatch):
    monkeypatch.setenv("CPU_NUM", "3")
    assert framework._cpu_num() == 3 and len(framework.cpu_places(3)) == 3
    monkeypatch.setenv("CPU_NUM", "x")
    with pytest.raises(ValueError, match="CPU_NUM"):
        framework._cpu_num()


def test_default_program_module_variables_follow_program_guard():
    main, startup = fluid.Program(), fluid.Program()
    with fluid.program_guard(main, startup):
        assert framework._main_program_ is main and framework._startup_program_ is startup
    assert framework._main_program_ is fluid.default_main_program()


def test_members_fluid_programs_use():
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.data("x", [None, 2], "float32")
        fluid.layers.fc(x, 1, param_attr=fluid.ParamAttr(name="fc_w"))
    block = main.global_block()
    assert [p.name for p in block.iter_parameters()] == [p.name for p in block.all_parameters()]
    assert "fc_w" in block.to_string() and "mul" in block.to_string()
    op = block.ops[0]
    assert op.type in op.to_string()
    assert set(op.attr_names) == set(op.all_attrs())
    assert "x" in x.to_string()
    main.global_seed(7)
    assert main.random_seed == 7


def test_role_guards_mark_ops_and_test_clones_leave_them_out():
    """Fluid's Program._lr_schedule_guard / _optimized_guard (PaddleNLP's transformer builds
    its noam decay under the first): ops get the role, clone(for_test=True) drops them."""
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()):
        x = fluid.data("x", [None, 2], "float32")
        y = fluid.layers.scale(x, 2.0)
        with main._lr_schedule_guard():
            lr = fluid.layers.fill_constant([1], "float32", 0.1)
        with main._lr_schedule_guard(is_with_opt=True):
            fluid.layers.scale(lr, 0.5)
        with main._optimized_guard([]):
            fluid.layers.scale(lr, 0.25)
        z = fluid.layers.scale(y, 3.0)  # after the guards: forward again
    roles = [op.attr("op_role") if op.has_attr("op_role") else 0 for op in main.global_block().ops]
    assert roles == [0, 16, 18, 2, 0]
    kept = [op.type for op in main.clone(for_test=True).global_block().ops]
    assert kept == ["scale", "scale"]
    exe = fluid.Executor(fluid.CPUPlace())
    out, = exe.run(main, feed={"x": np.ones((1, 2), "float32")}, fetch_list=[z])
    assert np.allclose(out, 6.0)


def test_name_scope_is_in_fluid_framework_and_changes_nothing():
    """BERT's run_classifier builds under fluid.framework.name_scope."""
    assert framework.name_scope is fluid.name_scope
    main = fluid.Program()
    with fluid.program_guard(main, fluid.Program()), framework.name_scope("encoder"):
        x = fluid.data("x", [None, 2], "float32")
        y = fluid.layers.scale(x, 2.0)
    assert y.name.startswith("scale") and [op.type for op in main.global_block().ops] == ["scale"]
