"""A failure's signature: what stays the same when the same failure happens in two runs.

Two runs of one failure (on a pull request and on its base branch, a day apart, on other runners) differ in
timestamps, durations, line numbers, temporary paths, commit hashes and ids. :func:`mask_line` replaces
those by placeholders; :func:`failure_signature` is a short digest of the rule and the masked decisive lines
(or, when the rule marked none, the masked excerpt), so that equal signatures mean "the same failure" and a
pull request that adds a failure of its own to the base branch's one gets a different signature.
"""

from __future__ import annotations

import hashlib
import re

from healer.model import Diagnosis

# Applied in this order: a timestamp before the numbers in it, a path before the hashes in its folder names.
_MASKS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\x1b\[[0-9;?]*[A-Za-z]"), ""),  # ANSI colours
    # the runner's line prefix and any ISO 8601 time (2026-01-01T12:00:00.1234567Z, 2026-01-01 12:00:00)
    (re.compile(r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?"), "<time>"),
    (re.compile(r"\b\d\d:\d\d:\d\d(?:[.,]\d+)?\b"), "<time>"),
    (re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"), "<id>"),
    # checkouts and temporary folders: /home/runner/work/<repo>/<repo>/, D:\a\<repo>\<repo>\, /tmp/xyz/
    (re.compile(r"(?:/home/runner/work|/Users/runner/work|/__w)/[^/\s]+/[^/\s]+/"), "<checkout>/"),
    (re.compile(r"[A-Za-z]:\\a\\[^\\\s]+\\[^\\\s]+\\"), "<checkout>/"),
    (
        re.compile(r"(?:/tmp|/var/folders|/private/var/folders|\$RUNNER_TEMP|/home/runner/work/_temp)/\S*"),
        "<tmp>",
    ),
    (re.compile(r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,64}\b"), "<hash>"),
    (re.compile(r"\b0x[0-9a-fA-F]+\b"), "<addr>"),
    (re.compile(r"\d+(?:\.\d+)?"), "<n>"),
    (re.compile(r"\s+"), " "),
)
MAX_SIGNATURE_LINES = 40  # decisive lines kept in the digest (the excerpt is bounded already)


def mask_line(line: str) -> str:
    """``line`` with its volatile parts (times, ids, paths, hashes, numbers) replaced by placeholders."""
    for pattern, placeholder in _MASKS:
        line = pattern.sub(placeholder, line)
    return line.strip()


def signature_lines(diagnosis: Diagnosis) -> tuple[str, ...]:
    """The masked lines a signature is made of: the decisive lines, or the excerpt when there are none."""
    lines = diagnosis.decisive or diagnosis.excerpt
    masked = (mask_line(line) for line in lines)
    return tuple(line for line in masked if line)[:MAX_SIGNATURE_LINES]


def failure_signature(diagnosis: Diagnosis) -> str:
    """A 16-hex digest of the rule and the masked decisive lines: equal for two runs of one failure."""
    text = "\n".join((diagnosis.rule, *signature_lines(diagnosis)))
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def same_failure(one: Diagnosis, other: Diagnosis) -> bool:
    """Whether two diagnoses are one failure: the same rule and the same signature."""
    return one.rule == other.rule and failure_signature(one) == failure_signature(other)
