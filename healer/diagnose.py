"""``healer diagnose``: classify job logs on disk and print what failed, offline.

Each log is read from its end (a bounded tail), parsed and classified with the shipped rules plus any
``--rules`` file. A log that cannot be read is reported on stderr in one line and makes the exit status 1;
the other logs are still diagnosed.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TextIO

from healer.classify import classify
from healer.logs import DEFAULT_TAIL_BYTES, looks_binary, read_tail
from healer.model import Diagnosis, Evidence, Job
from healer.rules import RuleError, load_rules

# Control characters other than tab would let a log rewrite the reader's terminal.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


class LogInputError(Exception):
    """A log file that cannot be diagnosed (missing, a directory, empty, binary)."""


def register(subparsers: Any) -> None:
    """Add the ``diagnose`` subcommand."""
    parser = subparsers.add_parser(
        "diagnose",
        help="classify job logs on disk and print the diagnosis",
        description="Classify GitHub Actions job logs (or any CI log) and print category, rule, failing "
        "step, command, exit code and the decisive excerpt.",
    )
    parser.add_argument("logs", nargs="+", metavar="LOG", help="a job log file")
    parser.add_argument("--json", action="store_true", help="print one JSON object per log (JSON Lines)")
    parser.add_argument(
        "--rules",
        action="append",
        default=[],
        metavar="FILE",
        help="a YAML file with a `rules:` list, tried before the shipped rules (repeatable)",
    )
    parser.add_argument("--job", default=None, help="the job (check) name, for rules with a `job` condition")
    parser.add_argument(
        "--max-bytes",
        type=int,
        default=DEFAULT_TAIL_BYTES,
        help=f"how much of each log's end to read (default {DEFAULT_TAIL_BYTES})",
    )
    parser.set_defaults(func=run)


def run(
    args: argparse.Namespace, env: Mapping[str, str], *, out: TextIO | None = None, err: TextIO | None = None
) -> int:
    """Diagnose every log named in ``args``; 0 when all were diagnosed, 1 when any could not be read."""
    del env  # diagnosing is offline and reads no settings from the environment
    out = out or sys.stdout
    err = err or sys.stderr
    if args.max_bytes <= 0:
        print("healer diagnose: --max-bytes must be a positive number of bytes", file=err)
        return 2
    try:
        rules = load_rules(files=args.rules)
    except RuleError as error:
        print(f"healer diagnose: invalid rules: {_printable(str(error))}", file=err)
        return 2
    status = 0
    first = True
    for name in args.logs:
        try:
            diagnosis = diagnose_file(Path(name), rules, job=args.job, max_bytes=args.max_bytes)
        except LogInputError as error:
            print(f"healer diagnose: {_printable(name)}: {error}", file=err)
            status = 1
            continue
        if args.json:
            print(json.dumps(to_json(name, diagnosis), ensure_ascii=False), file=out)
        else:
            if not first:
                print(file=out)
            print(render_text(name, diagnosis), file=out)
        first = False
    return status


def diagnose_file(
    path: Path, rules: Any, *, job: str | None = None, max_bytes: int = DEFAULT_TAIL_BYTES
) -> Diagnosis:
    """Read a log file's tail and classify it; raises :class:`LogInputError` with a one-line reason."""
    if path.is_dir():
        raise LogInputError("is a directory, not a log file")
    try:
        tail = read_tail(path, max_bytes)
    except FileNotFoundError:
        raise LogInputError("no such file") from None
    except IsADirectoryError:
        raise LogInputError("is a directory, not a log file") from None
    except PermissionError:
        raise LogInputError("permission denied") from None
    except OSError as error:
        raise LogInputError(f"cannot be read ({error.strerror or error.__class__.__name__})") from None
    if tail.bytes_read == 0:
        raise LogInputError("is empty")
    if looks_binary(tail.text):
        raise LogInputError("holds binary data, not a text log")
    if not tail.text.strip():
        raise LogInputError("holds no text (only blank lines or NUL bytes)")
    record = Job(id=0, name=job or "", status="completed", conclusion="failure")
    return classify(Evidence(job=record, log=tail), rules)


def to_json(name: str, diagnosis: Diagnosis) -> dict[str, Any]:
    """The JSON form of one diagnosis."""
    return {
        "log": name,
        "category": diagnosis.category.value,
        "confidence": diagnosis.confidence,
        "rule": diagnosis.rule,
        "action": diagnosis.action.value,
        "step": diagnosis.step,
        "command": diagnosis.command,
        "exit_code": diagnosis.exit_code,
        "fix_commands": list(diagnosis.fix_commands),
        "test_ids": list(diagnosis.test_ids),
        "decisive": list(diagnosis.decisive),
        "excerpt": list(diagnosis.excerpt),
    }


def _printable(text: str) -> str:
    return _CONTROL.sub("?", text)


def render_text(name: str, diagnosis: Diagnosis) -> str:
    """A readable diagnosis. Log text is prefixed with ``| ``: inside a workflow, a line of the log that
    starts with ``::`` must not reach the runner as a workflow command."""
    lines = [
        f"{_printable(name)}: {diagnosis.category.value} (rule {diagnosis.rule}, "
        f"confidence {diagnosis.confidence:.2f}) → {diagnosis.action.value}"
    ]
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
        lines.append("  excerpt:")
        lines.extend(f"    | {_printable(line)}" for line in diagnosis.excerpt)
    return "\n".join(lines)
