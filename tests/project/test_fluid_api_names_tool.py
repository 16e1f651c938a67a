"""tools/fluid_api_names.py lists what a Fluid module binds, from its source text alone."""

from __future__ import annotations

from tools.fluid_api_names import collect, module_rows

SOURCE = '''
import numpy as np
from .framework import Program

__all__ = ["Executor"]
g_scope = None
a, (b, c) = 1, (2, 3)
try:
    _fast = True
except ImportError:
    _slow = True


def _fetch_var(name):
    inner = 1


class Executor(object):
    kind = "cpu"

    def __init__(self):
        self._cache = {}

    @property
    def place(self):
        return None

    @staticmethod
    def _helper():
        pass

    class Nested:
        pass


class _Private(object):
    def hidden(self):
        pass
'''


def test_module_rows_lists_bindings_and_public_class_members():
    rows = {(name, kind) for _, name, kind in module_rows(SOURCE, "executor")}
    assert rows == {
        ("__all__", "variable"), ("g_scope", "variable"), ("a", "variable"),
        ("b", "variable"), ("c", "variable"), ("_fast", "variable"), ("_slow", "variable"),
        ("_fetch_var", "function"), ("Executor", "class"), ("Executor.kind", "attribute"),
        ("Executor.__init__", "method"), ("Executor.place", "property"),
        ("Executor._helper", "staticmethod"), ("Executor.Nested", "class"),
        ("_Private", "class"),
    }  # imports, locals, instance state and a private class's members are not listed


def test_collect_names_modules_by_path_and_skips_tests(tmp_path):
    fluid = tmp_path / "paddle" / "fluid"
    (fluid / "layers").mkdir(parents=True)
    (fluid / "tests").mkdir()
    (fluid / "__init__.py").write_text("x = 1\n")
    (fluid / "layers" / "__init__.py").write_text("def fc():\n    pass\n")
    (fluid / "layers" / "nn.py").write_text("def relu():\n    pass\n")
    (fluid / "tests" / "test_a.py").write_text("def test():\n    pass\n")
    (fluid / "framework_pb2.py").write_text("DESCRIPTOR = None\n")
    assert collect(tmp_path) == [("", "x", "variable"), ("layers", "fc", "function"),
                                 ("layers.nn", "relu", "function")]
