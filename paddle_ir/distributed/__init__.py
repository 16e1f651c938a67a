"""Parameter-server training: servers hold row shards and blocks, trainers push SelectedRows.

`train(...)` runs a program transpiled by paddle_ir.transpiler on Ray actors
(or in this process with `local=True`); `merge_checkpoint` joins the servers'
saved pieces into one single-machine checkpoint. Ray is imported only when a
Ray run starts (the optional extra `paddle-ir[distributed]`).
"""

from paddle_ir.distributed.checkpoint import merge_checkpoint, merge_values, split_values
from paddle_ir.distributed.launch import TrainResult, train
from paddle_ir.distributed.server import DistributedError, ParameterServer
from paddle_ir.distributed.server_placement import ServerPlacement

__all__ = ["DistributedError", "ParameterServer", "ServerPlacement", "TrainResult",
           "merge_checkpoint", "merge_values", "split_values", "train"]
