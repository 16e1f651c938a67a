"""Reductions over axes: reduce_* (sum mean max min prod all any), logsumexp, norms."""
