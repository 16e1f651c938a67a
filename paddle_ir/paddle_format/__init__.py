"""PaddlePaddle's model files, read and written without Paddle: `.pdmodel` + `.pdiparams`
(Paddle 2.x, and 3.x with its old IR), fluid 1.x `__model__` directories, and Paddle 3's
PIR `model.json` + `.pdiparams` (read; pir/).

    program, feeds, fetches = load_inference_model("DIR/model.pdmodel", scope=scope)
    save_inference_model("OUT/model", program, scope)   # OUT/model.pdmodel + .pdiparams

convert.py translates programs both ways, policy.py says which of Paddle's
attributes paddle-ir may keep without interpreting, grad_slots.py bridges grad
ops whose slots differ, files.py finds and reads the files, saving.py writes them.
docs/paddle_format.md tells the whole story.
"""

from paddle_ir.paddle_format.convert import (
    PaddleFormatError,
    from_paddle,
    missing_op_types,
    parse_paddle_program,
    to_paddle,
)
from paddle_ir.paddle_format.files import (
    PaddleModel,
    is_paddle_model,
    load_inference_model,
    load_paddle_params,
    load_paddle_program,
    locate,
    read_program_desc,
    require_model,
)
from paddle_ir.paddle_format.saving import save_inference_model, write_paddle_model

__all__ = [
    "PaddleFormatError", "PaddleModel", "from_paddle", "is_paddle_model",
    "load_inference_model", "load_paddle_params", "load_paddle_program", "locate",
    "missing_op_types", "parse_paddle_program", "read_program_desc", "require_model",
    "save_inference_model", "to_paddle", "write_paddle_model",
]
