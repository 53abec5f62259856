"""A Node.js program that died on an error its own files threw: the Node counterpart of
:func:`healer.diagnosis.raised.last_raised`.

Node prints an uncaught error's stack (its errors documentation, ``error.stack``): first
``<error class name>: <message>`` (a system error's code in brackets after the name: ``Error [ERR_X]: …``),
then one line per frame from the innermost outwards, each beginning with ``at``: ``at name (FILE:LINE:COL)``
or ``at FILE:LINE:COL``. An ES module's frames name a ``file://`` URL, and Node's own modules a ``node:``
name (``node:internal/fs/utils``). After the stack a Node of version 17 or later prints its version
(``Node.js v20.19.2``).

The innermost frame says who threw: a file of the checkout (an AWS CDK stack reading a property of
``undefined``, a build script) is the pull request's code, as a Python traceback's innermost frame is; an
installed package's (``node_modules``) or Node's own is left to the other readings.

Pure: lines in, the thrower out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

# the error's line: its class name (a system error's code after it), then its message
_THROWN = re.compile(
    r"^(?P<name>[A-Z][A-Za-z0-9_$]{0,80}(?:Error|Exception)|Error)(?: \[[A-Z][A-Z0-9_]{1,60}\])?"
    r": (?P<message>.*)$"
)
# one frame: `at fn (path:1:2)`, `at async fn (path:1:2)`, `at path:1:2`
_FRAME = re.compile(r"^\s+at (?:.{1,400}? \()?(?P<path>[^()\s]{1,400}?):\d+:\d+\)?$")
# how near the end of the failing step the error must be to be why the step failed (as for Python)
_NEAR_END = 40


def last_thrown(lines: Sequence[str]) -> tuple[str, str, str] | None:
    """The innermost frame's path, the error's class name and its message, of the last stack near the end
    of ``lines`` whose error line is followed by its frames; None when there is none, or when the innermost
    frame is Node's own (``node:``) code."""
    for at in range(len(lines) - 2, max(len(lines) - _NEAR_END, 0) - 1, -1):
        found = _THROWN.match(lines[at].strip())
        frame = _FRAME.match(lines[at + 1]) if found else None
        if found is None or frame is None:
            continue
        path = frame.group("path")
        if path.startswith("node:"):
            return None
        return path.removeprefix("file://"), found.group("name"), found.group("message")
    return None
