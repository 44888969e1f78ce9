"""Bounded capture of a child's stdout and stderr: files, never pipes; head and tail kept.

The child writes straight into a regular file (a grandchild that keeps the descriptor open
cannot hang us the way it hangs a reader waiting for EOF on a pipe).  While the run goes on, the
parent looks at each file every tick and frees the middle of a file that grew past its cap by
punching a hole in it (``fallocate(PUNCH_HOLE)``: the file keeps its length, so the offset the
child writes at and the count of bytes written stay right, but the disk blocks are released).
A writer of 100 GB therefore never holds more than the cap plus one tick's worth of output on
disk.  Where the filesystem cannot punch holes, the run is stopped once a stream passes a hard
limit instead, and the outcome says so (``stop_reason == "output-limit"``).

After the run each file is compacted to ``head + marker line + tail``; the marker says how many
bytes were left out.  Bytes are kept as written (the child may print anything);
:func:`read_text` decodes for people and parsers.
"""

from __future__ import annotations

import contextlib
import ctypes
import errno
import os
from dataclasses import dataclass
from pathlib import Path

FALLOC_FL_KEEP_SIZE = 0x01
FALLOC_FL_PUNCH_HOLE = 0x02
# Punch only when this much is waiting to be freed: one syscall per MiB, not one per tick.
PUNCH_MIN = 1 << 20
OMITTED_MARKER = b"\n[... kdiag: %d bytes omitted ...]\n"


@dataclass(frozen=True)
class StreamCapture:
    """One captured stream after the run."""

    path: Path
    total_bytes: int  # everything the child wrote to it
    kept_bytes: int  # the size of the file now
    truncated: bool  # the middle was left out (the file holds head + marker + tail)
    head_bytes: int  # bytes kept from the start of the stream (the marker line follows them)
    omitted_bytes: int

    def read_bytes(self) -> bytes:
        return self.path.read_bytes()

    def read_text(self, errors: str = "replace") -> str:
        return read_text(self.path, errors=errors)


def read_text(path: Path, *, errors: str = "replace") -> str:
    """A captured file as text: UTF-8, undecodable bytes replaced (or ``surrogateescape``d, which round-trips)."""
    return path.read_bytes().decode("utf-8", errors=errors)


_libc: ctypes.CDLL | None = None


def punch_hole(fd: int, offset: int, length: int) -> bool:
    """Free the disk blocks of ``[offset, offset+length)`` keeping the file's size; False if unsupported."""
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
        _libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_int64, ctypes.c_int64]
    if _libc.fallocate(fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, offset, length) == 0:
        return True
    # EINTR/EAGAIN: try again next tick, not a reason to give up on punching
    return ctypes.get_errno() in (errno.EINTR, errno.EAGAIN)


class StreamWatch:
    """The parent's side of one stream while the run lasts."""

    def __init__(self, path: Path, *, cap: int, hard_limit: int) -> None:
        self.path = path
        # a quarter for the head (how it started), the rest for the tail (where it failed)
        self.head = cap // 4
        self.tail = cap - self.head
        self.hard_limit = hard_limit
        self.fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o644)
        self._punched_to = self.head
        self._can_punch = True
        self.peak = 0

    def check(self) -> bool:
        """Free what grew past the cap; True when the writer must be stopped (no hole punching here)."""
        size = os.fstat(self.fd).st_size
        self.peak = max(self.peak, size)
        end = size - self.tail
        if self._can_punch and end - self._punched_to >= PUNCH_MIN:
            if punch_hole(self.fd, self._punched_to, end - self._punched_to):
                self._punched_to = end
            else:
                self._can_punch = False
        return not self._can_punch and size > self.hard_limit

    def finish(self) -> StreamCapture:
        """Compact the file to head + marker + tail (once nothing writes to it any more) and describe it."""
        size = max(self.peak, os.fstat(self.fd).st_size)
        os.close(self.fd)
        if size <= self.head + self.tail:
            return StreamCapture(self.path, size, size, False, size, 0)
        with open(self.path, "rb") as f:
            head = f.read(self.head)
            f.seek(max(0, size - self.tail))
            tail = f.read(self.tail)
        omitted = size - len(head) - len(tail)
        tmp = self.path.with_name(self.path.name + ".kdiag-compact")
        try:
            with open(tmp, "wb") as f:
                f.write(head + OMITTED_MARKER % omitted + tail)
            # replace, not rewrite in place: a writer we could not kill keeps the old inode
            os.replace(tmp, self.path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()
        kept = self.path.stat().st_size
        return StreamCapture(self.path, size, kept, True, len(head), omitted)
