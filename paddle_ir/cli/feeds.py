"""Feeds from .npy/.npz files, LoD from JSON, batches, and fetched values to .npz.

Files load with `allow_pickle=False`: nothing is ever unpickled. The CLI
speaks LoD as recursive sequence lengths everywhere (`--lod ids='[[3,1,4]]'`,
the `NAME.lod` entries of an .npz, the printed values), as JSON text.

An .npz groups entries by name:

    NAME                               a dense array
    NAME.lod                           its LoD: JSON lengths in a 0-d unicode array
    NAME.rows, NAME.value, NAME.height a SelectedRows (all three present)
    NAME.data, NAME.indices, NAME.indptr, NAME.shape
                                       a CSRTensor (all four present)

`--out` writes fetched values in the same layout, so its file can be fed back.
"""

from __future__ import annotations

import io as _stdio
import math
import os

import numpy as np

from paddle_ir.cli import npyfile
from paddle_ir.core import tensor_io
from paddle_ir.core.csr import CSRTensor
from paddle_ir.core.errors import FeedError, FetchError, PaddleIRError
from paddle_ir.core.lod_tensor import LoDTensor, create_lod_tensor
from paddle_ir.core.selected_rows import SelectedRows

_SR_PARTS = ("rows", "value", "height")
_CSR_PARTS = ("data", "indices", "indptr", "shape")


class UsageError(Exception):
    """A command-line argument that is malformed: exit status 2, with the usage."""


def split_assignment(text: str, option: str) -> tuple[str, str]:
    name, sep, value = text.partition("=")
    if not sep or not name or not value:
        raise UsageError(f"{option} expects NAME=VALUE, got {text!r}")
    return name, value


MAX_LOD_LENGTH = 2**62  # a sequence length beyond this cannot index any tensor
MAX_LOD_LEVELS = 32


def parse_lod(text: str, option: str = "--lod") -> list[list[int]]:
    """JSON recursive sequence lengths: a list of levels, each a list of ints >= 0.

    The nesting is checked before the JSON parser sees it (5000 open brackets
    would exhaust its recursion), and every length must be below 2**62.
    """
    example = "write lengths per level, e.g. '[[3,1,4]]'"
    codes = np.frombuffer(text.encode("utf-8", "replace"), np.uint8)
    depth = np.cumsum((codes == ord("[")).astype(np.int64) - (codes == ord("]")))
    if depth.size and depth.max() > 2:
        raise UsageError(f"{option}: {_clip(text)} nests lists {int(depth.max())} deep; a LoD "
                         f"is a list of levels, each a flat list of lengths ({example})")
    import json  # only for --lod: `paddle-ir run` without one starts without json

    try:
        lod = json.loads(text)
    except (ValueError, RecursionError) as exc:  # (too many digits is a ValueError)
        raise UsageError(f"{option}: {_clip(text)} is not JSON "
                         f"({getattr(exc, 'msg', exc)}); {example}") from None
    ok = isinstance(lod, list) and all(
        isinstance(level, list) and all(isinstance(n, int) and not isinstance(n, bool)
                                        and 0 <= n < MAX_LOD_LENGTH for n in level)
        for level in lod)
    if not ok:
        raise UsageError(f"{option}: {_clip(text)} must be a list of levels of sequence "
                         f"lengths (lists of ints from 0 to 2**62), e.g. '[[3,1,4]]'")
    if len(lod) > MAX_LOD_LEVELS:
        raise UsageError(f"{option}: {len(lod)} LoD levels; a LoD has at most "
                         f"{MAX_LOD_LEVELS}")
    return lod


def _clip(text: str) -> str:
    return repr(text) if len(text) <= 80 else repr(text[:60]) + f" ... ({len(text)} chars)"


def load_npy(path: str) -> np.ndarray:
    """A feed from an .npy file (see npyfile: checked, never unpickled)."""
    return npyfile.load_npy(path)


def load_npz(path: str) -> dict:
    """Name -> ndarray, LoDTensor, SelectedRows or CSRTensor, grouped as described above."""
    return group_entries(npyfile.load_npz_entries(path), path)


def _stems(entries: dict, parts) -> set[str]:
    stems = {k.rsplit(".", 1)[0] for k in entries if "." in k and k.rsplit(".", 1)[1] in parts}
    return {s for s in stems if all(f"{s}.{p}" in entries for p in parts)}


def _integers(array: np.ndarray, ndim: int, what: str) -> np.ndarray:
    """An integer entry of the given rank (the height, or a CSR shape), or a FeedError."""
    if array.ndim != ndim or (array.size and array.dtype.kind not in "iu"):
        form = "a 0-D integer" if ndim == 0 else f"a {ndim}-D integer array"
        raise FeedError(f"{what} must be {form}, got {array.dtype} of shape "
                        f"{list(array.shape)}")
    return array


def group_entries(entries: dict, path: str) -> dict:
    values, used = {}, set()
    try:
        for stem in sorted(_stems(entries, _SR_PARTS)):
            rows, value, height = (entries[f"{stem}.{p}"] for p in _SR_PARTS)
            height = _integers(height, 0, f"{path}: {stem}.height")
            values[stem] = SelectedRows(rows, value, int(height))
            used |= {f"{stem}.{p}" for p in _SR_PARTS}
        for stem in sorted(_stems(entries, _CSR_PARTS)):
            data, indices, indptr, shape = (entries[f"{stem}.{p}"] for p in _CSR_PARTS)
            shape = _integers(shape, 1, f"{path}: {stem}.shape")
            values[stem] = CSRTensor(data, indices, indptr, tuple(int(d) for d in shape))
            used |= {f"{stem}.{p}" for p in _CSR_PARTS}
    except FeedError:
        raise  # already says which file and entry (FeedError is a ValueError too)
    except ValueError as exc:  # the value classes' own errors are ValueErrors
        message = exc.message if isinstance(exc, PaddleIRError) else str(exc)
        raise FeedError(f"{path}: {message}") from None
    for key, array in entries.items():
        if key not in used and not key.endswith(".lod"):
            values[key] = array
    for key, text in entries.items():
        if key in used or not key.endswith(".lod"):
            continue
        name = key[:-4]
        if not isinstance(values.get(name), np.ndarray):
            raise FeedError(f"{path}: {key} has no dense array {name!r} beside it")
        if text.dtype.kind != "U" or text.ndim != 0:
            raise FeedError(f"{path}: {key} must be a JSON string of sequence lengths, "
                            f"e.g. '[[3,1,4]]'")
        try:
            lengths = parse_lod(str(text[()]), f"{path}: {key}")
        except UsageError as exc:
            raise FeedError(str(exc)) from None
        values[name] = create_lod_tensor(values[name], lengths)
    return values


def parse_feed_options(feed_args, lod_args) -> tuple[dict[str, str], dict[str, list]]:
    """Check the syntax of --feed NAME=FILE and --lod NAME=JSON before any file is read."""
    files = dict(split_assignment(arg, "--feed") for arg in feed_args)
    lods = {}
    for arg in lod_args:
        name, text = split_assignment(arg, "--lod")
        lods[name] = parse_lod(text)
    return files, lods


def collect_feeds(files: dict[str, str], feeds_path: str | None, lods: dict) -> dict:
    """The feeds named on the command line, LoD applied; --feed and --lod win over --feeds."""
    feeds = load_npz(feeds_path) if feeds_path else {}
    for name, path in files.items():
        feeds[name] = load_npy(path)
    for name, lengths in lods.items():
        if name not in feeds:
            raise UsageError(f"--lod {name}=...: there is no feed {name!r}; give its data "
                             f"with --feed {name}=FILE.npy or in --feeds")
        value = feeds[name]
        if not isinstance(value, (np.ndarray, LoDTensor)):
            raise UsageError(f"--lod {name}: a {type(value).__name__} carries no LoD")
        feeds[name] = create_lod_tensor(np.asarray(value), lengths)
    return feeds


# --- batches --------------------------------------------------------------------------


def _count(value) -> int | None:
    """How many batchable items a feed has: rows, or top-level sequences; None: not split."""
    if isinstance(value, LoDTensor) and value.lod_level:
        return len(value.offsets[0]) - 1
    if isinstance(value, (np.ndarray, LoDTensor)) and np.ndim(value) > 0:
        return len(value)
    return None


def _take(value, lo: int, hi: int):
    if isinstance(value, LoDTensor) and value.lod_level:
        levels = []
        for level in value.offsets:
            levels.append(level[lo:hi + 1] - level[lo])
            lo, hi = int(level[lo]), int(level[hi])
        return LoDTensor.unchecked(value.numpy()[lo:hi], tuple(levels))
    return np.asarray(value)[lo:hi]


def make_batches(feeds: dict, batch_size: int | None) -> list[dict]:
    """The feeds cut along their first axis (LoD: top-level sequences) into batches.

    Values that cannot be cut (SelectedRows, CSR, 0-D) go whole into every batch.
    """
    if not batch_size:
        return [feeds]
    counts = {n: _count(v) for n, v in feeds.items() if _count(v) is not None}
    # Equal counts, not just equal numbers of batches: 91 rows of x and 100 labels would
    # both make 10 batches, and the last would pair 1 row with 10 labels.
    if len(set(counts.values())) > 1:
        raise FeedError(f"with --batch-size {batch_size} every cut feed must have the same "
                        f"number of rows (sequences for LoD feeds), got {counts}")
    total = math.ceil(next(iter(counts.values()), 0) / batch_size) or 1
    batches = []
    for k in range(total):
        batch = {}
        for name, value in feeds.items():
            if name in counts:
                batch[name] = _take(value, k * batch_size,
                                    min((k + 1) * batch_size, counts[name]))
            else:
                batch[name] = value
        batches.append(batch)
    return batches


# --- writing fetched values -----------------------------------------------------------


def npz_entries(name: str, value) -> dict[str, np.ndarray]:
    """The .npz entries of one fetched value (see the module docstring)."""
    if isinstance(value, SelectedRows):
        return {f"{name}.rows": value.rows, f"{name}.value": value.value,
                f"{name}.height": np.asarray(value.height, np.int64)}
    if isinstance(value, CSRTensor):
        return {f"{name}.data": value.data, f"{name}.indices": value.indices,
                f"{name}.indptr": value.indptr,
                f"{name}.shape": np.asarray(value.shape, np.int64)}
    entries = {name: np.asarray(value)}
    if isinstance(value, LoDTensor) and value.lod_level:
        import json

        entries[f"{name}.lod"] = np.asarray(json.dumps(value.recursive_sequence_lengths()))
    return entries


# A zip member name is at most 65535 bytes; room for the longest suffix --out appends.
MAX_MEMBER_NAME_BYTES = 65535 - 32


def _check_fetch_name(name: str) -> None:
    """A name --out can write so that --feeds reads it back as the same value."""
    bad = None
    if "\0" in name or "/" in name or "\\" in name:
        bad = "it contains a NUL character or a path separator"
    elif name.rsplit(".", 1)[-1] in ("lod",) + _SR_PARTS + _CSR_PARTS and "." in name:
        bad = (f"it ends in .{name.rsplit('.', 1)[-1]}, which --feeds reads as a part of "
               f"another value")
    elif not name:
        bad = "it is empty"
    elif len(name.encode("utf-8", "surrogateescape")) > MAX_MEMBER_NAME_BYTES:
        bad = (f"it is {len(name.encode('utf-8', 'surrogateescape'))} bytes long, and a zip "
               f"member's name (NAME.npy, NAME.lod.npy, ...) holds at most 65535 bytes")
    if bad:
        raise FetchError(f"cannot write fetched value {name[:80]!r} to an .npz: {bad}",
                         hint="fetch it under another name, e.g. with an assign op")


def npz_bytes(values: dict) -> bytes:
    """The .npz of fetched values, in the layout --feeds reads; only what it reads back."""
    entries = {}
    for name, value in values.items():
        _check_fetch_name(name)
        if not isinstance(value, (np.ndarray, LoDTensor, SelectedRows, CSRTensor)):
            raise FetchError(f"cannot write fetched value {name!r} to an .npz: it is a "
                             f"{type(value).__name__}, which --feeds cannot read back (only "
                             f"tensors, SelectedRows and CSR values are written)")
        array = value if isinstance(value, (SelectedRows, CSRTensor)) else np.asarray(value)
        if not isinstance(array, (SelectedRows, CSRTensor)) and array.dtype.hasobject:
            raise FetchError(f"cannot write fetched value {name!r}: it holds Python objects")
        entries.update(npz_entries(name, value))
    buffer = _stdio.BytesIO()
    np.savez(buffer, **entries)
    return buffer.getvalue()


def save_npz(path: str, values: dict) -> None:
    """Write fetched values as an .npz (atomically; regular files only)."""
    data = npz_bytes(values)
    tensor_io.atomic_write(os.fspath(path), lambda out: out.write(data))
