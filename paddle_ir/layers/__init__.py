"""Layers: Paddle Fluid's functions that append ops to the current program.

One module (or package) per Fluid 1.7 `fluid.layers` submodule, each layer in the module
Fluid keeps it in (tests/data/fluid17_layers.tsv): ops, nn/, io, tensor, control_flow/,
math_op_patch, metric_op, learning_rate_scheduler, sequence_lod, loss, rnn/, distributions,
detection and paddle-ir's own sparse. This package star-imports each and joins their `__all__`, as
Fluid's own layers/__init__.py does. helper.py (LayerHelper) and nets.py (fluid.nets)
are not star-imported.

The layer `rnn` and the package `rnn` share a name: the star import binds the layer over
the submodule, as in Fluid, so `layers.rnn` is the layer while the package stays in
sys.modules (`from paddle_ir.layers.rnn import cells` works; fluid/modules.py keeps
`import paddle_ir.fluid.layers.rnn` from rebinding the name).
"""

from paddle_ir.layers import (
    control_flow,
    detection,
    distributions,
    io,
    learning_rate_scheduler,
    loss,
    math_op_patch,
    metric_op,
    nn,
    ops,
    sequence_lod,
    sparse,
    tensor,
)
from paddle_ir.layers import rnn as _rnn_package
from paddle_ir.layers.control_flow import *  # noqa: F403
from paddle_ir.layers.detection import *  # noqa: F403
from paddle_ir.layers.distributions import *  # noqa: F403
from paddle_ir.layers.io import *  # noqa: F403
from paddle_ir.layers.learning_rate_scheduler import *  # noqa: F403
from paddle_ir.layers.loss import *  # noqa: F403
from paddle_ir.layers.math_op_patch import *  # noqa: F403
from paddle_ir.layers.metric_op import *  # noqa: F403
from paddle_ir.layers.nn import *  # noqa: F403
from paddle_ir.layers.ops import *  # noqa: F403
from paddle_ir.layers.rnn import *  # noqa: F403 - binds the layer `rnn` over the package
from paddle_ir.layers.sequence_lod import *  # noqa: F403
from paddle_ir.layers.sparse import *  # noqa: F403
from paddle_ir.layers.tensor import *  # noqa: F403

__all__ = []
__all__ += nn.__all__
__all__ += io.__all__
__all__ += tensor.__all__
__all__ += control_flow.__all__
__all__ += ops.__all__
__all__ += math_op_patch.__all__
__all__ += metric_op.__all__
__all__ += learning_rate_scheduler.__all__
__all__ += sequence_lod.__all__
__all__ += loss.__all__
__all__ += _rnn_package.__all__
__all__ += sparse.__all__
__all__ += distributions.__all__
__all__ += detection.__all__
