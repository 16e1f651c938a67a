"""Fluid 1.7's layers.control_flow, one topic file each: compare, arrays, conditional,
loops, static_rnn and dynamic_rnn.
"""

from paddle_ir.layers.control_flow import (
    arrays,
    compare,
    conditional,
    dynamic_rnn,
    loops,
    static_rnn,
)
from paddle_ir.layers.control_flow.arrays import *  # noqa: F403
from paddle_ir.layers.control_flow.compare import *  # noqa: F403
from paddle_ir.layers.control_flow.conditional import *  # noqa: F403
from paddle_ir.layers.control_flow.dynamic_rnn import *  # noqa: F403
from paddle_ir.layers.control_flow.loops import *  # noqa: F403
from paddle_ir.layers.control_flow.static_rnn import *  # noqa: F403

__all__ = [
    *arrays.__all__,
    *compare.__all__,
    *conditional.__all__,
    *dynamic_rnn.__all__,
    *loops.__all__,
    *static_rnn.__all__,
]
