"""Writing output files safely, without importing anything heavy (``burstlab.io``
re-exports every name here): check an output path before long work, make an output folder
that is removed again if the work fails, write a file atomically (a temporary file beside
it, then a rename; a full disk said as such) and remove the temporary files a killed
process left behind (docs/errors.md "No half-written output")."""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import stat
import sys
import tempfile
from collections.abc import Callable, Iterator
from typing import Any
from pathlib import Path

__all__ = ["STDOUT", "atomic_write", "atomic_write_text", "check_output_path", "output_dir", "remove_stale_temporaries"]


#: The output path that means standard output (``-o -``), as in most Unix tools.
STDOUT = "-"


def _kind(mode: int) -> str | None:
    """What a non-regular file is, in words (``None`` for a regular file)."""
    if stat.S_ISREG(mode):
        return None
    for test, name in ((stat.S_ISCHR, "character device"), (stat.S_ISFIFO, "FIFO"), (stat.S_ISBLK, "block device"),
                       (stat.S_ISSOCK, "socket"), (stat.S_ISDIR, "directory")):  # fmt: skip
        if test(mode):
            return name
    return "special file"


def _in_place(p: Path) -> str | None:
    """``"character device"`` or ``"FIFO"`` when ``p`` (after its symbolic links) is one of the
    non-regular files an output may be written into in place; ``None`` for a regular or new
    file. Anything else (a block device, a socket) is refused: writing a trace over a disk
    is never meant."""
    try:
        st = os.stat(p)
    except OSError:
        return None  # a new file (or an impossible place, which check_output_path names)
    kind = _kind(st.st_mode)
    if kind in (None, "directory", "character device", "FIFO"):
        return kind if kind in ("character device", "FIFO") else None
    raise OSError(errno.EINVAL, f"is a {kind}, not a file: burstlab writes regular files, character devices "
                                "(/dev/null) and FIFOs", str(p))  # fmt: skip


def check_output_path(path: str | os.PathLike[str]) -> Path:
    """Check, before any work is done, that ``path`` can be written as a file: not a
    directory, and its folder either exists (and is a folder) or can be made. ``-`` (standard
    output), a character device (``/dev/null``) and a FIFO are written in place
    (:func:`atomic_write`); a block device or a socket is refused. Raises ``OSError`` naming
    ``path``."""
    p = Path(path)
    if os.fspath(path) == STDOUT:
        return p
    if p.is_dir():
        raise IsADirectoryError(errno.EISDIR, "is a directory, expected a file path", str(p))
    if _in_place(p) is not None:
        return p
    parent = Path(os.path.realpath(p)).parent if p.is_symlink() else p.parent
    for anc in (parent, *parent.parents):
        if anc.exists():
            if not anc.is_dir():
                raise NotADirectoryError(errno.ENOTDIR, f"cannot write there: {anc} is not a directory", str(p))
            if not os.access(anc, os.W_OK | os.X_OK):
                raise PermissionError(errno.EACCES, f"cannot write there: {anc} is not writable", str(p))
            break
    return p


@contextlib.contextmanager
def output_dir(path: str | os.PathLike[str] | None) -> Iterator[Path | None]:
    """Make the output folder ``path`` now, before long work, so that an unwritable place
    fails at once (naming ``path``); if the work then fails and the folder was made here
    and is still empty, remove it again. ``None`` passes through."""
    if path is None:
        yield None
        return
    p = Path(path)
    existed = p.exists()
    if existed and not p.is_dir():
        raise NotADirectoryError(errno.ENOTDIR, "is a file, expected a folder", str(p))
    if not existed:
        try:
            p.mkdir(parents=True)
        except OSError as e:
            raise type(e)(e.errno, f"cannot make the folder: {e.strerror}", str(p)) from None
    try:
        yield p
    except BaseException:
        if not existed:
            try:
                p.rmdir()  # only when empty
            except OSError:
                pass
        raise


def _disk_full(e: BaseException, folder: Path) -> bool:
    """Did this write fail because the disk is full? An ``ENOSPC``/``EDQUOT`` anywhere in the
    exception's chain, or (for writers that turn it into another error on the way out, e.g.
    matplotlib's PDF backend: "'Stream' object has no attribute 'pos'") a file system left
    with less than 1 MiB free."""
    x: BaseException | None = e
    seen: set[int] = set()
    while x is not None and id(x) not in seen:
        seen.add(id(x))
        if isinstance(x, OSError) and x.errno in (errno.ENOSPC, errno.EDQUOT):
            return True
        if isinstance(x, OSError) and x.errno == errno.EFBIG:
            return False  # a file-size limit: said as such
        x = x.__cause__ or x.__context__
    try:
        st = os.statvfs(folder)
    except OSError:
        return False
    return st.f_blocks > 0 and st.f_bavail * st.f_frsize < (1 << 20)


def _os_error(e: OSError, p: Path, folder: Path | None) -> OSError:
    """``e`` said as a failure to write ``p`` (a full disk as such), naming ``p``."""
    if e.errno in (errno.ENOSPC, errno.EDQUOT) or (folder is not None and _disk_full(e, folder)):
        return OSError(errno.ENOSPC, "cannot write: no space left on the device", str(p))
    if e.errno == errno.ENXIO:
        return OSError(e.errno, "cannot write: a FIFO with no reader (start the reader first)", str(p))
    if e.errno == errno.EPIPE:
        return OSError(e.errno, "cannot write: the reader closed the pipe", str(p))
    return type(e)(e.errno, f"cannot write: {e.strerror}", str(p))


def _write_in_place(p: Path, kind: str | None, write: Callable[[str], object]) -> None:
    """Write into standard output (``kind`` None), a character device or a FIFO without
    replacing it: ``write`` fills a temporary regular file (writers that seek, such as
    ``np.savez`` or Parquet, need one), which is then copied into the opened target. A FIFO
    is opened without blocking, so one that nobody reads is an error, not a hang."""
    with tempfile.TemporaryDirectory(prefix="burstlab-out.") as d:
        tmp = os.path.join(d, f"out{p.suffix if kind is not None else ''}")
        try:
            write(tmp)
        except OSError as e:
            raise _os_error(e, p, Path(d)) from None
        try:
            if kind is None:
                sys.stdout.flush()
                try:
                    fd = os.dup(sys.stdout.fileno())
                except (AttributeError, ValueError):  # a stdout replaced in-process (io.StringIO)
                    _copy_to_stream(tmp, sys.stdout)
                    return
            elif kind == "FIFO":
                fd = os.open(p, os.O_WRONLY | os.O_NONBLOCK)
                os.set_blocking(fd, True)
            else:
                fd = os.open(p, os.O_WRONLY)
            with os.fdopen(fd, "wb") as out, open(tmp, "rb") as src:
                shutil.copyfileobj(src, out, 1 << 20)
        except OSError as e:
            raise _os_error(e, p, None) from None


def _copy_to_stream(tmp: str, stream: Any) -> None:
    """Copy a file into a Python stream without a file descriptor: its binary buffer if it
    has one, else as text (UTF-8, undecodable bytes replaced)."""
    data = Path(tmp).read_bytes()
    buf = getattr(stream, "buffer", None)
    if buf is not None:
        buf.write(data)
        buf.flush()
    else:
        stream.write(data.decode("utf-8", "replace"))


def atomic_write(path: str | os.PathLike[str], write: Callable[[str], object]) -> None:
    """Write ``path`` through ``write(tmp)`` on a temporary file beside it, then rename:
    a failed write never leaves a half-written file, and an ``OSError`` names ``path``
    (not the temporary file). A full disk is ``OSError(ENOSPC)`` whatever error the writer
    raised. The temporary name ends in ``path``'s extension (``.name.XXXX.tmp.png``), so
    writers that choose the format by extension (matplotlib's ``savefig``) write the right
    one; a temporary file that a killed process left behind is removed by
    :func:`remove_stale_temporaries`.

    Only a regular file is ever replaced. ``-`` is standard output; a character device
    (``/dev/null``, ``/dev/full``: "no space left") or a FIFO is written in place, never
    replaced by a file; a symbolic link keeps pointing where it did and its target is
    written; a block device or a socket is refused (docs/errors.md "No half-written output")."""
    p = check_output_path(path)
    if os.fspath(path) == STDOUT:
        _write_in_place(p, None, write)
        return
    kind = _in_place(p)
    if kind is not None:
        _write_in_place(p, kind, write)
        return
    dest = Path(os.path.realpath(p)) if p.is_symlink() else p
    try:
        dest.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{dest.name}.", suffix=f".tmp{dest.suffix}", dir=dest.parent)
    except OSError as e:
        raise _os_error(e, p, None) from None
    os.close(fd)
    try:
        write(tmp)
        um = os.umask(0)
        os.umask(um)
        os.chmod(tmp, 0o666 & ~um)  # mkstemp makes 0600; give the file the usual mode
        os.replace(tmp, dest)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        if isinstance(e, Exception) and _disk_full(e, dest.parent):
            raise OSError(errno.ENOSPC, "cannot write: no space left on the device", str(p)) from None
        if isinstance(e, OSError) and e.strerror:
            raise type(e)(e.errno, f"cannot write: {e.strerror}", str(p)) from None
        raise


#: The temporary files :func:`atomic_write` makes: ``.NAME.XXXXXXXX.tmp[.EXT]``.
_TEMP_RE = re.compile(r"^\..+\.[A-Za-z0-9_]{8}\.tmp(\.[^./]*)?$")


def remove_stale_temporaries(folder: str | os.PathLike[str]) -> list[Path]:
    """Remove the temporary files that :func:`atomic_write` left in ``folder`` (and its
    subfolders) when its process was killed before it could clean up (a SIGKILL, a power
    cut). Call it only where no other burstlab process writes (the study does, holding
    its store's lock). Returns what it removed."""
    root = Path(folder)
    removed: list[Path] = []
    if not root.is_dir():
        return removed
    for dirpath, _dirs, files in os.walk(root):
        for f in files:
            if _TEMP_RE.match(f):
                q = Path(dirpath) / f
                try:
                    q.unlink()
                    removed.append(q)
                except OSError:
                    pass
    return removed


def atomic_write_text(path: str | os.PathLike[str], text: str) -> None:
    """Write ``text`` to ``path`` atomically (:func:`atomic_write`)."""
    atomic_write(path, lambda tmp: Path(tmp).write_text(text))
