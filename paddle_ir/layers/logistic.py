"""sigmoid_cross_entropy_with_logits: the logistic loss layer (binary targets per element)."""

from __future__ import annotations

from paddle_ir.framework import Variable
from paddle_ir.layers.helper import LayerHelper


def sigmoid_cross_entropy_with_logits(x: Variable, label: Variable, ignore_index: int = -100,
                                      name=None, normalize: bool = False) -> Variable:
    """Elementwise -label*log(sigmoid(x)) - (1-label)*log(1-sigmoid(x)), computed stably.

    Elements whose label equals `ignore_index` get 0; `normalize` divides by the
    number of the others. `label` has x's shape and dtype; it gets no gradient.
    """
    helper = LayerHelper("sigmoid_cross_entropy_with_logits", name)
    out = helper.create_variable_for_type_inference(x.dtype)
    helper.append_op("sigmoid_cross_entropy_with_logits", inputs={"X": x, "Label": label},
                     outputs={"Out": out},
                     attrs={"ignore_index": int(ignore_index), "normalize": bool(normalize)})
    return out
