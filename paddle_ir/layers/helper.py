"""LayerHelper: the plumbing every layer function shares (Paddle's LayerHelper).

It names things (`fc_0`, `fc_0.w_0`, `fc_0.tmp_0`), creates parameters in the
main program with their initializer ops in the startup program, creates
temporaries, and appends ops to the current block.
"""

from __future__ import annotations

from paddle_ir.framework import (
    Parameter,
    Variable,
    default_main_program,
    default_startup_program,
    unique_name,
)
from paddle_ir.framework.initializer import Constant, Xavier
from paddle_ir.framework.param_attr import ParamAttr


class LayerHelper:
    def __init__(self, layer_type: str, name: str | None = None):
        self.layer_type = layer_type
        self.name = name or unique_name.generate(layer_type)

    @property
    def main_program(self):
        return default_main_program()

    @property
    def startup_program(self):
        return default_startup_program()

    @property
    def block(self):
        return self.main_program.current_block()

    def create_variable_for_type_inference(self, dtype="float32", stop_gradient=False,
                                           lod_level: int = 0) -> Variable:
        """A temporary whose type, shape and LoD the producing op's inference fills in."""
        return self.block.create_var(name=unique_name.generate(self.name + ".tmp"), dtype=dtype,
                                     stop_gradient=stop_gradient, lod_level=lod_level)

    def create_parameter(self, attr: ParamAttr, shape, dtype="float32", is_bias: bool = False,
                         default_initializer=None) -> Parameter:
        name = attr.name or unique_name.generate(self.name + (".b" if is_bias else ".w"))
        initializer = attr.initializer or default_initializer or (
            Constant(0.0) if is_bias else Xavier())
        main_block = self.main_program.global_block()
        if main_block.has_var(name):
            return main_block.var(name)  # a shared parameter (same ParamAttr name)
        param = main_block.create_parameter(
            name, shape, dtype, trainable=attr.trainable, regularizer=attr.regularizer,
            learning_rate=attr.learning_rate)
        if attr.gradient_clip is not None:  # read by clip.append_gradient_clip_ops
            param.gradient_clip_attr = attr.gradient_clip
        param.do_model_average = attr.do_model_average  # read by fluid.optimizer.ModelAverage
        startup_block = self.startup_program.global_block()
        startup_var = startup_block.create_var(name=name, shape=shape, dtype=dtype,
                                               persistable=True)
        initializer(startup_var, startup_block)
        return param

    def append_op(self, type, inputs=None, outputs=None, attrs=None):  # noqa: A002
        return self.block.append_op(type, inputs=inputs, outputs=outputs, attrs=attrs)

    def append_activation(self, x: Variable, act: str | None) -> Variable:
        if act is None:
            return x
        out = self.create_variable_for_type_inference(x.dtype)
        self.append_op(act, inputs={"X": x}, outputs={"Out": out})
        return out
