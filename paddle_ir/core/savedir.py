"""Saved directories replaced whole: generation subdirectories and one CURRENT pointer.

One directory may hold an inference model, a checkpoint and a training job,
saved at different times, and a reader must never see the program of one save
with the parameters of another. As LevelDB does with its CURRENT file:

    DIR/CURRENT         "gen-000007": the committed generation (replaced atomically)
    DIR/LOCK            held (flock) by a saver for its whole save
    DIR/gen-000007/     the committed files: model.pb, params, persistables, ...
    DIR/model.pb, ...   hard links to them, for other tools and older paddle-ir
                        (refreshed after each commit: consistent at rest only)

`commit` (a save): lock; delete what killed saves left (generations CURRENT
does not name, temporaries); write the save's files into a new generation (one
write and one fsync each); hard-link into it the committed files the save does
not own (a checkpoint keeps the inference model beside it); fsync the
generation; write CURRENT's temporary, fsync it and rename it over CURRENT,
the commit point; refresh the top-level links; fsync DIR; delete the old
generation; unlock. A save killed or interrupted anywhere leaves CURRENT
naming a whole generation, and two savers run one after the other.

`read` (a load): read CURRENT, then the files of that generation. Committed
files are never modified, so a file once opened holds its save's bytes even if
a concurrent save deletes the generation; if it was deleted before everything
was opened, the read fails, CURRENT has moved on, and the read starts over.
A directory without CURRENT (older paddle-ir, Paddle's layouts) is read at the
top level, and read again if a save created CURRENT meanwhile.
"""

from __future__ import annotations

import contextlib
import os
import re
import stat
import time
from collections.abc import Callable, Iterable, Mapping
from typing import BinaryIO, TypeVar

from paddle_ir.core.atomic import (
    TMP_PREFIX,
    drop_cached_pages,
    sync_directory,
    temporary_name,
    write_new_file,
)
from paddle_ir.core.errors import PaddleIRError, SavedDirectoryError

try:
    import fcntl
except ImportError:  # pragma: no cover - no flock (Windows): savers are not serialized
    fcntl = None

CURRENT = "CURRENT"
LOCK = "LOCK"


def _rmtree(path: str, ignore_errors: bool = False) -> None:
    import shutil  # only for cleaning up: shutil (and bz2, lzma) cost every start-up

    shutil.rmtree(path, ignore_errors=ignore_errors)


_GENERATION = re.compile(r"gen-(\d{6,12})")
_TMP = re.compile(re.escape(TMP_PREFIX) + r"(.+)-[0-9a-f]{16}")
_READ_ATTEMPTS = 50
_CURRENT_MAX_BYTES = 64
MAX_FILE_NAME = 255

T = TypeVar("T")


def check_file_name(name: str) -> None:
    """A name a save may give a file in its directory: a plain name that is not ours."""
    bad = None
    if not isinstance(name, str) or not name:
        bad = "it is empty"
    elif "\0" in name:
        bad = "it contains a NUL character"
    elif os.sep in name or (os.altsep and os.altsep in name) or name in (".", ".."):
        bad = "it is not a plain file name (it contains a path separator or is . or ..)"
    elif len(name.encode("utf-8", "surrogateescape")) > MAX_FILE_NAME:
        bad = f"it is longer than {MAX_FILE_NAME} bytes"
    elif name in (CURRENT, LOCK) or _GENERATION.fullmatch(name) or name.startswith(TMP_PREFIX):
        bad = f"{CURRENT}, {LOCK}, gen-N and {TMP_PREFIX}* are the directory's own names"
    if bad:
        raise SavedDirectoryError(f"cannot save a file named {name!r}: {bad}")


# --- reading --------------------------------------------------------------------------


def _pointer(dirname: str) -> str | None:
    """The generation name CURRENT holds (checked for form only), None without CURRENT."""
    path = os.path.join(dirname, CURRENT)
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise SavedDirectoryError(f"{path} cannot be read ({exc.strerror}); it must be a "
                                  f"regular file naming the committed generation") from None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise SavedDirectoryError(f"{path} is not a regular file")
        data = f.read(_CURRENT_MAX_BYTES + 1)
    name = data.decode("ascii", "replace").strip()
    if len(data) > _CURRENT_MAX_BYTES or not _GENERATION.fullmatch(name):
        raise SavedDirectoryError(
            f"{path} must name a generation (gen-NNNNNN), but holds {data[:40]!r}; the "
            f"directory is damaged")
    return name


def current_generation(dirname: str | os.PathLike) -> str | None:
    """The generation CURRENT names, or None for a directory without CURRENT."""
    dirname = os.fspath(dirname)
    name = _pointer(dirname)
    for _ in range(_READ_ATTEMPTS):
        if name is None:
            return None
        try:
            st = os.lstat(os.path.join(dirname, name))
        except FileNotFoundError:
            again = _pointer(dirname)
            if again == name:
                raise SavedDirectoryError(f"{os.path.join(dirname, CURRENT)} names {name}, "
                                          f"which does not exist; the directory is "
                                          f"damaged") from None
            name = again  # a save committed and removed it meanwhile
            continue
        if not stat.S_ISDIR(st.st_mode):
            raise SavedDirectoryError(f"{os.path.join(dirname, name)} is not a directory (a "
                                      f"generation is never a link); the directory is damaged")
        return name
    raise SavedDirectoryError(f"{dirname} was replaced {_READ_ATTEMPTS} times while it was "
                              f"being read; try again when its saver is done")


def committed_dir(dirname: str | os.PathLike) -> str:
    """Where the committed files of `dirname` are now: its generation, else itself."""
    dirname = os.fspath(dirname)
    generation = current_generation(dirname)
    return dirname if generation is None else os.path.join(dirname, generation)


def read(dirname: str | os.PathLike, read_files: Callable[[str], T]) -> T:
    """`read_files(directory)` on the committed files of one save, never a mix of two.

    `read_files` must open every file it needs before it returns or raises and
    must not change anything outside its result until it has read them all.
    """
    dirname = os.fspath(dirname)
    if not os.path.isdir(dirname):
        return read_files(dirname)  # not a directory: let the reader say what is wrong
    for attempt in range(_READ_ATTEMPTS):
        generation = current_generation(dirname)
        where = dirname if generation is None else os.path.join(dirname, generation)
        try:
            result = read_files(where)
        except (PaddleIRError, OSError):
            if _moved_on(dirname, generation):
                time.sleep(0.001 * attempt)
                continue
            raise
        if generation is not None or not _moved_on(dirname, None):
            return result  # a generation's files are immutable: what was read is whole
        time.sleep(0.001 * attempt)
    raise SavedDirectoryError(f"{dirname} was replaced {_READ_ATTEMPTS} times while it was "
                              f"being read; try again when its saver is done")


def _moved_on(dirname: str, generation: str | None) -> bool:
    try:
        return current_generation(dirname) != generation
    except SavedDirectoryError:
        return False


# --- saving ---------------------------------------------------------------------------


@contextlib.contextmanager
def _locked(dirname: str):
    fd = os.open(os.path.join(dirname, LOCK), os.O_RDWR | os.O_CREAT, 0o666)
    try:
        if fcntl is not None:
            fcntl.flock(fd, fcntl.LOCK_EX)  # released by the kernel if the process dies
        yield
    finally:
        os.close(fd)  # closing drops the lock


def _clean(dirname: str, keep: str | None, names: set[str]) -> None:
    """Delete generations other than `keep` and the temporaries of saves (under the lock).

    A temporary is a save's when it is named after a file of this save, of the
    committed generation (a killed refresh of its links) or CURRENT.
    """
    if keep is not None:
        with contextlib.suppress(OSError):
            names = names | set(os.listdir(os.path.join(dirname, keep)))
    for entry in os.listdir(dirname):
        path = os.path.join(dirname, entry)
        temporary = _TMP.fullmatch(entry)
        if _GENERATION.fullmatch(entry) and entry != keep:
            if os.path.isdir(path) and not os.path.islink(path):
                _rmtree(path, ignore_errors=True)
            else:
                os.unlink(path)
        elif temporary and (temporary.group(1) in names or temporary.group(1) == CURRENT):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)


def _regular_files(directory: str) -> dict[str, os.stat_result]:
    found = {}
    for entry in os.listdir(directory):
        st = os.lstat(os.path.join(directory, entry))
        if stat.S_ISREG(st.st_mode):
            found[entry] = st
    return found


def _drop_cached(directory: str, names) -> None:
    """Let the kernel drop the cached pages of files about to be replaced.

    They are clean (fsync'ed when saved) and will be unlinked after the
    commit; dropping them first lets the new file's pages come from free
    memory instead of reclaim, which made large saves erratic (B5: median 1354 ms
    against 595 ms with the drop, numpy's tofile + fsync 608 ms).
    """
    for name in names:
        drop_cached_pages(os.path.join(directory, name))


def _mode(st: os.stat_result | None) -> int | None:
    return None if st is None else stat.S_IMODE(st.st_mode)


def _replaced_mode(dirname: str, name: str, committed: os.stat_result | None) -> int | None:
    """The mode of a file that replaces `name`: no bit that the committed file or the
    top-level file of that name lacks (a user who made either private keeps it so);
    None (the umask's) for a file that replaces nothing."""
    modes = [] if committed is None else [_mode(committed)]
    with contextlib.suppress(OSError):
        top = os.lstat(os.path.join(dirname, name))
        if stat.S_ISREG(top.st_mode):
            modes.append(_mode(top))
    if not modes:
        return None
    mode = modes[0]
    for other in modes[1:]:
        mode &= other
    return mode


def commit(dirname: str | os.PathLike, files: Mapping[str, Callable[[BinaryIO], None]],
           owned: Iterable[str], legacy_names: Iterable[str] = ()) -> None:
    """Replace the files `owned` by this kind of save with `files`, as one whole.

    `files` maps file names to writers; names in `owned` but not in `files`
    are dropped (a sparse sibling the new program does not have). Other files
    of the committed generation are kept, and so are, in a directory without
    CURRENT, the top-level files named in `legacy_names` (an older save). A new
    file keeps the mode of the file it replaces, else gets the umask's.
    """
    dirname = os.fspath(dirname)
    owned = set(owned) | set(files)
    legacy_names = set(legacy_names)
    for name in owned:
        check_file_name(name)
    os.makedirs(dirname, exist_ok=True)
    with _locked(dirname):
        old = current_generation(dirname)
        _clean(dirname, old, owned | legacy_names)
        number = 1 if old is None else int(_GENERATION.fullmatch(old).group(1)) + 1
        new = f"gen-{number:06d}"
        new_dir = os.path.join(dirname, new)
        old_dir = dirname if old is None else os.path.join(dirname, old)
        committed = _regular_files(old_dir)
        if old is not None:
            _repair_links(dirname, old_dir, committed)
        if old is None:
            committed = {n: st for n, st in committed.items() if n in legacy_names | owned}
        os.mkdir(new_dir)
        if old is not None:  # a re-save never widens permissions (the umask's else)
            os.chmod(new_dir, _mode(os.lstat(old_dir)))
        _drop_cached(old_dir, committed.keys() & files.keys())
        try:
            for name, write in files.items():
                write_new_file(os.path.join(new_dir, name), write,
                               _replaced_mode(dirname, name, committed.get(name)))
            for name in committed.keys() - owned:
                os.link(os.path.join(old_dir, name), os.path.join(new_dir, name))
            sync_directory(new_dir)
            pointer = temporary_name(os.path.join(dirname, CURRENT))
            write_new_file(pointer, lambda out: out.write(f"{new}\n".encode()),
                           _replaced_mode(dirname, CURRENT, None))
            os.replace(pointer, os.path.join(dirname, CURRENT))  # the commit
        except BaseException:
            # Interrupted before the commit (or while it returned): keep whatever CURRENT
            # names on disk, drop the rest; what an interrupt leaves, the next save drops.
            with contextlib.suppress(Exception):
                if current_generation(dirname) != new:
                    _rmtree(new_dir, ignore_errors=True)
            raise
        _refresh_links(dirname, new_dir, committed, owned)
        sync_directory(dirname)
        _clean(dirname, new, owned | legacy_names)


def _repair_links(dirname: str, committed_dir: str,
                  committed: dict[str, os.stat_result]) -> None:
    """Point top-level names a killed save left at an older generation's file at the
    committed one's, before this save writes anything: Paddle's loaders read them."""
    for name, st in committed.items():
        target = os.path.join(dirname, name)
        try:
            top = os.lstat(target)
        except FileNotFoundError:
            top = None
        if top is not None and ((top.st_ino, top.st_dev) == (st.st_ino, st.st_dev)
                                or not stat.S_ISREG(top.st_mode)):
            continue  # in place, or the user's directory or link: left alone
        tmp = temporary_name(target)
        os.link(os.path.join(committed_dir, name), tmp)
        os.replace(tmp, target)


def _refresh_links(dirname: str, new_dir: str, old: dict[str, os.stat_result],
                   owned: set[str]) -> None:
    """Point the top-level names at the new generation's files; drop the ones it lacks:
    the links of files no longer saved, and regular files named as this save's files
    that it did not write (left by a save killed while it refreshed them)."""
    new = _regular_files(new_dir)
    for name in new:
        target = os.path.join(dirname, name)
        if os.path.lexists(target) and not os.path.isfile(target) or os.path.islink(target):
            continue  # not a file a save made: leave the user's directory or link alone
        tmp = temporary_name(target)
        os.link(os.path.join(new_dir, name), tmp)
        os.replace(tmp, target)
    for name, st in old.items():
        if name in new:
            continue
        target = os.path.join(dirname, name)
        with contextlib.suppress(FileNotFoundError):
            top = os.lstat(target)
            if (top.st_ino, top.st_dev) == (st.st_ino, st.st_dev):
                os.unlink(target)  # the link (or legacy file) of a file no longer saved
    for name in owned - new.keys() - old.keys():
        target = os.path.join(dirname, name)
        with contextlib.suppress(FileNotFoundError):
            if stat.S_ISREG(os.lstat(target).st_mode):
                os.unlink(target)
