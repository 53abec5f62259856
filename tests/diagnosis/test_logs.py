"""The job-log model: reading a bounded tail, decoding, steps, the failing step, its command and exit code."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from healer.diagnosis.logs import (
    MAX_LINE_CHARS,
    PARTIAL_LINE_KEEP,
    SETUP_STEP,
    TailBuffer,
    clean_line,
    decode_log,
    looks_binary,
    parse_log,
    read_tail,
)

LOG = """\ufeff2024-05-01T10:00:00.0000000Z Current runner version: '2.317.0'
2024-05-01T10:00:00.0100000Z ##[group]Operating System
2024-05-01T10:00:00.0200000Z Ubuntu
2024-05-01T10:00:00.0300000Z ##[endgroup]
2024-05-01T10:00:01.0000000Z ##[group]Run actions/checkout@v4
2024-05-01T10:00:01.0100000Z with:
2024-05-01T10:00:01.0200000Z   repository: octo/app
2024-05-01T10:00:01.0300000Z ##[endgroup]
2024-05-01T10:00:01.0400000Z Syncing repository: octo/app
2024-05-01T10:00:02.0000000Z ##[group]Run set -eu
2024-05-01T10:00:02.0100000Z \x1b[36;1mset -eu\x1b[0m
2024-05-01T10:00:02.0200000Z \x1b[36;1mif [ -n "$X" ]; then\x1b[0m
2024-05-01T10:00:02.0300000Z \x1b[36;1m  make test\x1b[0m
2024-05-01T10:00:02.0400000Z \x1b[36;1mfi\x1b[0m
2024-05-01T10:00:02.0500000Z shell: /usr/bin/bash -e {0}
2024-05-01T10:00:02.0600000Z env:
2024-05-01T10:00:02.0700000Z   X: 1
2024-05-01T10:00:02.0800000Z ##[endgroup]
2024-05-01T10:00:03.0000000Z \x1b[31mFAIL\x1b[0m tests/a
2024-05-01T10:00:03.0100000Z ##[error]Process completed with exit code 2.
2024-05-01T10:00:03.0200000Z Post job cleanup.
2024-05-01T10:00:03.0300000Z Cleaning up orphan processes
"""


def test_steps_failing_step_command_and_exit_code() -> None:
    log = parse_log(LOG)
    assert [step.name for step in log.steps] == [
        SETUP_STEP,
        "Run actions/checkout@v4",
        "Run set -eu",
        "Post job cleanup",
        "Complete job",
    ]
    assert log.failing_step is not None and log.failing_step.name == "Run set -eu"
    # the echoed script, indentation kept, without the runner's shell/env metadata
    assert log.command == 'set -eu\nif [ -n "$X" ]; then\n  make test\nfi'
    assert log.steps[1].command == "actions/checkout@v4"
    assert log.exit_code == 2
    assert [log.lines[i] for i in log.failing_lines()] == [
        "FAIL tests/a",
        "##[error]Process completed with exit code 2.",
    ]
    assert log.actions_format


def test_timestamps_and_ansi_are_removed() -> None:
    assert clean_line("2024-05-01T10:00:03.0000000Z \x1b[1;31merror\x1b[0m: boom") == "error: boom"
    assert clean_line("2024-05-01T10:00:03Z plain") == "plain"
    # an OSC hyperlink as some tools print them
    assert clean_line("\x1b]8;;https://x.invalid\x07link\x1b]8;;\x07") == "link"


def test_the_runners_own_errors_are_told_apart_from_annotations() -> None:
    text = (
        "##[group]Run pytest\n##[endgroup]\n##[error]tests/a.py:3: boom\n"
        "##[error]The action 'Run tests' has timed out after 10 minutes.\n"
    )
    log = parse_log(text)
    assert [log.lines[i] for i in log.error_lines] == [
        "##[error]tests/a.py:3: boom",
        "##[error]The action 'Run tests' has timed out after 10 minutes.",
    ]
    assert [log.lines[i] for i in log.runner_errors] == [
        "##[error]The action 'Run tests' has timed out after 10 minutes."
    ]
    assert log.failing_step is not None and log.failing_step.name == "Run pytest"
    assert log.exit_code is None


def test_a_failure_before_the_first_step_is_in_set_up_job() -> None:
    text = "Current runner version: '2.317.0'\n##[error]Unable to resolve action `octo/nope@v9`\n"
    log = parse_log(text)
    assert log.failing_step is not None and log.failing_step.name == SETUP_STEP


def test_a_log_without_markers_is_one_anonymous_section() -> None:
    log = parse_log("collecting\nFAILED tests/a.py::t\n")
    assert log.failing_step is None
    assert not log.actions_format
    assert list(log.failing_lines()) == [0, 1]


@pytest.mark.parametrize(
    ("data", "text"),
    [
        pytest.param(b"a\r\nb\r\n", "a\nb\n", id="crlf"),
        pytest.param(b"a\rb", "a\nb", id="lone-cr"),
        pytest.param(b"a\x00b\x00", "ab", id="nul"),
        pytest.param(b"caf\xc3\xa9 \xff\xfe", "café \ufffd\ufffd", id="invalid-utf8"),
    ],
)
def test_decoding(data: bytes, text: str) -> None:
    assert decode_log(data) == text


def test_a_huge_cut_line_before_a_few_short_ones_keeps_its_end() -> None:
    # a minified bundle or a one-line JSON dump fills the window; the short lines after it say little alone
    data = b"x" * 10_000 + b" TypeError: boom\n##[error]Process completed with exit code 1.\n"
    text = decode_log(data, truncated=True)
    first, rest = text.split("\n", 1)
    assert first.startswith("\u2026") and first.endswith("TypeError: boom")
    assert len(first.encode()) <= PARTIAL_LINE_KEEP + 3
    assert rest == "##[error]Process completed with exit code 1.\n"


def test_a_truncated_tail_drops_its_partial_first_line() -> None:
    assert decode_log(b"tial line\nwhole line\n", truncated=True) == "whole line\n"
    # one huge line: its end is kept rather than nothing
    assert decode_log(b"no newline at all", truncated=True) == "no newline at all"


def test_read_tail_reads_only_the_end(tmp_path: Path) -> None:
    path = tmp_path / "job.log"
    path.write_bytes(b"".join(b"line %06d\n" % n for n in range(100_000)))
    tail = read_tail(path, max_bytes=1000)
    assert tail.truncated
    assert tail.bytes_read == 1000
    lines = tail.text.splitlines()
    assert lines[-1] == "line 099999"
    # the cut line was dropped, every kept line is whole
    assert all(len(line) == len("line 099999") for line in lines)


def test_read_tail_of_a_small_file_is_whole(tmp_path: Path) -> None:
    path = tmp_path / "job.log"
    path.write_bytes(b"first\r\nsecond\r\n")
    tail = read_tail(path)
    assert (tail.text, tail.bytes_read, tail.truncated) == ("first\nsecond\n", 15, False)


def test_read_tail_of_a_one_mebibyte_line(tmp_path: Path) -> None:
    path = tmp_path / "job.log"
    path.write_bytes(b"x" * (1 << 20))
    tail = read_tail(path, max_bytes=4096)
    # the only line started before the window: its end is kept, and the tail says it was cut
    assert (tail.text, tail.truncated) == ("x" * 4096, True)
    log = parse_log("y" * (1 << 20))
    assert len(log.lines) == 1 and len(log.lines[0]) == MAX_LINE_CHARS


@pytest.mark.parametrize(
    ("make", "error"),
    [
        pytest.param(lambda p: p / "missing.log", FileNotFoundError, id="missing"),
        pytest.param(lambda p: p, IsADirectoryError, id="directory"),
    ],
)
def test_read_tail_of_something_unreadable_raises_oserror(tmp_path: Path, make, error) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(error):
        read_tail(make(tmp_path))


def test_tail_buffer_keeps_a_bounded_tail() -> None:
    buffer = TailBuffer(max_bytes=100)
    for n in range(10_000):
        buffer.feed(b"chunk %05d\n" % n)
        assert buffer.held_bytes <= 200
    tail = buffer.result()
    assert tail.truncated and tail.bytes_read == 100
    assert tail.text.splitlines()[-1] == "chunk 09999"
    assert buffer.total_bytes == 120_000


def test_tail_buffer_agrees_with_read_tail(tmp_path: Path) -> None:
    data = b"".join(b"%d \xe2\x9c\x94 done\r\n" % n for n in range(5000))
    path = tmp_path / "job.log"
    path.write_bytes(data)
    buffer = TailBuffer(max_bytes=4096)
    for start in range(0, len(data), 777):
        buffer.feed(data[start : start + 777])
    assert buffer.result() == read_tail(path, max_bytes=4096)


def test_tail_buffer_of_a_short_stream_is_whole() -> None:
    buffer = TailBuffer(max_bytes=100)
    buffer.feed(b"only\n")
    assert buffer.result().truncated is False


@pytest.mark.parametrize(
    ("text", "binary"),
    [
        pytest.param("plain log\n" * 50, False, id="text"),
        pytest.param("\x1b[31mred\x1b[0m\tok\n", False, id="ansi-and-tab"),
        pytest.param(bytes(range(256)).decode("latin-1") * 10, True, id="all-bytes"),
        pytest.param(
            b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\xff\xd8".decode("utf-8", "replace") * 20, True, id="png"
        ),
        pytest.param("", False, id="empty"),
    ],
)
def test_looks_binary(text: str, binary: bool) -> None:
    assert looks_binary(text) is binary


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=2000))
def test_parse_log_never_raises(text: str) -> None:
    log = parse_log(text)
    assert all("\n" not in line for line in log.lines)
    if log.failing_step is not None:
        assert 0 <= log.failing_step.start <= log.failing_step.end <= len(log.lines)


@settings(max_examples=100, deadline=None)
@given(st.binary(max_size=2000), st.booleans())
def test_decode_log_never_raises(data: bytes, truncated: bool) -> None:
    assert "\x00" not in decode_log(data, truncated=truncated)
