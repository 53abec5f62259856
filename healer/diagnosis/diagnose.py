"""``healer diagnose``: classify job logs on disk (or piped in) and print what failed, offline.

Each log is read back from its end until the failing step's start is in view, within ``--read-limit``
(:mod:`healer.diagnosis.readback`), parsed and classified with the shipped rules plus any ``--rules`` file.
``-`` reads
standard input: a pipe cannot seek, so it is streamed once and only its last ``--read-limit`` bytes are kept.
A ``gh run view --log-failed`` capture of several jobs is reported job by job, the first real failure first.
A log that cannot be read is reported on stderr in one line and makes the exit status 1; the other logs are
still diagnosed.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from healer.diagnosis.bychanges import by_changes
from healer.diagnosis.capture import split_capture
from healer.diagnosis.classify import classify, diagnose_parts, failed_job
from healer.diagnosis.logs import DEFAULT_TAIL_BYTES, job_name_in, looks_binary
from healer.diagnosis.readback import read_back
from healer.diagnosis.rules import RuleError, RuleSet, load_rules
from healer.logsource import DEFAULT_READ_LIMIT, FileLogSource, LogSource, TailLogSource
from healer.model import Diagnosis, Evidence, LogTail

# Control characters other than tab would let a log rewrite the reader's terminal.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_SIZE = re.compile(r"^\s*(\d+)\s*(B|KiB|MiB|GiB|K|M|G|KB|MB|GB)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "b": 1, "k": 1024, "kb": 1024, "kib": 1024, "m": 1024**2, "mb": 1024**2, "mib": 1024**2}
_UNITS.update({"g": 1024**3, "gb": 1024**3, "gib": 1024**3})
STDIN = "-"
MAX_CHANGED = 3000  # GitHub lists at most 3,000 files of a pull request (`pulls/list-files`)
MAX_CHANGED_BYTES = 1024 * 1024
_CHUNK = 64 * 1024


class LogInputError(Exception):
    """A log that cannot be diagnosed (missing, a directory, empty, binary)."""


def byte_size(text: str) -> int:
    """``4194304``, ``512KiB``, ``8MiB`` or ``1GiB`` as a number of bytes (argparse type)."""
    found = _SIZE.match(text)
    if found is None or int(found.group(1)) <= 0:
        raise argparse.ArgumentTypeError(f"not a positive number of bytes: {text!r} (e.g. 4194304 or 8MiB)")
    return int(found.group(1)) * _UNITS[(found.group(2) or "").lower()]


def register(subparsers: Any) -> None:
    """Add the ``diagnose`` subcommand."""
    parser = subparsers.add_parser(
        "diagnose",
        help="classify job logs (files, or - for standard input) and print the diagnosis",
        description="Classify GitHub Actions job logs (or any CI log) and print category, rule, failing "
        "step, command, exit code and the decisive excerpt. `gh run view --log-failed | healer diagnose -` "
        "reports each failed job.",
    )
    parser.add_argument("logs", nargs="+", metavar="LOG", help="a job log file, or - for standard input")
    parser.add_argument("--json", action="store_true", help="print one JSON object per log (JSON Lines)")
    parser.add_argument(
        "--rules",
        action="append",
        default=[],
        metavar="FILE",
        help="a YAML file with a `rules:` list, tried before the shipped rules (repeatable)",
    )
    parser.add_argument(
        "--job",
        default=None,
        help="the job (check) name: for rules with a `job` condition, and a hint of the purpose "
        "(default: the name the runner wrote in the log's set-up, `Complete job name: …`)",
    )
    parser.add_argument(
        "--step",
        default=None,
        help="the failing step's name as the web UI shows it (e.g. 'Publish to PyPI'): its purpose",
    )
    parser.add_argument(
        "--workflow",
        default=None,
        help="the workflow's name (e.g. 'Release'): the weakest hint of the purpose",
    )
    parser.add_argument(
        "--changed",
        type=Path,
        default=None,
        metavar="FILE",
        help="the files the pull request changes, one path a line (`gh pr diff N --name-only`): a failed "
        "install, image pull or per-file check whose files it did not change is upstream's, as the action "
        "reads it",
    )
    parser.add_argument(
        "--read-limit",
        type=byte_size,
        default=DEFAULT_READ_LIMIT,
        help="read at most this much of each log, from its end (default 4MiB; e.g. 16MiB)",
    )
    parser.add_argument(
        "--max-bytes",
        type=int,
        default=DEFAULT_TAIL_BYTES,
        help=f"how much of each log's end to read first (default {DEFAULT_TAIL_BYTES})",
    )
    parser.set_defaults(func=run)


def run(
    args: argparse.Namespace,
    env: Mapping[str, str],
    *,
    out: TextIO | None = None,
    err: TextIO | None = None,
    stdin: BinaryIO | None = None,
) -> int:
    """Diagnose every log named in ``args``; 0 when all were diagnosed, 1 when any could not be read."""
    del env  # diagnosing is offline and reads no settings from the environment
    out = out or sys.stdout
    err = err or sys.stderr
    if args.max_bytes <= 0:
        print("healer diagnose: --max-bytes must be a positive number of bytes", file=err)
        return 2
    if args.logs.count(STDIN) > 1:
        print("healer diagnose: standard input (-) can be read only once", file=err)
        return 2
    try:
        rules = load_rules(files=args.rules)
    except RuleError as error:
        print(f"healer diagnose: invalid rules: {_printable(str(error))}", file=err)
        return 2
    changed: list[str] | None = None
    if args.changed is not None:
        try:
            changed = read_changed(args.changed)
        except (OSError, UnicodeDecodeError, ValueError) as error:
            print(f"healer diagnose: --changed {_printable(str(args.changed))}: {error}", file=err)
            return 2
    status = 0
    first = True
    for name in args.logs:
        shown = "<stdin>" if name == STDIN else name
        try:
            if name == STDIN:
                tail = read_stream(stdin or sys.stdin.buffer, limit=args.read_limit)
            else:
                tail = read_file(Path(name), window=args.max_bytes, limit=args.read_limit)
            results = diagnose_tail(tail, rules, job=args.job, step=args.step, workflow=args.workflow)
        except LogInputError as error:
            print(f"healer diagnose: {_printable(shown)}: {error}", file=err)
            status = 1
            continue
        lines = tail.text.splitlines() if changed is not None else []  # once per log, not per job
        for job, diagnosis in results:
            if changed is not None:
                diagnosis = by_changes(diagnosis, changed, lines)
            label = f"{shown} [{job}]" if job else shown
            if args.json:
                print(
                    json.dumps(to_json(shown, diagnosis, tail=tail, rules=rules), ensure_ascii=False),
                    file=out,
                )
            else:
                if not first:
                    print(file=out)
                print(render_text(label, diagnosis, rules=rules), file=out)
            first = False
    return status


def read_changed(path: Path) -> list[str]:
    """The changed files' paths of ``path``, one a line (blank lines left out); at most as many as GitHub
    lists for a pull request (3,000), and a file of text."""
    with path.open("rb") as fh:
        raw = fh.read(MAX_CHANGED_BYTES + 1)
    if len(raw) > MAX_CHANGED_BYTES:
        raise ValueError(f"over {MAX_CHANGED_BYTES} bytes: not a list of a pull request's files")
    paths = [line.strip() for line in raw.decode("utf-8").splitlines() if line.strip()]
    if len(paths) > MAX_CHANGED:
        raise ValueError(f"{len(paths)} paths: GitHub lists at most {MAX_CHANGED} files of a pull request")
    return paths


def read_file(path: Path, *, window: int = DEFAULT_TAIL_BYTES, limit: int = DEFAULT_READ_LIMIT) -> LogTail:
    """A log file read back from its end; raises :class:`LogInputError` with a one-line reason."""
    if path.is_dir():
        raise LogInputError("is a directory, not a log file")
    try:
        return _checked(read_back(FileLogSource(path), window=window, limit=limit))
    except FileNotFoundError:
        raise LogInputError("no such file") from None
    except IsADirectoryError:
        raise LogInputError("is a directory, not a log file") from None
    except PermissionError:
        raise LogInputError("permission denied") from None
    except OSError as error:
        raise LogInputError(f"cannot be read ({error.strerror or error.__class__.__name__})") from None


def read_stream(stream: BinaryIO, *, limit: int = DEFAULT_READ_LIMIT) -> LogTail:
    """A piped log: streamed once, keeping only its last ``limit`` bytes (memory stays under twice that)."""

    def chunks() -> Iterator[bytes]:
        while chunk := stream.read(_CHUNK):
            yield chunk

    try:
        source: LogSource = TailLogSource.from_chunks(chunks(), keep=limit, stream_limit=2**62)
    except OSError as error:
        raise LogInputError(f"cannot be read ({error.strerror or error.__class__.__name__})") from None
    return _checked(read_back(source, window=limit, limit=limit))


def _checked(tail: LogTail) -> LogTail:
    if tail.bytes_read == 0:
        raise LogInputError("is empty")
    if looks_binary(tail.text):
        raise LogInputError("holds binary data, not a text log")
    if not tail.text.strip():
        raise LogInputError("holds no text (only blank lines or NUL bytes)")
    return tail


def diagnose_tail(
    tail: LogTail,
    rules: RuleSet,
    *,
    job: str | None = None,
    step: str | None = None,
    workflow: str | None = None,
) -> list[tuple[str | None, Diagnosis]]:
    """The diagnosis of a log, or of each job of a ``gh run view --log-failed`` capture (the first real
    failure first; each job's and failing step's names come from the capture's columns, as the action has
    them from the Jobs API). ``job``, ``step``, ``workflow``: the names of a plain job log; without ``job``,
    the name the runner wrote in the log's set-up section."""
    parts = split_capture(tail.text)
    if len(parts) > 1 or (parts and job is None and step is None):
        jobs = diagnose_parts(tail.text, parts, rules, truncated=tail.truncated, workflow=workflow)
        return [(name, diagnosis) for name, diagnosis in jobs]
    # a plain job log names its job in the runner's set-up section: the offline reading gets the name the
    # action has from the Jobs API
    job = job or job_name_in(tail.text)
    return [(None, classify(Evidence(job=failed_job(job or "", step), log=tail), rules, workflow=workflow))]


def diagnose_file(
    path: Path,
    rules: RuleSet,
    *,
    job: str | None = None,
    step: str | None = None,
    workflow: str | None = None,
    max_bytes: int = DEFAULT_TAIL_BYTES,
) -> Diagnosis:
    """Read a log file back from its end and classify it (the first real failure of a capture)."""
    tail = read_file(path, window=max_bytes)
    return diagnose_tail(tail, rules, job=job, step=step, workflow=workflow)[0][1]


def _description(rules: RuleSet | None, diagnosis: Diagnosis) -> str:
    """The rule's description; a diagnosis without a rule (or whose category was derived) says its own."""
    rule = rules.get(diagnosis.rule) if rules is not None else None
    text = diagnosis.description or (rule.description if rule is not None else "")
    return " ".join(text.split())


def to_json(
    name: str, diagnosis: Diagnosis, *, tail: LogTail | None = None, rules: RuleSet | None = None
) -> dict[str, Any]:
    """The JSON form of one diagnosis."""
    record = {
        "log": name,
        "job": diagnosis.job,
        "category": diagnosis.category.value,
        "confidence": diagnosis.confidence,
        "rule": diagnosis.rule,
        "description": _description(rules, diagnosis),
        "owner": diagnosis.owner.value,
        "purpose": diagnosis.purpose or None,
        "action": diagnosis.action.value,
        "rerun_first": diagnosis.rerun_first,
        "decided_by": dict(diagnosis.decided_by),
        "step": diagnosis.step,
        "command": diagnosis.command,
        "exit_code": diagnosis.exit_code,
        "fix_commands": list(diagnosis.fix_commands),
        "test_ids": list(diagnosis.test_ids),
        "decisive": list(diagnosis.decisive),
        "excerpt": list(diagnosis.excerpt),
    }
    if tail is not None:
        record["bytes_read"] = tail.bytes_read
        record["truncated"] = tail.truncated
    return record


def _printable(text: str) -> str:
    return _CONTROL.sub("?", text)


def render_text(name: str, diagnosis: Diagnosis, *, rules: RuleSet | None = None) -> str:
    """A readable diagnosis. Log text is prefixed with ``| ``: inside a workflow, a line of the log that
    starts with ``::`` must not reach the runner as a workflow command. The decisive lines are marked with
    ``>`` in the margin."""
    lines = [
        f"{_printable(name)}: {diagnosis.category.value} (rule {diagnosis.rule}, "
        f"confidence {diagnosis.confidence:.2f}) → {diagnosis.action.value}"
    ]
    purpose = f", the step is for {diagnosis.purpose}" if diagnosis.purpose else ""
    lines.append(f"  owner:     {diagnosis.owner.value}{purpose}")
    for stage, words in diagnosis.decided_by:
        lines.append(f"  {stage + ':':<10} {_printable(words)}")
    description = _description(rules, diagnosis)
    if description:
        lines.append(f"  why:       {_printable(description)}")
    if diagnosis.step:
        lines.append(f"  step:      | {_printable(diagnosis.step)}")
    if diagnosis.command:
        command = diagnosis.command.splitlines()
        lines.append(f"  command:   | {_printable(command[0])}")
        lines.extend(f"             | {_printable(part)}" for part in command[1:6])
        if len(command) > 6:
            lines.append(f"             | … ({len(command) - 6} more lines)")
    if diagnosis.exit_code is not None:
        lines.append(f"  exit code: {diagnosis.exit_code}")
    for fix in diagnosis.fix_commands:
        lines.append(f"  fix:       {fix}")
    for test_id in diagnosis.test_ids:
        lines.append(f"  failed:    | {_printable(test_id)}")
    if diagnosis.excerpt:
        lines.append("  excerpt (> marks the decisive lines):")
        decisive = set(diagnosis.decisive)
        lines.extend(
            f"  {'>' if line in decisive else ' '} | {_printable(line)}" for line in diagnosis.excerpt
        )
    return "\n".join(lines)
