"""The tail of a job's log as text, for the evidence: the last window read from a :class:`BlobLogSource`.

The window is the last ``keep_bytes`` (at most 256 KiB) of the log. With a blob store that honours ranges
that costs the first range (:data:`~healer.github.blob.FIRST_READ`, which also gives the size) and the
window: a 41 MiB log moves 320 KiB. A cut is said in the first line of the text.
"""

from __future__ import annotations

from healer.github.blob import BlobLogSource
from healer.github.transport import Transport
from healer.logsource import DEFAULT_READ_LIMIT, STREAM_LIMIT, decode_log
from healer.model import LogTail

LOG_READ_LIMIT = STREAM_LIMIT  # a body sent whole is streamed at most this far (or the read limit)
LOG_KEEP_LIMIT = 256 * 1024  # at most this many bytes kept, whatever keep_bytes asks
LOG_CUT_PREFIX = "[ci-healer] log cut:"


def download_log_tail(
    client: Transport, job_id: int, keep_bytes: int = LOG_KEEP_LIMIT, read_limit: int = DEFAULT_READ_LIMIT
) -> LogTail:
    """The tail of a job's log, at most ``keep_bytes`` (capped at 256 KiB) of it; ``read_limit`` bounds the
    bytes moved (a server that ignores ``Range`` is streamed up to the larger of it and 32 MiB)."""
    keep = max(1, min(keep_bytes, LOG_KEEP_LIMIT))
    source = BlobLogSource(client, job_id, limit=max(read_limit, keep), stream_limit=LOG_READ_LIMIT)
    fallback = source.fallback
    if fallback is not None:
        start, end = max(fallback.span[0], fallback.span[1] - keep), fallback.span[1]
    else:
        size = source.size or 0
        start, end = max(0, size - keep), size
    window = source.read(start, end)
    truncated = start > 0
    # the first kept line is probably partial: decode_log drops it (or keeps the end of a huge one)
    text = decode_log(window, truncated=truncated)
    stopped = fallback is not None and not fallback.complete
    if not truncated and not stopped:
        return LogTail(text=text, bytes_read=source.bytes_read, truncated=False)
    kept = len(text.encode("utf-8", errors="replace"))
    of = f"{source.size:,}" if source.size is not None else "an unknown number of"
    note = f"{LOG_CUT_PREFIX} kept the last {kept:,} bytes of {of}"
    if stopped:
        note = (
            f"{LOG_CUT_PREFIX} kept {kept:,} bytes ending at byte {end:,} of {of}: the server sent the whole "
            f"log and reading stopped at {source.bytes_read // 2**20} MiB, so its end is missing"
        )
    return LogTail(text=f"{note}\n{text}", bytes_read=source.bytes_read, truncated=True)
