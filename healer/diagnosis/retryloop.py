"""A retry loop in the step's own script, and the line it prints for each attempt.

A workflow may retry its tests itself, with no wrapper action: a shell loop over attempt numbers whose body
runs the tests and says which attempt this is::

    for i in 1 2 3; do
      echo "attempt $i/3"
      go test ./... && exit 0
    done
    exit 1

The loop counts (``for i in 1 2 3``, ``{1..3}``, ``$(seq 3)``) and its body uses the count only in what it
echoes and in a test of whether to try again (``[ $i -lt 3 ] && sleep 15``), so every pass runs the same
command on the same checkout. Each echoed line (``attempt 1/3``; the
workflow command ``::group::attempt $i`` prints as ``##[group]attempt 1``) marks an attempt, before or after
the tests' output, whichever way the body orders them: that is how such a step is cut into its attempts when
its test runner prints neither a header nor totals the same way each run
(:func:`healer.diagnosis.retries.read_runs`). A loop over anything else (packages, shards, Python versions)
runs something different each pass and is not read; nor is a body that uses the count in its commands
(``-run Shard$i``).

Pure: the script and lines in, attempts out.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from healer.diagnosis.logs import clean_line

# a counting `for` loop of a POSIX shell script, and its body
_COUNTING_LOOP = re.compile(
    r"\bfor (?P<var>[A-Za-z_]\w{0,30}) in (?:\d+(?: +\d+)+|\{\d+\.\.\d+\}|\$\(seq(?: +\d+){1,2}\))"
    r"\s*;?\s*do\b(?P<body>.{1,2000}?)\bdone\b",
    re.S,
)
# a double-quoted echo (single quotes expand no variable), and what a body may echo around the count
_ECHO = re.compile(r'\becho (?:-e )?"(?P<text>[^"\n]{1,200})"')
# a shell test that compares the count with a number (`[ $i -lt 3 ]`): whether to wait and try again
_TEST = re.compile(r'\[\[? "?\$\{?\w+\}?"? -(?:lt|le|eq|ne|gt|ge) \d+ \]\]?')
_OTHER_VARIABLE = re.compile(r"\\\$(?:\\\{\w+\\\}|\w+|\\\(\\\(.*?\\\)\\\))")
_GROUP = "::group::"


def loop_marks(command: str) -> re.Pattern[str] | None:
    """The line the step's counting retry loop echoes for each attempt, as an expression the log's lines
    (timestamps cut) match whole; None when the script has no such loop."""
    if "for " not in command or (loop := _COUNTING_LOOP.search(command)) is None:
        return None
    count = re.compile(rf"\$(?:\{{{loop['var']}\}}|{loop['var']}\b)")
    body = loop["body"]
    echoed = [found["text"] for found in _ECHO.finditer(body) if count.search(found["text"])]
    # the count anywhere but in what the body echoes or compares (whether to try again): the passes differ
    compared = sum(len(count.findall(test[0])) for test in _TEST.finditer(body))
    if not echoed or len(count.findall(body)) != sum(len(count.findall(text)) for text in echoed) + compared:
        return None
    text = echoed[0].strip()
    group = text.startswith(_GROUP)
    pieces = [
        _OTHER_VARIABLE.sub(".*?", re.escape(piece)) for piece in count.split(text.removeprefix(_GROUP))
    ]
    return re.compile(("(?:##\\[group\\])?" if group else "") + r"\d+".join(pieces) + "$")


def loop_attempts(
    lines: Sequence[str], command: str, tested: Callable[[Sequence[str]], bool]
) -> list[list[str]]:
    """``lines`` cut at each line the step's retry loop echoed (:func:`loop_marks`), when it echoed two or
    more; the part before the first and after the last are left out when ``tested`` says they hold no
    test's failure (the script's set-up, its last words). One part, the whole step, otherwise."""
    marks = loop_marks(command)
    if marks is None:
        return [list(lines)]
    cuts = [n for n, raw in enumerate(lines) if marks.match(clean_line(raw).strip())]
    if len(cuts) < 2:
        return [list(lines)]
    parts = [list(lines[a + 1 : b]) for a, b in zip([-1, *cuts], [*cuts, len(lines)], strict=True)]
    if not tested(parts[0]):
        parts = parts[1:]
    if parts and not tested(parts[-1]):
        parts = parts[:-1]
    return parts if len(parts) > 1 else [list(lines)]
