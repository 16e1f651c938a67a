"""Fluid's module paths under `paddle_ir.fluid`: `import paddle_ir.fluid.layers as layers`,
`from paddle_ir.fluid.param_attr import ParamAttr`, `from paddle_ir.fluid.executor import
global_scope`, ... as Fluid programs write them with `paddle.fluid`.

Each Fluid module path names the paddle-ir module that holds its API; importing
it gives that very module object (registered under both names, executed once),
so `paddle_ir.fluid.layers is paddle_ir.layers`. A Fluid module paddle-ir does not
have is a ModuleNotFoundError naming what does exist.
"""

from __future__ import annotations

import difflib
import importlib
import importlib.abc
import importlib.util
import sys

PREFIX = "paddle_ir.fluid."

# Fluid 1.x module -> the paddle-ir module holding its API (submodules follow: a Fluid
# path `layers.nn` is `paddle_ir.layers.nn`).
MODULES = {
    "average": "paddle_ir.compat.average",
    "backward": "paddle_ir.passes.backward",
    "clip": "paddle_ir.passes.clip",
    "compiler": "paddle_ir.compat.compiler",
    "contrib": "paddle_ir.compat.contrib",
    "core": "paddle_ir.core",
    "data_feeder": "paddle_ir.reader.data_feeder",
    "evaluator": "paddle_ir.compat.evaluator",
    "executor": "paddle_ir.executor",
    "framework": "paddle_ir.framework",
    "inferencer": "paddle_ir.compat.contrib.inferencer",  # Fluid 0.15's place of the 1.x contrib
    "initializer": "paddle_ir.framework.initializer",
    "io": "paddle_ir.io",
    "layer_helper": "paddle_ir.layers.helper",
    "layers": "paddle_ir.layers",
    "metrics": "paddle_ir.metrics",
    "nets": "paddle_ir.layers.nets",
    "optimizer": "paddle_ir.optimizer",
    "parallel_executor": "paddle_ir.compat.compiler",
    "param_attr": "paddle_ir.framework.param_attr",
    "reader": "paddle_ir.reader.data_loader",
    "trainer": "paddle_ir.compat.contrib.trainer",
    "regularizer": "paddle_ir.passes.regularizer",
    "transpiler": "paddle_ir.transpiler",
    "unique_name": "paddle_ir.framework.unique_name",
}


def real_name(fluid_path: str) -> str | None:
    """`layers.nn` -> `paddle_ir.layers.nn`; None for a Fluid module paddle-ir lacks.

    Fluid's layers submodules paddle-ir has no file for (`layers.sequence_lod`, ...)
    are the paddle_ir.layers namespace itself (layers/fluid_layout.py).
    """
    from paddle_ir.layers.fluid_layout import WHOLE_NAMESPACE

    if fluid_path.startswith("layers.") and fluid_path[len("layers."):] in WHOLE_NAMESPACE:
        return "paddle_ir.layers"
    head, _, rest = fluid_path.partition(".")
    target = MODULES.get(head)
    if target is None or not all(part.isidentifier() for part in rest.split(".") if rest):
        return None
    return f"{target}.{rest}" if rest else target  # always inside paddle_ir: MODULES says so


class FluidModuleAliases(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds `paddle_ir.fluid.X` as the paddle-ir module MODULES names for X."""

    def find_spec(self, fullname, path=None, target=None):
        if not fullname.startswith(PREFIX):
            return None
        fluid_path = fullname[len(PREFIX):]
        real = real_name(fluid_path)
        if real is None:
            from paddle_ir.compat.missing_names import out_of_scope_advice

            advice = out_of_scope_advice(fluid_path)
            if advice is not None:
                raise ModuleNotFoundError(f"paddle-ir has no Fluid module 'fluid.{fluid_path}': "
                                          f"{advice}", name=fullname)
            head = fluid_path.partition(".")[0]
            close = difflib.get_close_matches(head, MODULES, n=3, cutoff=0.6)
            raise ModuleNotFoundError(
                f"paddle-ir has no Fluid module 'fluid.{fluid_path}'"
                + (f"; did you mean {', '.join('fluid.' + c for c in close)}?" if close else
                   f"; it has fluid.{{{', '.join(sorted(MODULES))}}}"), name=fullname)
        if importlib.util.find_spec(real) is None:
            from paddle_ir.compat.missing_names import out_of_scope_advice

            advice = out_of_scope_advice(fluid_path)
            raise ModuleNotFoundError(f"paddle-ir has no Fluid module 'fluid.{fluid_path}' "
                                      f"(looked for {real})" + (f": {advice}" if advice else ""),
                                      name=fullname)
        return importlib.util.spec_from_loader(fullname, self)

    def create_module(self, spec):
        # the real module itself: its own __name__ and __spec__ stay, nothing runs twice
        return importlib.import_module(real_name(spec.name[len(PREFIX):]))

    def exec_module(self, module) -> None:
        """Nothing to run: the real module ran when create_module imported it."""


def install() -> None:
    if not any(isinstance(f, FluidModuleAliases) for f in sys.meta_path):
        sys.meta_path.insert(0, FluidModuleAliases())
