"""Tests that failed only on a name a new major release removed: the release moved under the code.

NumPy 2.0 removed aliases and functions of its main namespace (``np.float_``, ``np.NaN``, ``np.Inf``,
``np.unicode_``, ``np.product`` …; its "NumPy 2.0 migration guide"), and a use of one raises NumPy's own
"AttributeError: `np.float_` was removed in the NumPy 2.0 release. Use `np.float64` instead." When that is
every cause pytest reports (each line of its short summary, or each failure's first ``E`` line, a
collection error's among them), the code ran as it did under NumPy 1 and met a NumPy 2 that an unpinned
requirement or a latest-dependencies job installed: upstream's, escalated, for a maintainer to pin NumPy or
port the code. The diagnosis then names :data:`RULE`, which the changes stage gives back to a pull request
that changed a manifest or lock file (a bump to NumPy 2 among them: the code must follow its own bump), and
a Dependabot pull request (``Secret source: Dependabot``) keeps it as its own. One cause of any other kind
(an assertion, another error) keeps the tests the code's.

Pure: a diagnosis and the step's lines in, a diagnosis out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from healer.diagnosis.botbump import from_dependabot
from healer.diagnosis.logs import clean_line
from healer.diagnosis.owner import reread
from healer.diagnosis.testcauses import pytest_summary_causes
from healer.model import Action, Category, Diagnosis, Owner

RULE = "python.numpy2-removed-name"
_REMOVED = re.compile(r"AttributeError: `np\.(?P<name>\w{1,40})` was removed in the NumPy 2\.0 release\.")
# each failure's section of pytest's report, and its first ``E`` line
_SECTION = re.compile(r"^_{3,} \S.*? _{3,}$")
_E_LINE = re.compile(r"^E {1,12}(?P<cause>\S.*)$")
_KINDS = frozenset({Category.TEST, Category.DEPENDENCY, Category.UNKNOWN})


def pytest_causes(step_lines: Sequence[str]) -> list[str]:
    """Each failing test's cause as pytest reports it: its short summary's lines, else each section's first
    ``E`` line (collection errors included)."""
    summary = pytest_summary_causes(step_lines)
    if summary:
        return summary
    causes: list[str] = []
    waiting = False
    for line in (clean_line(raw).strip() for raw in step_lines):
        if _SECTION.match(line):
            waiting = True
        elif waiting and (found := _E_LINE.match(line)):
            causes.append(found.group("cause"))
            waiting = False
    return causes


def removed_by_a_new_major(
    diagnosis: Diagnosis, step_lines: Sequence[str], log_lines: Sequence[str] = ()
) -> Diagnosis:
    """``diagnosis`` given to upstream, as :data:`RULE`, when every cause pytest reports is a name NumPy 2.0
    removed; otherwise unchanged, as on a Dependabot pull request (the code follows its bump)."""
    if diagnosis.owner is not Owner.CODE or diagnosis.category not in _KINDS:
        return diagnosis
    if not any("NumPy 2.0 release" in raw for raw in step_lines):
        return diagnosis
    causes = pytest_causes(step_lines)
    found = [_REMOVED.search(cause) for cause in causes]
    if not found or not all(found) or from_dependabot(log_lines):
        return diagnosis
    name = found[0].group("name") if found[0] else ""
    said = (
        f"every failing test stopped on `np.{name}`, which NumPy 2.0 removed: the job installed NumPy 2 "
        "under code written for NumPy 1"
    )
    given = reread(diagnosis, Owner.UPSTREAM, Category.DEPENDENCY, Action.ESCALATE, said)
    return replace(given, rule=RULE)
