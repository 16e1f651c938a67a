"""mode (+ _grad): the most frequent value of X along `axis`, and where it is.

    Out     = the value occurring most often in each row along axis; among values
              equally frequent, the smallest
    Indices = the position of one of its occurrences: the last of its run after
              Paddle's std::sort of the row (ops/tensor/stl_select.py), so the same
              one Paddle's CPU kernel reports
    dX      = dOut put back at Indices, zeros elsewhere

Out and Indices drop `axis` (kept as 1 with keepdim).
"""

from __future__ import annotations

from paddle_ir.ops.tensor.kthvalue import nan_last_less, register_row_pick
from paddle_ir.ops.tensor.stl_select import sort


def _mode(pairs, attrs):
    sort(pairs, nan_last_less)
    best, best_count, run = pairs[0], 0, 0
    for i, (value, _) in enumerate(pairs):
        run += 1
        if i == len(pairs) - 1 or pairs[i + 1][0] != value:
            if run > best_count:
                best, best_count = pairs[i], run
            run = 0
    return best


mode = register_row_pick("mode", [], _mode, lambda ctx, n: None, __doc__)
