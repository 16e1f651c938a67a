"""The Fluid 1.x names paddle-ir refuses on purpose, by rule, each with its reason.

A rule is (Fluid module pattern, name pattern, reason), matched with fnmatch on the
module path under `fluid.` and on the name (`Class.member` for a class's members). The
first matching rule wins. The generated name table (tests/data/fluid_api_names.tsv) is
checked against these rules by tests/project/test_fluid_api_names.py: every name there
either resolves in paddle_ir.fluid or matches a rule; a refused module-level name is an
error naming the reason when a program reaches for it (`refusal_error`).
"""

from __future__ import annotations

from fnmatch import fnmatchcase

DYGRAPH = ("Fluid's imperative mode (dygraph, dygraph-to-static) is not in paddle-ir: it "
           "runs static Programs built with fluid.layers under fluid.program_guard")
DISTRIBUTED = ("an internal of Fluid's multi-machine training (fleet, pslib, parameter-server "
               "and collective transpilers, device workers, trainer descs): paddle-ir trains "
               "in one process; paddle_ir.distributed and fluid.transpiler cover its "
               "parameter-server mode")
GPU = "GPU- or accelerator-only (CUDA, cuDNN, NCCL, TensorRT, XPU): paddle-ir runs on the CPU"
MKLDNN = "an Intel MKL-DNN (oneDNN) kernel-selection or INT8 pass: paddle-ir has numpy kernels"
CONTRIB = ("fluid.contrib's mixed precision, slim (pruning, NAS, distillation), quantization, "
           "decoder and utilities are not in paddle-ir (its contrib holds the Trainer API and "
           "contrib.layers' basic_lstm/basic_gru)")
READER_THREADS = ("an internal of Fluid's threaded or multi-process readers (worker processes, "
                  "shared-memory queues, blocking-queue plumbing): paddle-ir's loaders feed "
                  "in the calling thread")
TOOLING = ("a developer tool of Paddle's own (graph drawing, debugger printouts, install "
           "check, logging setup): paddle-ir has `paddle-ir dump` / `check` instead")
CPP_BINDING = ("an internal of Paddle's C++ binding (op protos, C++ data-feed descriptors, "
               "the native scope functions): paddle-ir has no C++ core")
DETECTION = "object detection (anchors, boxes, NMS, ROI ops) is outside paddle-ir's scope"
TEST_MODULE = "a test fixture shipped inside Paddle's package, not an API"
CUSTOM_OPS = ("loads operators compiled from C++/CUDA for Paddle (a .so library): paddle-ir "
              "runs numpy kernels registered in Python and cannot load them")
EXECUTOR_CACHES = ("an internal of Paddle's Executor (its program, scope and context caches, "
                   "feed/fetch op insertion, trainer set-up): paddle-ir's Executor plans and "
                   "caches runs its own way; call Executor.run")

RULES: tuple[tuple[str, str, str], ...] = (
    ("dygraph", "*", DYGRAPH),
    ("dygraph.*", "*", DYGRAPH),
    ("dygraph_utils", "*", DYGRAPH),
    ("*", "*dygraph*", DYGRAPH),
    ("*", "*_imperative*", DYGRAPH),
    ("*", "*VarBase*", DYGRAPH),
    ("*", "*varbase*", DYGRAPH),
    ("*", "*ParamBase*", DYGRAPH),
    ("*", "*cuda*", GPU),
    ("*", "*CUDA*", GPU),
    ("*", "*cudnn*", GPU),
    ("*", "*nccl*", GPU),
    ("*", "*NCCL*", GPU),
    ("*", "*gpu*", GPU),
    ("*", "*GPU*", GPU),
    ("*", "*xpu*", GPU),
    ("*", "*tensorrt*", GPU),
    ("*", "*mkldnn*", MKLDNN),
    ("*", "*MKLDNN*", MKLDNN),
    ("*", "*Mkldnn*", MKLDNN),
    ("incubate.fleet", "*", DISTRIBUTED),
    ("incubate.fleet.*", "*", DISTRIBUTED),
    ("incubate.checkpoint*", "*", DISTRIBUTED),
    ("distributed", "*", DISTRIBUTED),
    ("distributed.*", "*", DISTRIBUTED),
    ("transpiler.*", "*", DISTRIBUTED),
    ("transpiler", "*", DISTRIBUTED),
    ("communicator", "*", DISTRIBUTED),
    ("device_worker", "*", DISTRIBUTED),
    ("trainer_desc", "*", DISTRIBUTED),
    ("trainer_factory", "*", DISTRIBUTED),
    ("distribute_lookup_table", "*", DISTRIBUTED),
    ("layers.collective", "*", DISTRIBUTED),
    ("*", "*fleet*", DISTRIBUTED),
    ("*", "*pslib*", DISTRIBUTED),
    ("*", "*_dist_*", DISTRIBUTED),
    ("*", "_is_distributed", DISTRIBUTED),
    ("*", "*._is_distributed", DISTRIBUTED),
    ("*", "*collective*", DISTRIBUTED),
    ("*", "*Collective*", DISTRIBUTED),
    ("*", "*pipeline*", DISTRIBUTED),
    ("*", "*Pipeline*", DISTRIBUTED),
    ("*", "*heter*", DISTRIBUTED),
    ("incubate.data_generator.test_data_generator", "*", TEST_MODULE),
    ("contrib*", "*", CONTRIB),
    ("dataloader", "*", READER_THREADS),
    ("dataloader.*", "*", READER_THREADS),
    ("multiprocess_utils", "*", READER_THREADS),
    ("reader", "_*", READER_THREADS),
    ("reader", "*._*", READER_THREADS),
    ("debugger", "*", TOOLING),
    ("graphviz", "*", TOOLING),
    ("net_drawer", "*", TOOLING),
    ("install_check", "*", TOOLING),
    ("log_helper", "*", TOOLING),
    ("op", "*", CPP_BINDING),
    ("core", "*", CPP_BINDING),
    ("data_feed_desc", "*", CPP_BINDING),
    ("default_scope_funcs", "*", CPP_BINDING),
    ("layers.detection", "*", DETECTION),
    ("executor", "Executor._*", EXECUTOR_CACHES),
    ("framework", "Ir*", CPP_BINDING),
    ("framework", "OpProtoHolder*", CPP_BINDING),
    ("framework", "*_sync_with_cpp", CPP_BINDING),
    ("framework", "get_all_op_protos", CPP_BINDING),
    ("framework", "load_op_library", CPP_BINDING),
    ("", "load_op_library", CUSTOM_OPS),
    ("framework", "[gs]et_flags", CPP_BINDING),
    ("framework", "ComplexVariable*", DYGRAPH),
)


def refusal(module: str, name: str) -> str | None:
    """The reason paddle-ir refuses Fluid's `fluid.<module>.<name>`, or None."""
    for module_pattern, name_pattern, reason in RULES:
        if fnmatchcase(module, module_pattern) and fnmatchcase(name, name_pattern):
            return reason
    return None


def _named_refusal(module: str, name: str) -> str | None:
    """`refusal` by the rules that name names (not a whole module's `*`)."""
    for module_pattern, name_pattern, reason in RULES:
        if name_pattern != "*" and fnmatchcase(module, module_pattern) \
                and fnmatchcase(name, name_pattern):
            return reason
    return None


def module_refusal(fluid_path: str) -> str | None:
    """The reason a whole Fluid module `fluid.<fluid_path>` is refused, or None."""
    for module_pattern, name_pattern, reason in RULES:
        if name_pattern == "*" and fnmatchcase(fluid_path, module_pattern):
            return reason
    return None


def install_refusals(module, fluid_path: str) -> None:
    """Make a name `module` lacks that a rule naming names refuses (fluid.framework.IrGraph,
    fluid.load_op_library) an error giving the reason; other lookups go to the module's
    own `__getattr__` or get the closest names that exist."""
    paths = module.__dict__.setdefault("__fluid_paths__", [])
    if fluid_path in paths:
        return
    paths.append(fluid_path)
    if len(paths) > 1:  # the hook is in place and reads the list
        return
    previous = module.__dict__.get("__getattr__")

    def __getattr__(name: str):
        from paddle_ir.compat.missing_names import MissingNameError, missing_attribute

        if name.startswith("__"):
            if previous is not None:
                return previous(name)
            raise AttributeError(f"module {module.__name__!r} has no attribute {name!r}")
        failure = None
        if previous is not None:
            try:
                return previous(name)
            except AttributeError as err:
                failure = err
        for path in paths:
            # Only rules naming names: a module paddle-ir has answers a typo with its own
            # names, and one module standing for several Fluid paths (paddle_ir.layers is
            # also fluid.layers.detection) cannot tell which path the program wrote. A
            # whole refused module is refused when imported (module_refusal).
            reason = _named_refusal(path, name)
            if reason is not None:
                shown = f"fluid.{path}.{name}" if path else f"fluid.{name}"
                raise MissingNameError(f"{shown} is not in paddle-ir: {reason}")
        if failure is not None:
            raise failure
        raise missing_attribute(module.__name__, name, vars(module).get("__all__", ()))

    module.__getattr__ = __getattr__
