"""Writing files so that readers see the old or the new content, never a mix.

A file is written to a temporary in its own directory, flushed and fsync'ed,
then renamed over its target, and the directory is synced. The temporary
gets the mode the target has (a 0600 file stays 0600), else the mode any new
file gets (0666 less the umask).

Targets are checked first: paddle-ir replaces only regular files. A device,
FIFO, socket or directory at the path is refused (renaming over `/dev/null`
as root would replace the device), and so is a symbolic link, whatever it
points to: replacing the link would silently cut it, and following it would
let a planted link redirect the write; the error names the link's target so
the user can pass that path instead. The check is repeated just before the
rename, so the window in which another process could swap the path is the
rename itself.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Mapping
from typing import BinaryIO

from paddle_ir.core.errors import InputFileError, OutputPathError, PaddleIRError

TMP_PREFIX = ".tmp-"


def _kind(mode: int) -> str:
    for test, name in ((stat.S_ISDIR, "a directory"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
                       (stat.S_ISSOCK, "a socket"), (stat.S_ISLNK, "a symbolic link")):
        if test(mode):
            return name
    return "not a regular file"


def check_output_path(path: str | os.PathLike) -> int | None:
    """The mode of the regular file at `path`, None if nothing is there; else OutputPathError."""
    path = os.fspath(path)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        parent = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(parent):
            raise OutputPathError(f"cannot write {path}: its directory {parent} does not "
                                  f"exist") from None
        return None
    if stat.S_ISREG(st.st_mode):
        _refuse_a_committed_file(path)
        return stat.S_IMODE(st.st_mode)
    if stat.S_ISLNK(st.st_mode):
        raise OutputPathError(
            f"cannot write {path}: it is a symbolic link (to {os.readlink(path)}); paddle-ir "
            f"replaces only regular files, never through or over a link",
            hint="pass the path of the file itself")
    raise OutputPathError(f"cannot write {path}: it is {_kind(st.st_mode)}; paddle-ir writes "
                          f"only regular files")


def _refuse_a_committed_file(path: str) -> None:
    """A file of a saved directory's committed generation (its top-level link) is
    replaced by a save into the directory, never by a single write: loads read the
    generation (core/savedir.py), so the write would load nowhere."""
    from paddle_ir.core import savedir  # it imports this module

    directory = os.path.dirname(os.path.abspath(path))
    try:
        generation = savedir.current_generation(directory)
        if generation is None:
            return
    except PaddleIRError:
        return  # a damaged directory: its loads say so
    if os.path.lexists(os.path.join(directory, generation, os.path.basename(path))):
        raise OutputPathError(
            f"cannot write {path}: it is a file of the model directory {directory}, "
            f"committed in {generation}; writing it alone would change nothing that loads "
            f"from the directory", hint="save the model into the directory (or `paddle-ir "
                                        "convert IN DIR`), which replaces its files as one "
                                        "whole, or write to another path")


def write_new_file(path: str, write: Callable[[BinaryIO], None], mode: int | None) -> None:
    """Create `path` (it must not exist), fill it with `write`, fsync it; `mode` if given."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    with os.fdopen(fd, "wb") as out:
        if mode is not None:
            os.fchmod(out.fileno(), mode)
        write(out)
        out.flush()
        os.fsync(out.fileno())


def drop_cached_pages(path: str) -> None:
    """Ask the kernel to drop the cached pages of a file about to be replaced (clean pages,
    soon unlinked), so the new file's pages come from free memory (see savedir)."""
    if not hasattr(os, "posix_fadvise"):  # pragma: no cover - not POSIX
        return
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        return
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    except OSError:
        pass
    finally:
        os.close(fd)


def sync_directory(directory: str) -> None:
    """Make the renames and links in `directory` durable."""
    try:
        dir_fd = os.open(directory, os.O_RDONLY)
    except OSError:  # pragma: no cover - platforms without directory fds
        return
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def temporary_name(path: str) -> str:
    return os.path.join(os.path.dirname(os.path.abspath(path)),
                        f"{TMP_PREFIX}{os.path.basename(path)}-{os.urandom(8).hex()}")


def atomic_write_many(files: Mapping[str | os.PathLike, Callable[[BinaryIO], None]]) -> None:
    """Write several files, each replaced whole; all are staged before any is renamed.

    Every target is checked (regular file or nothing), then every file is
    staged whole (temporary, flushed, fsync'ed); only then are the temporaries
    renamed over their targets in the order given and the directories synced.
    On an exception the temporaries are removed and the old files stay. Files
    renamed one by one are not replaced as a group: a directory replaced whole
    is `paddle_ir.core.savedir`'s job.
    """
    targets = [os.fspath(p) for p in files]
    modes = {path: check_output_path(path) for path in targets}
    staged: list[tuple[str, str]] = []
    try:
        for path, write in zip(targets, files.values(), strict=True):
            if modes[path] is not None:
                drop_cached_pages(path)
            tmp = temporary_name(path)
            staged.append((tmp, path))
            write_new_file(tmp, write, modes[path])
        for tmp, path in staged:
            check_output_path(path)  # nothing swapped in meanwhile
            os.replace(tmp, path)
    except BaseException:
        for tmp, _ in staged:
            if os.path.lexists(tmp):
                os.unlink(tmp)
        raise
    for directory in sorted({os.path.dirname(os.path.abspath(p)) for _, p in staged}):
        sync_directory(directory)


def atomic_write(path: str | os.PathLike, write: Callable[[BinaryIO], None]) -> None:
    """Write one file so that readers see the old or the new content, never a mix."""
    atomic_write_many({path: write})


# --- reading -----------------------------------------------------------------------------


def _outside(path: str, root: str | os.PathLike) -> str | None:
    """How `path` leads out of `root` (a link, or a linked directory on the way), or None."""
    real, top = os.path.realpath(path), os.path.realpath(root)
    if os.path.commonpath([real, top]) == top:
        return None
    if os.path.islink(path):
        return f"is a symbolic link to {os.readlink(path)}"
    return f"resolves to {real}"


def open_regular(path: str | os.PathLike, root: str | os.PathLike | None = None) -> BinaryIO:
    """Open a regular file for reading; anything else (a FIFO, a device) is refused.

    A FIFO is opened without blocking, so that one without a writer cannot
    hang the reader, and `/dev/zero` is refused before a byte is read. With
    `root` (a model directory), a path that leads outside `root` (a symbolic
    link, or one in a directory on the way) is refused rather than followed
    silently, and the file opened must be the one that was checked.
    """
    path = os.fspath(path)
    if root is not None:
        how = _outside(path, root)
        if how is not None:
            raise InputFileError(
                f"{path} {how}, outside {os.fspath(root)}; paddle-ir does not follow links "
                f"out of a model directory",
                hint="copy the file into the directory if it belongs to the model")
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise InputFileError(f"{path} is {_kind(st.st_mode)}; paddle-ir reads only regular "
                                 f"files")
        if root is not None:
            checked = os.stat(os.path.realpath(path))
            if (checked.st_dev, checked.st_ino) != (st.st_dev, st.st_ino):
                raise InputFileError(f"{path} was replaced while it was being opened; try "
                                     f"again")
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str | os.PathLike, limit: int, what: str,
                 root: str | os.PathLike | None = None) -> bytes:
    """The bytes of the regular file `path` (see open_regular), at most `limit` of them.

    The read is bounded by the file's size when it was opened, so a file that
    grows while it is read (or a device behind a link) cannot make it endless;
    a file larger than `limit` (what `what`, its format, can hold) is refused
    before a byte is read.
    """
    with open_regular(path, root) as f:
        size = os.fstat(f.fileno()).st_size
        if size > limit:
            raise InputFileError(f"{os.fspath(path)} holds {size} bytes, more than {what} can "
                                 f"({limit} bytes); it is not one")
        return f.read(size)
