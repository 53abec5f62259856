"""Type errors only in installed packages' own declarations: releases whose types do not fit together.

The TypeScript compiler checks the declaration files of the installed packages too (unless ``skipLibCheck``)
and reports each error at its file, ``path(line,col): error TSnnnn: …`` or, with ``--pretty``,
``path:line:col - error TSnnnn: …`` (TypeScript's documentation, "tsc CLI Options"). When every error it
reports is in a file under ``node_modules``, the project's own sources type-check: two installed packages
declare the same name differently (a newly resolved ``@types/node`` against another package's globals). That
is upstream's, for a person to pin or wait for; an agent could only silence the check.

Pure: lines in, a :class:`~healer.model.Diagnosis` out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from healer.diagnosis.logs import clean_line
from healer.diagnosis.owner import reread
from healer.model import Action, Category, Diagnosis, Owner

_TSC = re.compile(r"(?:^|\s)(?P<path>\S+\.[cm]?tsx?)(?:\(\d+,\d+\): | ?:\d+:\d+ - )error TS\d+: ")
# ts-node's report of the same errors: `path.ts (5,1): Cannot find name 'describe'. (2304)` (its README)
_TS_NODE = re.compile(r"^(?P<path>\S+\.[cm]?tsx?) \(\d+,\d+\): .+ \(\d{4,5}\)$")


def error_files(step_lines: Sequence[str]) -> list[str]:
    """The files of the step's TypeScript errors (tsc's and ts-node's), in order."""
    found = []
    for raw in step_lines:
        if "error TS" in raw or ".ts" in raw:
            line = clean_line(raw).strip()
            if match := _TSC.search(line) or _TS_NODE.match(line):
                found.append(match.group("path"))
    return found


def only_in_installed_types(diagnosis: Diagnosis, step_lines: Sequence[str]) -> Diagnosis:
    """``diagnosis`` given to upstream when it is the code's type check and every TypeScript error is in an
    installed package's file; otherwise unchanged."""
    if diagnosis.owner is not Owner.CODE or diagnosis.category is not Category.TYPECHECK:
        return diagnosis
    files = error_files(step_lines)
    if not files or not all("node_modules/" in path.replace("\\", "/") for path in files):
        return diagnosis
    said = f"every type error is in an installed package's declarations ({files[0][:100]})"
    return reread(diagnosis, Owner.UPSTREAM, Category.TYPECHECK, Action.ESCALATE, said)
