"""Where each piece of a parameter lives: Fluid's slicing and dispatch rules.

A dense parameter goes to the servers whole or, with `slice_var_up`, cut
along dim 0 into blocks of at least `min_block_size` elements whose sizes are
whole rows (Fluid's `slice_variable`); blocks are dealt to servers
round-robin or by a stable hash of the block's name. A sparse table (an
embedding whose gradient is a SelectedRows) is sharded by row instead: row
`id` lives on server `id % n` as local row `id // n`.
"""

from __future__ import annotations

import math
import zlib
from dataclasses import dataclass, field


@dataclass
class DistributeTranspilerConfig:
    """Fluid's knobs: `slice_var_up`, `min_block_size`, `split_method` ('RoundRobin' | 'HashName').

    `rpc_timeout` bounds how long a trainer waits for a server (seconds); a
    sync-mode step whose other trainers died fails after it, never hangs.
    """

    slice_var_up: bool = True
    min_block_size: int = 8192
    split_method: str = "RoundRobin"
    rpc_timeout: float = 60.0

    def __post_init__(self):
        if self.split_method not in ("RoundRobin", "HashName"):
            raise ValueError("split_method must be 'RoundRobin' or 'HashName', got "
                             f"{self.split_method!r}")
        if self.min_block_size < 1:
            raise ValueError(f"min_block_size must be positive, got {self.min_block_size}")


@dataclass(frozen=True)
class Piece:
    """One server-side piece of a single-machine variable.

    kind 'rows': rows [begin, end) of `origin`; 'mod': the rows r with r % n == k
    (begin = k, end = n); 'whole': all of it.
    """

    name: str
    origin: str
    kind: str
    begin: int = 0
    end: int = 0

    def encode(self) -> str:
        return f"{self.name}|{self.origin}|{self.kind}|{self.begin}|{self.end}"

    @staticmethod
    def decode(text: str) -> Piece:
        name, origin, kind, begin, end = text.split("|")
        return Piece(name, origin, kind, int(begin or 0), int(end or 0))

    def rows_of(self, height: int) -> int:
        if self.kind == "rows":
            return self.end - self.begin
        if self.kind == "mod":
            return (height - self.begin + self.end - 1) // self.end
        return height


@dataclass
class Placement:
    """A parameter's pieces and the server of each."""

    param: str
    sparse: bool
    pieces: list[Piece] = field(default_factory=list)
    servers: list[str] = field(default_factory=list)


def row_blocks(shape: tuple[int, ...], slice_count: int, min_block_size: int) -> list[int]:
    """Rows per block for a dense variable of `shape` (Fluid's slice_variable)."""
    numel = math.prod(shape)
    width = math.prod(shape[1:]) if len(shape) > 1 else 1
    split = max(1, min(slice_count, numel // min_block_size))
    block = math.ceil(numel / split)
    if block % width:
        block += width - block % width
    rows_per_block = block // width
    blocks, left = [], shape[0]
    while left > 0:
        blocks.append(min(rows_per_block, left))
        left -= blocks[-1]
    return blocks or [0]


class Dispatcher:
    """Deals pieces to servers: round-robin over all pieces, or by a stable name hash."""

    def __init__(self, endpoints: list[str], method: str):
        self.endpoints, self.method, self._next = endpoints, method, 0

    def pick(self, name: str) -> str:
        if self.method == "HashName":
            return self.endpoints[zlib.crc32(name.encode()) % len(self.endpoints)]
        endpoint = self.endpoints[self._next % len(self.endpoints)]
        self._next += 1
        return endpoint


def place_dense(param: str, shape: tuple[int, ...], config: DistributeTranspilerConfig,
                dispatcher: Dispatcher) -> Placement:
    count = len(dispatcher.endpoints) if config.slice_var_up else 1
    sizes = row_blocks(shape, count, config.min_block_size) if shape else [0]
    placement = Placement(param, sparse=False)
    if len(sizes) == 1:
        placement.pieces.append(Piece(param, param, "whole"))
    else:
        begin = 0
        for b, rows in enumerate(sizes):
            placement.pieces.append(Piece(f"{param}.block{b}", param, "rows", begin,
                                          begin + rows))
            begin += rows
    placement.servers = [dispatcher.pick(p.name) for p in placement.pieces]
    return placement


def place_sparse(param: str, endpoints: list[str]) -> Placement:
    n = len(endpoints)
    pieces = [Piece(f"{param}.shard{k}", param, "mod", k, n) for k in range(n)]
    return Placement(param, sparse=True, pieces=pieces, servers=list(endpoints))
