"""Crash-safe file primitives: atomic replace, durable append, inter-process lock.

A write is acknowledged only after the data and the directory entry are on disk, so a
crash at any instant leaves either the previous file or the new one, never a mix.
"""

from __future__ import annotations

from collections.abc import Buffer, Iterable, Iterator
from contextlib import contextmanager, suppress
import errno
import fcntl
import os
from pathlib import Path
import time

from .errors import StorageError, StoreBusyError


def fsync_directory(directory: Path) -> None:
    """Make a rename or a new file in `directory` durable."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomically(path: Path, chunks: Iterable[str | Buffer]) -> None:
    """Replace `path` with the concatenated chunks: temp file, fsync, rename.

    Chunks are written one by one so a large file never sits in memory twice; text
    is written as UTF-8.
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        with open(tmp, "wb") as handle:
            handle.writelines(
                chunk.encode() if isinstance(chunk, str) else chunk for chunk in chunks
            )
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
        fsync_directory(path.parent)
    except OSError as err:
        with suppress(OSError):
            tmp.unlink()
        raise storage_error(err, path) from err


def append_durably(fd: int, data: bytes, path: Path) -> None:
    """Append `data` to an O_APPEND descriptor and wait until it is on disk."""
    try:
        view = memoryview(data)
        while view:
            written = os.write(fd, view)
            view = view[written:]
        os.fdatasync(fd)
    except OSError as err:
        raise storage_error(err, path) from err


def storage_error(err: OSError, path: Path) -> StorageError:
    """Turn an OSError into a StorageError whose message a person can act on."""
    reasons = {
        errno.ENOSPC: "the disk is full",
        errno.EDQUOT: "the disk quota is exceeded",
        errno.EROFS: "the folder is read-only",
        errno.EACCES: "permission denied",
        errno.EPERM: "permission denied",
    }
    reason = reasons.get(err.errno or 0, err.strerror or str(err))
    return StorageError(f"cannot write {path}: {reason}", path)


@contextmanager
def process_lock(lock_path: Path, timeout: float = 10.0) -> Iterator[None]:
    """Hold an exclusive lock shared with other processes using the same store."""
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    except OSError as err:
        raise storage_error(err, lock_path) from err
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise StoreBusyError(
                        f"{lock_path.parent} is locked by another process", lock_path
                    ) from None
                time.sleep(0.01)
        try:
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        os.close(fd)
