"""Reading a log back from its end until the failing step's first failure is in view, within a limit."""

from __future__ import annotations

from healer.diagnosis.readback import read_back, read_back_counted
from healer.logsource import MemoryLogSource, TailLogSource

KIB = 1024


def _stamp(lines: list[str]) -> bytes:
    return "".join(f"2026-11-03T10:02:11.0000000Z {line}\n" for line in lines).encode()


def _log(noise_lines: int) -> bytes:
    """A job log whose failing step prints its failure first, then ``noise_lines`` SKIPPED lines."""
    lines = ["##[group]Run ./gradlew test", "./gradlew test", "shell: /usr/bin/bash -e {0}", "##[endgroup]"]
    lines += ["OrderTest > setUp FAILED", "    java.lang.IllegalStateException: not migrated"]
    lines += [f"OrderTest > creates[{i}] SKIPPED" for i in range(noise_lines)]
    lines += ["BUILD FAILED in 2m", "##[error]Process completed with exit code 1."]
    return _stamp(["##[group]Run actions/checkout@v5", "##[endgroup]", "x" * 100] * 8000) + _stamp(lines)


class CountingSource(MemoryLogSource):
    def __init__(self, data: bytes) -> None:
        super().__init__(data)
        self.asked: list[tuple[int, int]] = []

    def read(self, start: int, end: int) -> bytes:
        self.asked.append((start, end))
        return super().read(start, end)


def test_a_short_failing_step_is_read_in_one_window() -> None:
    source = CountingSource(_log(10))
    tail = read_back(source, window=64 * KIB)
    assert len(source.asked) == 1
    assert "OrderTest > setUp FAILED" in tail.text
    assert tail.truncated


def test_reads_back_until_the_failing_steps_header_is_in_view() -> None:
    data = _log(20_000)  # the failure is about 1 MiB before the end
    source = CountingSource(data)
    result = read_back_counted(source, window=64 * KIB, limit=4 * 1024 * KIB)
    assert result.complete
    assert "not migrated" in result.tail.text
    assert "##[group]Run ./gradlew test" in result.tail.text
    # ranges are contiguous, backwards, each at most as large as what was read before it
    for (start, _), (next_start, next_end) in zip(source.asked, source.asked[1:], strict=False):
        assert next_end == start
        assert next_end - next_start <= len(data) - start
    assert result.tail.bytes_read < len(data)


def test_stops_at_the_read_limit() -> None:
    source = CountingSource(_log(200_000))  # the failure is about 10 MiB back
    result = read_back_counted(source, window=64 * KIB, limit=1024 * KIB)
    assert not result.complete
    assert result.tail.bytes_read == 1024 * KIB
    assert sum(end - start for start, end in source.asked) == 1024 * KIB
    assert "not migrated" not in result.tail.text


def test_a_source_that_holds_only_a_tail_ends_the_reading() -> None:
    data = _log(20_000)
    held = data[-100 * KIB :]
    source = TailLogSource(
        held, start=len(data) - len(held), size=len(data), complete=True, bytes_read=len(data)
    )
    result = read_back_counted(source, window=64 * KIB)
    assert result.tail.bytes_read == len(held)
    assert result.tail.truncated and not result.complete


def test_a_log_of_unknown_size_is_read_from_its_start_up_to_the_limit() -> None:
    source = MemoryLogSource(_log(5))
    source.size = None
    tail = read_back(source, limit=200 * KIB)
    assert tail.bytes_read == 200 * KIB
    assert tail.text.startswith("##[group]Run actions/checkout@v5") or "checkout" in tail.text[:200]
