"""Crash-safe, private file primitives: atomic replace, durable append, process lock.

A write is acknowledged only after the data and the directory entry are on disk, so a
crash at any instant leaves either the previous file or the new one, never a mix.
Memories are private: every file the engine creates is readable by its owner only
(0600) and every folder it creates is 0700, whatever the umask; `keep_private`
tightens files an earlier version left readable by others.
"""

from __future__ import annotations

from collections.abc import Buffer, Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
import errno
import fcntl
import os
from pathlib import Path
import stat
import threading
import time
from typing import Final

from ..errors import StorageError, StoreBusyError

PRIVATE_FILE: Final = 0o600
PRIVATE_FOLDER: Final = 0o700


def fsync_directory(directory: Path) -> None:
    """Make a rename or a new file in `directory` durable."""
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_atomically(
    path: Path, chunks: Iterable[str | Buffer], *, sync: bool = True
) -> None:
    """Replace `path` with the concatenated chunks: temp file, fsync, rename.

    Chunks are written one by one so a large file never sits in memory twice; text
    is written as UTF-8. The file is private (0600). Without `sync`, nothing waits
    for the disk (for files whose loss in a power cut costs nothing): still whole or
    absent, never torn.
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        descriptor = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE)
        with open(descriptor, "wb") as handle:
            handle.writelines(
                chunk.encode() if isinstance(chunk, str) else chunk for chunk in chunks
            )
            handle.flush()
            if sync:
                os.fsync(handle.fileno())
        os.replace(tmp, path)
        if sync:
            fsync_directory(path.parent)
    except OSError as err:
        with suppress(OSError):
            tmp.unlink()
        raise storage_error(err, path) from err


def replace_unless_changed(
    path: Path,
    chunks: Iterable[str],
    expected: tuple[int, int, int] | None,
    record: Callable[[tuple[int, int, int]], None],
) -> bool:
    """`write_atomically`, unless someone else changed `path` meanwhile.

    `expected` is the file's (inode, size, mtime ns) when it was last looked at, or
    None when it was missing. `record` gets the new file's (inode, size, mtime ns)
    once it is durable and before it is put in place: a crash leaves a record of a
    file never shown, never a file shown without its record. Checked again at the
    last moment: a missing file is created with link(), which fails if anything
    appeared there meanwhile. False when the file changed (nothing put in place).
    """
    prepared = prepare_file(path, chunks)
    try:
        record(prepared.signature)
    except BaseException as err:
        prepared.discard()
        if isinstance(err, OSError) and not isinstance(err, StorageError):
            raise storage_error(err, path) from err
        raise
    return prepared.put_in_place_unless_changed(expected)


@dataclass(frozen=True, slots=True)
class PreparedFile:
    """A new version of a file, whole and durable beside it, not in place yet.

    Written without any lock held (the slow part: the data and its fsync); put in
    place later, under a lock, by a rename (`put_in_place`,
    `put_in_place_unless_changed`).
    """

    path: Path
    tmp: Path
    signature: tuple[int, int, int]

    def put_in_place(self) -> None:
        """Replace the file with this version (durable on return)."""
        try:
            os.replace(self.tmp, self.path)
            fsync_directory(self.path.parent)
        except OSError as err:
            self.discard()
            raise storage_error(err, self.path) from err

    def put_in_place_unless_changed(
        self, expected: tuple[int, int, int] | None
    ) -> bool:
        """Put in place if the file is still `expected` (None: missing); else False."""
        try:
            if not _put_in_place(self.tmp, self.path, expected):
                self.discard()
                return False
            fsync_directory(self.path.parent)
        except BaseException as err:
            self.discard()
            if isinstance(err, OSError) and not isinstance(err, StorageError):
                raise storage_error(err, self.path) from err
            raise
        return True

    def discard(self) -> None:
        """Remove the new version when it was not put in place (nothing otherwise)."""
        with suppress(OSError):
            self.tmp.unlink()


def prepare_file(path: Path, chunks: Iterable[str]) -> PreparedFile:
    """Write a new version of `path` beside it (private, fsynced), not in place yet.

    Prepared outside any lock: the temporary name holds the process and the thread,
    so engines sharing a folder, in one process or several, never share it.
    """
    tmp = path.with_name(f".{path.name}.{os.getpid()}-{threading.get_ident()}.tmp")
    try:
        descriptor = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, PRIVATE_FILE)
        with open(descriptor, "w", encoding="utf-8") as handle:
            handle.writelines(chunks)
            handle.flush()
            os.fsync(handle.fileno())
            made = os.fstat(handle.fileno())
    except BaseException as err:
        with suppress(OSError):
            tmp.unlink()
        if isinstance(err, OSError) and not isinstance(err, StorageError):
            raise storage_error(err, path) from err
        raise
    return PreparedFile(path, tmp, (made.st_ino, made.st_size, made.st_mtime_ns))


def _put_in_place(tmp: Path, path: Path, expected: tuple[int, int, int] | None) -> bool:
    """Rename `tmp` to `path` if `path` is still as expected; False otherwise."""
    if expected is None:
        try:
            os.link(tmp, path)
        except FileExistsError:
            return False
        finally:
            os.unlink(tmp)
        return True
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        return False  # removed meanwhile: looked at again next time
    if (found.st_ino, found.st_size, found.st_mtime_ns) != expected:
        return False
    os.replace(tmp, path)
    return True


def make_private_folder(folder: Path) -> None:
    """Create the folder, and any missing parent, as 0700 (StorageError if impossible)."""
    missing: list[Path] = []
    while not folder.is_dir() and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    for path in reversed(missing):
        try:
            path.mkdir(mode=PRIVATE_FOLDER, exist_ok=True)
        except OSError as err:  # a file in the way too
            raise storage_error(err, path) from err


def create_private_file(path: Path) -> None:
    """Create the file as 0600 when it is missing (one that exists is left alone).

    For files another library creates (SQLite): made first, they are private, and so
    are the -wal and -shm files SQLite makes with the database's permissions.
    """
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT, PRIVATE_FILE))
    except OSError as err:
        raise storage_error(err, path) from err


def open_private(path: Path, flags: int) -> int:
    """`os.open` that creates a missing file as 0600 (OSError as os.open raises)."""
    return os.open(path, flags, PRIVATE_FILE)


def keep_private(folder: Path, names: Iterable[str]) -> None:
    """Make the folder 0700 and what `names` match in it private, folders' content too.

    `names` are glob patterns of the engine's own files and folders; anything else in
    the folder is left as it is. Symbolic links inside are not followed, and files
    that cannot be changed (another user's) are left alone.
    """
    _tighten(folder, PRIVATE_FOLDER)
    for name in names:
        for path in folder.glob(name):
            if path.is_dir() and not path.is_symlink():
                _tighten(path, PRIVATE_FOLDER)
                for inner in path.rglob("*"):
                    _tighten_entry(inner)
            else:
                _tighten_entry(path)


def _tighten_entry(path: Path) -> None:
    try:
        kind = os.lstat(path).st_mode
    except OSError:
        return
    if stat.S_ISDIR(kind):
        _tighten(path, PRIVATE_FOLDER)
    elif stat.S_ISREG(kind):
        _tighten(path, PRIVATE_FILE)


def _tighten(path: Path, mode: int) -> None:
    with suppress(OSError):
        if stat.S_IMODE(path.stat().st_mode) != mode:
            path.chmod(mode)


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
        fd = open_private(lock_path, os.O_RDWR | os.O_CREAT)
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
