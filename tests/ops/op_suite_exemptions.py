"""The op types the op suite's harness cannot reach (tests/op_suite.py), each with why and
where it is tested instead. A stale entry (an op the suite reaches after all, or one no
longer registered) fails the whole-suite run.

CACHED: ops that never run on a reused plan in the suite.
GRAD: ops whose gradient check_grad cannot check against central differences.
"""

CACHED: dict[str, str] = {
}

GRAD: dict[str, str] = {
}
