"""Where a job's log bytes come from: a :class:`LogSource` answers byte ranges of one log.

This module sits beside :mod:`healer.model`: the GitHub client (which fetches the bytes) and the diagnosis
(which reads them) both use it, and neither may import the other. It also turns bytes into text
(:func:`decode_log`, :class:`TailBuffer`).

A reader (the read-back in :mod:`healer.diagnosis.readback`) asks for ranges, usually from the end backwards,
and learns
the log's size first. Implementations:

* :class:`FileLogSource` — a log on disk (``healer diagnose``, tests).
* :class:`MemoryLogSource` — a log already in memory.
* :class:`TailLogSource` — what is left when the server ignores ``Range`` and sends the whole log: the body is
  streamed once, bounded, and only its retained tail can be served.
* ``healer.github.blob.BlobLogSource`` — GitHub's log, read in ``bytes=<start>-<end>`` ranges from the blob
  store the API redirects to; obtained with ``GitHub.open_log``. It lives with the GitHub client, the only
  module that speaks HTTP.

Every implementation may return fewer bytes than asked for (past the end of the log, a spent read budget,
a part that was not retained). What it returns is then the *end* of the asked range: a reader that goes
backwards from the end of the log joins it to what it already has.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Protocol, runtime_checkable

from healer.model import LogTail

DEFAULT_READ_LIMIT = 4 * 1024 * 1024  # bytes read per job unless `log-read-limit` says otherwise
DEFAULT_TAIL_BYTES = 256 * 1024  # what a bounded tail keeps unless told otherwise
STREAM_LIMIT = 32 * 1024 * 1024  # a body that ignored Range is streamed at most this far (or the read limit)


# How much of a cut first line is kept when it fills most of the window (see decode_log).
PARTIAL_LINE_KEEP = 2048


def decode_log(data: bytes, *, truncated: bool = False) -> str:
    """Bytes to text: UTF-8 with replacement, NULs dropped, CRLF and lone CR made LF.

    When ``truncated`` (the start of the log was cut away) the first, partial line is dropped, unless it is
    the only line: the end of one huge line still says more than nothing. For the same reason, when the cut
    line fills most of the window (a huge line followed by a few short ones), its last
    :data:`PARTIAL_LINE_KEEP` bytes are kept after an ellipsis.
    """
    if truncated:
        newline = data.find(b"\n")
        if 0 <= newline < len(data) - 1:
            partial, data = data[:newline], data[newline + 1 :]
            if len(partial) > len(data):
                data = "\u2026".encode() + partial[-PARTIAL_LINE_KEEP:] + b"\n" + data
    text = data.decode("utf-8", errors="replace").replace("\x00", "")
    return text.replace("\r\n", "\n").replace("\r", "\n")


class TailBuffer:
    """A bounded tail of a byte stream: feed it chunks, keep only the last ``max_bytes``.

    Memory stays below ``2 * max_bytes`` whatever the stream's length (used for a log download that ignored a
    ``Range`` request and sent the whole body).
    """

    def __init__(self, max_bytes: int = DEFAULT_TAIL_BYTES) -> None:
        if max_bytes <= 0:
            raise ValueError("max_bytes must be positive")
        self._max = max_bytes
        self._buffer = bytearray()
        self._total = 0

    def feed(self, chunk: bytes) -> None:
        """Append a chunk, dropping what falls out of the window."""
        self._total += len(chunk)
        if len(chunk) >= self._max:
            self._buffer = bytearray(chunk[-self._max :])
            return
        self._buffer += chunk
        if len(self._buffer) > 2 * self._max:
            del self._buffer[: len(self._buffer) - self._max]

    @property
    def total_bytes(self) -> int:
        """How many bytes were fed in all."""
        return self._total

    @property
    def held_bytes(self) -> int:
        """How many bytes are held now (never more than ``2 * max_bytes``)."""
        return len(self._buffer)

    def window(self) -> bytes:
        """The last ``max_bytes`` bytes fed (all of them when fewer were fed)."""
        return bytes(self._buffer[-self._max :])

    def result(self) -> LogTail:
        """The tail as text; ``truncated`` when the stream was longer than the window."""
        data = self.window()
        truncated = self._total > len(data)
        return LogTail(text=decode_log(data, truncated=truncated), bytes_read=len(data), truncated=truncated)


@runtime_checkable
class LogSource(Protocol):
    """Bytes of one job log, by range."""

    size: int | None  # bytes in the whole log; None when unknown

    def read(self, start: int, end: int) -> bytes:
        """Bytes ``[start, end)`` of the log; may return fewer, then the end of that range (see above)."""
        ...


def clamp(start: int, end: int, size: int | None) -> tuple[int, int]:
    """``[start, end)`` limited to a log of ``size`` bytes (unknown: unlimited), never negative."""
    start = max(0, start)
    end = max(start, end if size is None else min(end, size))
    return start, end


class FileLogSource:
    """A log file on disk; each read opens, seeks and reads only the range asked for."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.path = Path(path)
        self.size: int | None = self.path.stat().st_size

    def read(self, start: int, end: int) -> bytes:
        start, end = clamp(start, end, self.size)
        if start >= end:
            return b""
        with self.path.open("rb") as fh:
            fh.seek(start)
            return fh.read(end - start)


class MemoryLogSource:
    """A log held in memory."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self.size: int | None = len(data)

    def read(self, start: int, end: int) -> bytes:
        start, end = clamp(start, end, self.size)
        return self._data[start:end]


class TailLogSource:
    """The retained end of a log that was streamed once (a server that ignored ``Range``).

    Only bytes ``[span[0], span[1])`` are held; a read elsewhere gets the part it shares with that span.
    ``complete`` says whether the stream reached the end of the log: when reading stopped at the stream limit,
    the held bytes are the end of what was read, not of the log, and ``size`` is the declared length if any.
    """

    def __init__(self, tail: bytes, *, start: int, size: int | None, complete: bool, bytes_read: int) -> None:
        self._tail = tail
        self.span = (start, start + len(tail))
        self.size = size
        self.complete = complete
        self.bytes_read = bytes_read

    @classmethod
    def from_chunks(
        cls,
        chunks: Iterable[bytes],
        *,
        keep: int,
        stream_limit: int,
        offset: int = 0,
        size: int | None = None,
    ) -> TailLogSource:
        """Stream ``chunks`` (the body, starting at byte ``offset`` of the log), keeping the last ``keep``
        bytes and reading at most ``stream_limit``. ``size`` is the log's declared size, when known."""
        buffer = TailBuffer(max(1, keep))
        stopped = False
        for chunk in chunks:
            room = stream_limit - buffer.total_bytes
            buffer.feed(chunk[:room])
            if buffer.total_bytes >= stream_limit:
                stopped = True
                break
        read = buffer.total_bytes
        window = buffer.window()
        end = offset + read
        complete = not stopped or (size is not None and end >= size)
        if complete and size is None:
            size = end
        return cls(window, start=end - len(window), size=size, complete=complete, bytes_read=read)

    def read(self, start: int, end: int) -> bytes:
        start, end = clamp(start, end, self.size)
        low, high = max(start, self.span[0]), min(end, self.span[1])
        if low >= high:
            return b""
        return self._tail[low - self.span[0] : high - self.span[0]]


_CONTENT_RANGE = re.compile(r"bytes (\d+)-(\d+)/(\d+|\*)")


def parse_content_range(header: str) -> tuple[int, int, int | None] | None:
    """``Content-Range: bytes <first>-<last>/<size>`` as (first, last inclusive, size or None); None if it is
    missing or malformed."""
    found = _CONTENT_RANGE.fullmatch(header.strip())
    if found is None:
        return None
    size = None if found.group(3) == "*" else int(found.group(3))
    return int(found.group(1)), int(found.group(2)), size


def unsatisfied_size(header: str) -> int | None:
    """The size in a 416 answer's ``Content-Range: bytes */<size>``, or None."""
    found = re.fullmatch(r"bytes \*/(\d+)", header.strip())
    return int(found.group(1)) if found else None
