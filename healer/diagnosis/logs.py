"""The job-log model: reading a bounded tail, and finding the steps, the failing step and its command.

A GitHub Actions job log is plain text, one line per output line, each prefixed with an ISO timestamp. The
runner adds its own markers: ``##[group]Run <command>`` opens a step (the echoed script follows, then
``shell:``/``env:``/``with:`` and ``##[endgroup]``), ``##[error]``/``##[warning]`` carry annotations, and a
failed ``run:`` step ends with ``##[error]Process completed with exit code N.``. A log that has none of
these markers (a plain tool output, or a window cut from the middle of a job) is one anonymous section, unless
another CI framed its commands (:mod:`healer.diagnosis.framing`: Travis, GitLab, CircleCI, Buildkite,
Jenkins; Azure Pipelines' task sections): then the failing command's output is the failing step.

What decides a failure is at the end of the log, so a file is read backwards from its end
(:func:`read_tail`) and a download stream keeps a bounded tail (:class:`TailBuffer`): the cost does not grow
with the log.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from healer.diagnosis.framing import azure_span, failing_span
from healer.logsource import (  # noqa: F401 - re-exported: the log model's readers know them from here
    DEFAULT_TAIL_BYTES,
    PARTIAL_LINE_KEEP,
    TailBuffer,
    decode_log,
)
from healer.model import LogTail

# The runner prefixes every line with an ISO-8601 UTC timestamp ("2024-05-01T12:00:00.1234567Z ").
# ``gh run view --log`` (and ``--log-failed``) puts the job's and the step's names before the timestamp,
# separated by tabs: ``build\tRun tests\t2024-01-01T00:00:00.0000000Z line``; both go with the timestamp.
# GitLab's runner, with job log timestamps (``FF_TIMESTAMPS``), writes the stream after the timestamp: two hex
# digits, ``O`` or ``E`` (standard output or error), and ``+`` when the line continues the one before
# (``2024-09-01T10:00:00.123456Z 00O $ pytest``); it goes with the timestamp too.
_TIMESTAMP = re.compile(
    r"^\ufeff?(?:[^\t\n]{1,300}\t[^\t\n]{0,300}\t\ufeff?)?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?"
    r"(?:[0-9a-f]{2}[OE]\+?(?: |$))?"
)
# a capture's line: the job's and the step's columns before the timestamp
_COLUMNS = re.compile(r"^\ufeff?[^\t\n]{1,300}\t[^\t\n]{0,300}\t\ufeff?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")
# Jenkins' Timestamper plugin: ``[2024-05-01T12:00:00.123Z] `` before each line of a Pipeline's console text,
# and ``12:00:00  `` (two spaces) in the console as the web page shows it, copied from there.
_CONSOLE_TIME = re.compile(r"^(?:\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z\] |\d\d:\d\d:\d\d  (?=\S))")
# CSI sequences (colours, cursor moves), the OSC hyperlinks some tools print, and the character-set
# designations (``ESC ( B``) that ncurses' sgr0 emits: mypy and ``tput`` end each coloured span with one.
_ANSI = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[ -/]{1,3}[0-~]|\x1b[@-Z\\-_]"
)
_EXIT_CODE = re.compile(r"^##\[error\]Process completed with exit code (-?\d+)\.?\s*$")
_STEP_HEADER = re.compile(r"^##\[group\]Run (.*)$")
# The keys the runner prints after the echoed script of a step, before ``##[endgroup]``.
_STEP_META = re.compile(r"^(?:shell|env|with):(?: |$)")
# Lines that end the user's steps: post-job hooks and the final cleanup.
_POST_MARKERS = ("Post job cleanup.", "Cleaning up orphan processes")
# The runner names the job in its set-up section ("Complete job name: test (3.12)"), matrix values included.
_JOB_NAME = re.compile(r"^Complete job name: (.{1,300})$")
# how far into a log its set-up section is looked for
_SETUP_LINES = 200
_RUNNER_HEADER = re.compile(
    r"^(?:Current runner version|Runner name|Job is waiting for a|Requested labels):? "
)

# The runner's own error lines (not a tool's ``::error`` annotations): the job or step died around the tool.
RUNNER_ERRORS = re.compile(
    r"^##\[error\](?:"
    r"The (?:action|job|step) .{0,200}? has timed out after"
    r"|The job running on runner .{0,200} has exceeded the maximum execution time"
    r"|The operation was canceled"
    r"|The runner has received a shutdown signal"
    r"|The self-hosted runner: .{0,200} lost communication"
    r"|The hosted runner: .{0,200} lost communication"
    r"|Received request to deprovision"
    r"|The job was not acquired by Runner"
    r"|Process completed with exit code"
    r"|Executing the custom container implementation failed"
    r"|received SIG[A-Z]+"
    r"|.{0,200}? lost communication with the server"
    r")",
    re.IGNORECASE,
)

# Lines longer than this are cut before any regex sees them: a minified bundle or a base64 blob on one line
# must not make matching slow.
MAX_LINE_CHARS = 4096
# The name the web UI gives to what the runner does before the first step.
SETUP_STEP = "Set up job"


@dataclass(frozen=True)
class Section:
    """One step of the job: the lines from its ``##[group]Run …`` header up to the next step.

    ``name`` is what the log shows (``Run pytest -q``), or ``Set up job`` for what precedes the first step.
    ``command`` is the echoed script (several lines for a multi-line ``run:``), or the action reference.
    """

    name: str
    start: int
    end: int  # exclusive
    command: str | None = None
    body_start: int = 0  # first line of output, after the echoed command and its ``##[endgroup]``


@dataclass(frozen=True)
class JobLog:
    """A parsed job log (or its tail): cleaned lines, steps, and what the runner said about the failure."""

    lines: tuple[str, ...]
    steps: tuple[Section, ...]
    failing_step: Section | None
    exit_code: int | None
    # indexes into ``lines`` of the runner's own ``##[error]`` lines (timeouts, cancellation, shutdown …)
    runner_errors: tuple[int, ...]
    # indexes of every ``##[error]`` line, the runner's and the tools' annotations alike
    error_lines: tuple[int, ...]
    truncated: bool = False
    # True when the runner's markers were seen: the log is a GitHub Actions job log
    actions_format: bool = False
    # another CI's phase that prepares the job (Travis's ``before_install``, ``install``, ``before_script``)
    phase: str | None = None
    # the runner's timestamp on the log's last stamped line (``2026-12-02T08:45:38``, UTC): when the job ended
    ended_at: str | None = None
    # a ``gh run view --log-failed`` capture: its lines carried the job's and the step's columns
    columns: bool = False

    @property
    def command(self) -> str | None:
        return self.failing_step.command if self.failing_step else None

    @property
    def step_name(self) -> str | None:
        return self.failing_step.name if self.failing_step else None

    def stops_mid_step(self) -> bool:
        """True when an Actions job log stops inside a user step with nothing of the step's or the job's end:
        no ``##[error]`` line, no exit code, no post-job lines. The runner sends the log as the job goes and
        writes those lines itself when a step ends; a runner that stopped answering ("The hosted runner: …
        lost communication with the server", GitHub's troubleshooting docs) sent nothing more."""
        last = self.steps[-1] if self.steps else None
        return (
            self.actions_format
            and last is not None
            and last.name.startswith("Run ")
            and last.body_start < last.end
            and self.exit_code is None
            and not self.error_lines
            # a step header the parser never saw closed holds the rest of the log: read its lines too
            and not any(
                line.startswith("##[error]") or line in _POST_MARKERS for line in self.lines[last.start :]
            )
        )

    def failing_lines(self) -> range:
        """The indexes of the failing step's output (the whole log when no step is known)."""
        if self.failing_step is None:
            return range(len(self.lines))
        return range(self.failing_step.body_start, self.failing_step.end)


def looks_binary(text: str) -> bool:
    """True when decoded text is mostly not text (replacement characters and control codes)."""
    sample = text[:65536]
    if not sample:
        return False
    bad = sum(1 for ch in sample if ch == "\ufffd" or (ch < " " and ch not in "\t\n\x1b\x0c\x08"))
    return bad * 10 > len(sample)


def read_tail(path: str | os.PathLike[str], max_bytes: int = DEFAULT_TAIL_BYTES) -> LogTail:
    """Read the last ``max_bytes`` of a file, seeking from its end so the cost does not grow with the file.

    Raises ``OSError`` (``FileNotFoundError``, ``IsADirectoryError`` …) for a path that cannot be read.
    """
    if max_bytes <= 0:
        raise ValueError("max_bytes must be positive")
    with Path(path).open("rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        start = max(0, size - max_bytes)
        handle.seek(start)
        data = handle.read(max_bytes)
    truncated = start > 0
    return LogTail(text=decode_log(data, truncated=truncated), bytes_read=len(data), truncated=truncated)


def clean_line(line: str) -> str:
    """One raw log line without its timestamp and ANSI codes, cut to :data:`MAX_LINE_CHARS`."""
    if len(line) > MAX_LINE_CHARS:
        line = line[:MAX_LINE_CHARS]
    line = _TIMESTAMP.sub("", line, count=1)
    if "\x1b" in line:
        line = _ANSI.sub("", line)
    if line[:1] == "[" or line[2:3] == ":":
        line = _CONSOLE_TIME.sub("", line, count=1)
    return line.rstrip()


def setup_section(lines: Iterable[str], limit: int = _SETUP_LINES) -> Iterator[str]:
    """The runner's set-up section at the log's start, cleaned: its lines before the first step's header, at
    most ``limit``. Nothing past it: a step's output may print anything. Empty when the start of the log is
    not in view (a log read back from its end)."""
    for n, raw in enumerate(lines):
        line = clean_line(raw)
        if n >= limit or _STEP_HEADER.match(line.lstrip()):
            return
        yield line


def job_name_in(text: str) -> str | None:
    """The job's name as the runner wrote it in the set-up section at the log's start (before the first
    step); None when the start is not in view (a log read back from its end) or the runner did not write
    it."""
    for line in setup_section(text.splitlines()):
        found = _JOB_NAME.match(line)
        if found:
            return found.group(1).strip() or None
    return None


def parse_log(text: str, *, truncated: bool = False) -> JobLog:
    """Parse a job log (or its tail) into lines, steps, the failing step, its command and exit code.

    Never raises on any text. The failing step is the step holding the last ``Process completed with
    exit code`` line; without one, the step of the runner's last own error line (timeout, cancellation,
    shutdown); without either, the step of the last ``##[error]`` line; else the last user step.
    """
    text = text.replace("\x00", "").replace("\r\n", "\n").replace("\r", "\n")
    raw_lines = text.split("\n")
    columns = bool(_COLUMNS.match(next((raw for raw in raw_lines if raw.strip()), "")))
    lines = tuple(clean_line(raw) for raw in raw_lines)
    if lines and lines[-1] == "":
        lines = lines[:-1]

    steps: list[Section] = []
    error_lines: list[int] = []
    runner_errors: list[int] = []
    exit_line: int | None = None
    exit_code: int | None = None
    markers = False

    current_name = ""  # what precedes the first step; "Set up job" once the runner's header is seen
    current_start = 0
    current_command: str | None = None
    body_start = 0
    in_header = False
    header_done = False
    header_cmd: list[str] = []

    def close(end: int) -> None:
        if end > current_start:
            steps.append(Section(current_name, current_start, end, current_command, min(body_start, end)))

    for index, line in enumerate(lines):
        if in_header:
            if line.startswith("##[endgroup]"):
                in_header = False
                body_start = index + 1
                if header_cmd:
                    current_command = "\n".join(header_cmd).strip("\n") or current_command
                continue
            if not header_done and _STEP_META.match(line):
                header_done = True
            if not header_done:
                header_cmd.append(line)
            continue
        header = _STEP_HEADER.match(line)
        if header:
            markers = True
            close(index)
            current_name = "Run " + header.group(1).strip()
            current_start = index
            current_command = header.group(1).strip() or None
            body_start = index + 1
            in_header = True
            header_done = False
            header_cmd = []
            continue
        if line in _POST_MARKERS:
            markers = True
            close(index)
            current_name = "Post job cleanup" if line.startswith("Post") else "Complete job"
            current_start = index
            current_command = None
            body_start = index + 1
            continue
        if line.startswith("##["):
            markers = True
            if line.startswith("##[error]"):
                error_lines.append(index)
                match = _EXIT_CODE.match(line)
                if match:
                    exit_line = index
                    exit_code = _parse_int(match.group(1))
                elif RUNNER_ERRORS.match(line):
                    runner_errors.append(index)
        elif not steps and current_start == 0 and _RUNNER_HEADER.match(line):
            markers = True
            current_name = SETUP_STEP
    close(len(lines))
    failing = _failing_step(steps, exit_line, runner_errors, error_lines)
    if markers and not any(step.name.startswith("Run ") for step in steps):
        span = azure_span(lines)  # Azure Pipelines' task sections: the Actions runner's ancestors
    else:
        span = None if markers else failing_span(lines)
    if span is not None:
        # another CI's frame (Travis, GitLab, CircleCI, Buildkite, Jenkins): its failing command is the step
        name = span.command.split("\n", 1)[0] if span.command else span.kind
        failing = Section(name[:300], span.start, span.end, span.command, span.start)
        steps, exit_code = [failing], span.exit_code
    return JobLog(
        lines=lines,
        steps=tuple(steps),
        failing_step=failing,
        exit_code=exit_code,
        runner_errors=tuple(runner_errors),
        error_lines=tuple(error_lines),
        truncated=truncated,
        actions_format=markers,
        phase=span.phase if span is not None else None,
        ended_at=_last_stamp(text),
        columns=columns,
    )


_STAMP = re.compile(r"(?:^|\t)\ufeff?(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.\d+)?Z ")


def _last_stamp(text: str, lines: int = 50) -> str | None:
    """The timestamp of the last of the log's final ``lines`` lines that has one; None without."""
    for raw in reversed(text[-200 * lines :].split("\n")[-lines:]):
        found = _STAMP.search(raw[:700])
        if found:
            return found.group(1)
    return None


def _parse_int(text: str) -> int | None:
    try:
        return int(text)
    except ValueError:  # pragma: no cover - the regex only lets digits through
        return None


def _step_at(steps: list[Section], index: int) -> Section | None:
    for step in steps:
        if step.start <= index < step.end:
            return step
    return None


def _is_user_step(step: Section) -> bool:
    return step.name not in ("Post job cleanup", "Complete job", SETUP_STEP)


def _failing_step(
    steps: list[Section], exit_line: int | None, runner_errors: list[int], error_lines: list[int]
) -> Section | None:
    if exit_line is not None:
        return _step_at(steps, exit_line)
    for candidates in (runner_errors, error_lines):
        for index in reversed(candidates):
            step = _step_at(steps, index)
            if step is not None and step.name not in ("Post job cleanup", "Complete job"):
                return step
    if error_lines:
        # every error is an action's post step's (setup-node saving its cache): the user's steps passed, and
        # the post step is what failed the job
        step = _step_at(steps, error_lines[-1])
        if step is not None and step.name == "Post job cleanup":
            return step
    user_steps = [step for step in steps if _is_user_step(step) and step.name]
    return user_steps[-1] if user_steps else None
