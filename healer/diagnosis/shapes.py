"""Failure evidence by its shape: which lines of a failing command's output say what went wrong, in any
language.

A rule knows one tool's words; these shapes know how tools in general print a failure: error and failure
words as tools print them (``error:``, ``ERROR!``, ``[error]``, ``FAILED``, ``failed on line 5``), a
``file:line[:col]`` reference with an error after it, assertion shapes (expected/actual, ``not ok``, ``✗``,
``FAIL``), exception, panic and traceback headers, compiler diagnostics and "N failed" summaries. Each line
gets a strength (0: no evidence; 1: weak, a consequence such as ``make: *** Error 2``; 2: an error; 3: a
failure's own report) and, when its shape says so, a category hint (a compiler diagnostic is ``build``,
"3 examples, 1 failure" is ``test``).

What looks like a failure but is not one is recognised first: warnings (``[WARN]``, ``warning:``), "0 failed",
a passing test whose name holds the word *error*, compiler flags such as ``-Werror``, file names such as
``errors.go``, and the shell's echo of a command (``$ …``, ``+ …``).

Cheap by design: one combined expression rules out most lines before any of the shapes is tried.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from healer.diagnosis.shapetable import SHAPES
from healer.model import Category

# Most lines hold none of these words (looked for in the lower-cased line, as plain substrings: one
# case-insensitive alternation of them costs ten times more) nor these shapes: they are not read further.
_WORDS = (
    "err",
    "fail",
    "fatal",
    "exception",
    "panic",
    "traceback",
    "abort",
    "assert",
    "expected",
    "not ok",
    "denied",
    "not found",
    "no such",
    "cannot",
    "can't",
    "could not",
    "couldn't",
    "unable",
    "invalid",
    "missing",
    "undefined",
    "unknown",
    "unavailable",
    "not available",
    "not installed",
    "segmentation",
    "core dumped",
    "killed",
    "timed out",
    "time out",
    "timeout",
    "crash",
    "refused",
    "unresolved",
    "conflict",
    "violation",
    "problem",
    "illegal",
    "unexpected",
    "✗",
    "✖",
    "×",
    "❌",
    "⨯",
    "✘",
    "offence",
    "offense",
    "incorrect",
    "mismatch",
    "wrong",
    "doesn't",
    "does not",
    "did not",
    "didn't",
    "no version",
    "not supported",
    "unsupported",
    "require",
    "diff",
    "--- ",
    "+++ ",
    "reformat",
    "not formatted",
    "too long",
    "unhealthy",
    "health",
    "issues found",
    "issue found",
    " • ",
    "formatter would",
    "updates to go.",
    "not tidy",
    "requirements could not",
    "keystore",
    "code style issues",
    "exceed",
    "budget",
    "longer than",
    "trailing whitespace",
    "trailing spaces",
    "final newline",
    "formatting",
    " found",
    "not defined",
    "not allowed",
    "not permitted",
    "rejected",
    "unrecogni",
    "provided but",
    "dubious",
    "pars",
    "scanning",
    "syntax",
    "on line ",
)
_CODE = re.compile(r"\bE\d{3}\b")  # flake8's E501
_LINE_COL = re.compile(r"\s*\d+:\d+\s")  # stylelint's and eslint's "12:5  ✖ …"
# a numbered failure report (ExUnit's, mocha's "  1) …") and a linter's "file:line[:col]: CODE"
_STRUCTURE = re.compile(r"\s*\d+\) \S|\s*\S+?:\s?\d+(?::\d+)?:?\s+(?:[A-Z]{1,4}\d{2,4}\b|[A-Z]\w+/)")
# Shapes are read in a line's first characters only: what a long line says is at its start.
SHAPE_CHARS = 600


def candidates(lines: Sequence[str], scope: Iterable[int]) -> list[int]:
    """The indexes of ``scope`` whose line may be evidence, found in one pass per word over the scope's
    lower-cased text (a plain substring search, far cheaper than testing each line for each word)."""
    indexes = list(scope)
    texts = [lines[i][:SHAPE_CHARS] for i in indexes]
    block = "\n".join(texts).lower()
    starts = []
    offset = 0
    for text in texts:
        starts.append(offset)
        offset += len(text) + 1
    marked: set[int] = set()
    for word in _WORDS:
        at = block.find(word)
        while at != -1:
            n = bisect_right(starts, at) - 1
            marked.add(n)
            # the rest of this line is marked already: go on from the next one
            at = block.find(word, starts[n + 1]) if n + 1 < len(starts) else -1
    for n, text in enumerate(texts):
        if n not in marked and _shaped(text):
            marked.add(n)
    return [indexes[n] for n in sorted(marked)]


def _candidate(line: str) -> bool:
    low = line.lower()
    if any(word in low for word in _WORDS):
        return True
    return _shaped(line)


def _shaped(line: str) -> bool:
    if line.startswith("E ") or ("E" in line and _CODE.search(line) is not None):
        return True
    return bool(_LINE_COL.match(line) or _STRUCTURE.match(line))


# Lines that look like failures and are not (checked before the shapes).
_NOT_EVIDENCE = re.compile(
    r"(?i)^\s*(?:\[(?:warn(?:ing)?|info|debug|notice)\](?!.*\bcode style issues\b)"
    r"|warn(?:ing)?\b[:!]?|w:|info\b|debug\b"
    r"|note: (?!.*error))"
    r"|\bwarning\b(?![^:]{0,40}treated as errors?)(?!.*\berror\b)"
    r"|(?<![\d.])0 (?:errors?|failures?|failed|failing)\b(?!.*\b[1-9]\d* (?:errors?|failures?|failed))"
    r"|\b(?:no|zero) (?:errors?|failures?|offen[cs]es|problems)\b(?: found| detected)?\s*\.?$"
    r"|\.{2,} ?skipped\b|\bskipping\b|^\s*skipped\b|\.\.\. ?ok$|(?<!not )\bok \d+\b(?! - .*# TODO)"
    r"|(?-i:\bPASS(?:ED)?\b)(?!.*\bfail)|✓|✔"
    r"|^(?!.*\b(?:fail|error)).*\bpassed\b"
    r"|^\s*(?:\$|\+{1,3}) \S|^\s*>\s*\S+ --|-Werror|-Wno-error|--no-?fail|--fail-fast|allow_failures"
    r"|^\s*(?:Downloading|Downloaded|Fetching|Installing|Collecting|Requirement already|Unpacking|Setting up"
    r"|Preparing|Selecting|Get:\d|Hit:\d|Ign:\d|Reading|Building wheel|Compiling|Checking|Running setup)\b"
)

# Lines that frame the output rather than explain it: a CI's or a script runner's closing words.
FRAMING = re.compile(
    r"^(?:##\[error\])?Process completed with exit code|^The command \".*\" (?:failed and )?exited with"
    r"|^Done\. Your build exited with|^ERROR: Job failed|^(?:npm ERR!|npm error) (?:code|errno|A complete log"
    r"|This is probably not a problem|Failed at the|Exit status|\s*$|npm ERR!\s*$)"
    r"|^error Command failed with exit code|^info Visit https://yarnpkg|ELIFECYCLE|^make(?:\[\d+\])?: \*\*\*"
    r"|^\s*(?:Error: )?Process exited with|^Exited with code|^Script failed|exit status \d+$"
    # an action's own summary of the tool it ran (@actions/exec's words), not the tool's cause line
    r"|^(?:##\[error\]|Error: )?The process '[^']{1,300}' failed with exit code -?\d+\s*$"
)


@dataclass(frozen=True)
class Evidence:
    """One line's evidence: its index in the log, how telling it is (1–3), and the category its shape
    implies, when one does."""

    index: int
    strength: int
    category: Category | None


_XTRACE = re.compile(r"^\++ ?")


def read_line(line: str, *, candidate: bool = False) -> tuple[int, Category | None]:
    """The strength (0 when the line is no evidence) and the category hint of one cleaned log line
    (``candidate``: :func:`candidates` already found it worth reading)."""
    line = line[:SHAPE_CHARS]
    if not candidate and not _candidate(line):
        return 0, None
    trace = _XTRACE.match(line)
    if trace:
        # the shell's trace of a command (set -x) is the command, not its output; a message the trace
        # shows (``+ ERROR! checksum did not match``) is read as the message
        line = line[trace.end() :]
        if not line[:1].isupper():
            return 0, None
    if FRAMING.search(line):
        return 0, None
    if _NOT_EVIDENCE.search(line):
        return 0, None
    low = line.lower()
    for shape in SHAPES:
        if shape.found(line, low):
            return shape.strength, shape.category
    return 0, None
