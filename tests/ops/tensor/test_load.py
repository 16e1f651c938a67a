"""load (ops/tensor/load.py): its errors."""

import pytest

from paddle_ir.core.errors import PaddleIRError
from tests.op_test import check_op

ERROR_CASES = [
    ("load", {}, {"file_path": ""}, "attr file_path must name a file"),
]


@pytest.mark.parametrize("op, inputs, attrs, match", ERROR_CASES,
                         ids=[c[0] + str(i) for i, c in enumerate(ERROR_CASES)])
def test_error_is_reported(op, inputs, attrs, match):
    with pytest.raises(PaddleIRError, match=match):
        check_op(op, inputs, attrs)



def test_load_reads_one_lod_tensor_record(tmp_path):
    """A file written by save (one LoDTensor record) comes back with its values and LoD,
    on the first run and on the plan it cached. Its output is declared by the program, as
    Fluid's programs declare it (the shape is in the file, not in the op)."""
    import numpy as np

    import paddle_ir as pir
    from paddle_ir.core.lod_tensor import LoDTensor
    from paddle_ir.core.tensor_io import serialize_lod_tensor
    value = LoDTensor(np.arange(12, dtype=np.float32).reshape(4, 3), [[0, 1, 4]])
    path = tmp_path / "w"
    path.write_bytes(serialize_lod_tensor(value))
    for fp16, dtype in ((False, "float32"), (True, "float16")):
        program = pir.Program()
        block = program.global_block()
        out = block.create_var(name="w", shape=[4, 3], dtype=dtype, lod_level=1)
        block.append_op("load", outputs={"Out": [out]},
                        attrs={"file_path": str(path), "load_as_fp16": fp16})
        exe = pir.Executor()
        for _ in range(2):
            got, = exe.run(program, fetch_list=[out], scope=pir.Scope(), return_numpy=False)
            assert got.lod() == [[0, 1, 4]] and got.numpy().dtype == np.dtype(dtype)
            np.testing.assert_array_equal(got.numpy(), value.numpy().astype(dtype))
