"""Fuzzing paddle-ir's readers of foreign files: `python -m tests.fuzz --seconds N` (`make fuzz`).

See tests/fuzz/targets.py for what is fuzzed and tests/fuzz/__main__.py for the runner.
"""

import paddle_ir  # noqa: F401 - registers the ops before `executor` is imported
