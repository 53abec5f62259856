import pytest

from healer.logsource import (
    FileLogSource,
    LogSource,
    MemoryLogSource,
    TailLogSource,
    parse_content_range,
    unsatisfied_size,
)

LOG = b"".join(b"line %04d\n" % i for i in range(1000))  # 10,000 bytes


def test_file_source_reads_only_the_range(tmp_path):
    path = tmp_path / "job.log"
    path.write_bytes(LOG)
    source = FileLogSource(path)
    assert isinstance(source, LogSource)
    assert source.size == len(LOG)
    assert source.read(10, 20) == b"line 0001\n"
    assert source.read(len(LOG) - 10, len(LOG) + 500) == b"line 0999\n"  # past the end: fewer bytes
    assert source.read(-5, 10) == b"line 0000\n"
    assert source.read(30, 20) == b""


def test_memory_source_is_a_log_source():
    source = MemoryLogSource(LOG)
    assert isinstance(source, LogSource)
    assert (source.size, source.read(9990, 10_000)) == (10_000, b"line 0999\n")


def chunks(data: bytes, size: int = 777):
    return (data[i : i + size] for i in range(0, len(data), size))


def test_tail_source_serves_only_its_retained_tail():
    source = TailLogSource.from_chunks(chunks(LOG), keep=100, stream_limit=1 << 20)
    assert source.complete and source.size == len(LOG) and source.bytes_read == len(LOG)
    assert source.span == (9900, 10_000)
    assert source.read(9990, 10_000) == b"line 0999\n"
    assert source.read(9800, 9910) == b"line 0990\n"  # only the part it holds
    assert source.read(0, 100) == b""


def test_tail_source_stops_at_the_stream_limit_and_says_the_end_is_missing():
    source = TailLogSource.from_chunks(chunks(LOG), keep=50, stream_limit=4000, size=len(LOG))
    assert not source.complete and source.bytes_read == 4000
    assert source.span == (3950, 4000) and source.size == len(LOG)
    assert source.read(len(LOG) - 10, len(LOG)) == b""  # the end of the log was never read


def test_tail_source_of_an_unknown_length_stream_that_stopped_has_no_size():
    source = TailLogSource.from_chunks(chunks(LOG), keep=50, stream_limit=4000)
    assert source.size is None and not source.complete


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        pytest.param("bytes 0-0/41943040", (0, 0, 41943040), id="probe"),
        pytest.param("bytes 100-199/*", (100, 199, None), id="unknown-size"),
        pytest.param("bytes */200", None, id="unsatisfied"),
        pytest.param("", None, id="missing"),
        pytest.param("items 0-1/2", None, id="other-unit"),
    ],
)
def test_content_range(header, expected):
    assert parse_content_range(header) == expected


def test_unsatisfied_size():
    assert unsatisfied_size("bytes */0") == 0
    assert unsatisfied_size("bytes 0-0/1") is None
