"""Reading a file that a person, or anything with access to the folder, may have replaced.

Only a regular file is read. A symbolic link, FIFO, device, socket or folder is refused
without being read: the file is opened with O_NOFOLLOW and O_NONBLOCK and checked
with fstat, so a link to `/etc/passwd` or `/dev/zero`, or a FIFO nobody writes to,
can neither leak a file nor hang the reader. Reading stops at a size limit.
"""

from __future__ import annotations

from dataclasses import dataclass
import errno
import os
from pathlib import Path
import stat

from .durable import storage_error

# (inode, size, modification time in ns): changes whenever the file is replaced or
# written, and a symbolic link has its own (lstat, never the target's).
Signature = tuple[int, int, int]

_KINDS = (
    (stat.S_ISLNK, "a symbolic link"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISSOCK, "a socket"),
)
_READ_CHUNK = 1024 * 1024


@dataclass(frozen=True, slots=True)
class UntrustedFile:
    """What was found at a path: missing, refused (`refusal` says why) or read."""

    signature: Signature | None
    data: bytes | None = None
    refusal: str | None = None


def file_signature(path: Path) -> Signature | None:
    """The path's own signature (a symbolic link's, not its target's); None if missing."""
    try:
        return _signature(os.lstat(path))
    except FileNotFoundError, NotADirectoryError:
        return None


def read_untrusted(path: Path, limit: int) -> UntrustedFile:
    """Read `path` if it is a regular file of at most `limit` bytes.

    StorageError when a regular file cannot be read (permissions).
    """
    try:
        found = os.lstat(path)
    except FileNotFoundError, NotADirectoryError:
        return UntrustedFile(None)
    if (refusal := _refusal(found, limit)) is not None:
        return UntrustedFile(_signature(found), refusal=refusal)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        return UntrustedFile(None)
    except OSError as err:
        if err.errno == errno.ELOOP:  # replaced by a link since the lstat
            return UntrustedFile(file_signature(path), refusal="a symbolic link")
        raise storage_error(err, path) from err
    try:
        opened = os.fstat(fd)  # what was opened, whatever the path shows by now
        if (refusal := _refusal(opened, limit)) is not None:
            return UntrustedFile(_signature(opened), refusal=refusal)
        chunks: list[bytes] = []
        size = 0
        while chunk := os.read(fd, _READ_CHUNK):
            chunks.append(chunk)
            size += len(chunk)
            if size > limit:  # it grew while being read
                return UntrustedFile(_signature(opened), refusal=_too_large(limit))
        return UntrustedFile(_signature(opened), b"".join(chunks))
    except OSError as err:
        raise storage_error(err, path) from err
    finally:
        os.close(fd)


def restrict_to_owner(path: Path) -> None:
    """Make a regular file readable by its owner only (links and the rest left alone)."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return  # never opened: a device may act on being opened
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return  # replaced by a link, or gone: nothing of ours to protect
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            os.fchmod(fd, 0o600)
    except OSError as err:
        raise storage_error(err, path) from err
    finally:
        os.close(fd)


def _refusal(found: os.stat_result, limit: int) -> str | None:
    if stat.S_ISREG(found.st_mode):
        return None if found.st_size <= limit else _too_large(limit)
    for test, kind in _KINDS:
        if test(found.st_mode):
            return kind
    return "a device"


def _too_large(limit: int) -> str:
    return f"larger than {limit // (1024 * 1024)} MiB"


def _signature(found: os.stat_result) -> Signature:
    return (found.st_ino, found.st_size, found.st_mtime_ns)
