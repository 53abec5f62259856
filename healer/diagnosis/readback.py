"""Read a job log back from its end until the first failure of the failing step is in view.

What decides a failure is near the end of a log, but not always in its last window: Maven ``-e`` prints
thousands of stack-trace lines after a failure, TestNG thousands of ``SKIPPED`` lines, mocha hundreds of
failures after the first. :func:`read_back` reads the last window of a :class:`~healer.logsource.LogSource`,
then earlier ranges in growing steps (each as large as what was read so far), until the failing step's
``##[group]Run …`` header is in view (so the step's first failure is too), the start of the log is reached,
or ``limit`` bytes were read. The cost is bounded by ``limit`` whatever the log's size.
"""

from __future__ import annotations

from dataclasses import dataclass

from healer.diagnosis.capture import split_capture
from healer.diagnosis.logs import DEFAULT_TAIL_BYTES, SETUP_STEP, decode_log, parse_log
from healer.logsource import DEFAULT_READ_LIMIT, LogSource
from healer.model import LogTail


@dataclass(frozen=True)
class ReadBack:
    """The text read, as a :class:`LogTail`, and how it was read (for benchmarks and ``--json``)."""

    tail: LogTail
    reads: int  # how many ranges were asked for
    complete: bool  # the failing step's start (or the log's) is in view


def read_back(
    source: LogSource, *, window: int = DEFAULT_TAIL_BYTES, limit: int = DEFAULT_READ_LIMIT
) -> LogTail:
    """The end of the log, read back until its failing step's start is in view (see the module doc)."""
    return read_back_counted(source, window=window, limit=limit).tail


def read_back_counted(
    source: LogSource, *, window: int = DEFAULT_TAIL_BYTES, limit: int = DEFAULT_READ_LIMIT
) -> ReadBack:
    """:func:`read_back`, also saying how many reads it took and whether the failure's start is in view."""
    if window <= 0 or limit <= 0:
        raise ValueError("window and limit must be positive")
    window = min(window, limit)
    size = source.size
    if size is None:
        # nothing to count back from: the start of the log, as far as the limit allows
        data = source.read(0, limit)
        return ReadBack(LogTail(text=decode_log(data), bytes_read=len(data), truncated=False), 1, True)
    low = max(0, size - window)
    data = source.read(low, size)
    low = size - len(data)  # a source may answer with less: what it has is the end of the range
    reads = 1
    follow = _follow(data, low)
    complete = low == 0 or follow is _DONE
    while not complete and len(data) < limit:
        step = min(len(data), limit - len(data), low)
        chunk = source.read(low - step, low)
        reads += 1
        if not chunk:
            break
        # a header cut by the range boundary is seen once the next bytes are joined to it
        seen = chunk + data[: len(_HEADER)]
        data = chunk + data
        low -= len(chunk)
        complete = low == 0 or (follow is _STEP and _HEADER in seen)
        if len(chunk) < step:
            break  # the source holds no more (a retained tail, a spent budget)
    tail = LogTail(text=decode_log(data, truncated=low > 0), bytes_read=len(data), truncated=low > 0)
    return ReadBack(tail, reads, complete)


_HEADER = b"##[group]Run "
_DONE, _STEP, _ALL = "done", "step", "all"


def _follow(data: bytes, low: int) -> str:
    """What the first window says about reading further back.

    ``done``: the failing step's header (or "Set up job") is in view. ``step``: the failing step is known but
    started further back; the first ``##[group]Run`` header found in an earlier range is its start (no header
    came between). ``all``: no step is known (a plain tool output, or a multi-job capture): read what the
    limit allows. Only the first window is parsed; earlier ranges are only searched for the header's bytes.
    """
    text = decode_log(data, truncated=low > 0)
    if split_capture(text):
        return _ALL
    log = parse_log(text, truncated=True)
    step = log.failing_step
    if step is None or not log.actions_format:
        return _ALL
    if step.name == SETUP_STEP or log.lines[step.start].startswith("##[group]Run "):
        return _DONE
    return _STEP
