"""A Dependabot pull request's failure: the bump's, the bumped release's, or the code's.

GitHub runs a workflow for a pull request Dependabot opened with Dependabot's secrets, not the repository's
Actions secrets ("Automating Dependabot with GitHub Actions", GitHub Docs), and the runner says which at the
start of the job's log: ``Secret source: Dependabot``. Such a pull request changes the versions of
dependencies and nothing else, so:

- a resolver that cannot fit the bumped version with the other dependencies' ranges (npm's ``ERESOLVE``,
  pip's ``ResolutionImpossible``, a dependency failure read as the code's) is the bump's: a person holds it
  or waits for the other package's release (upstream, escalated). An agent could only force or pin ranges;
- a test that died inside an installed package (the innermost frame of its traceback, Python's last or a
  Node.js stack's first ``at …``, is under ``site-packages`` or ``node_modules``, or the first module of
  Node's ``Require stack:`` under a missing module is one), or a package whose own manifest names a file it
  did not ship
  (Vite's "Failed to resolve entry for package", Node's ``ERR_PACKAGE_PATH_NOT_EXPORTED`` or "Cannot find
  module" for a path inside ``node_modules``), is the bumped release failing in itself: upstream's;
- the project's own files failing against the new version (a renamed API) stay the code's: the agent
  adapts the code to it; so does a failure inside the release whose message says the API the code uses
  moved or went (pydantic's "`BaseSettings` has been moved to the `pydantic-settings` package"), and so does
  a ``TypeError`` or ``ValueError`` the release raised itself on the arguments it was given (the traceback's
  innermost line is its ``raise TypeError(…)``): by Python's convention (the built-in exceptions'
  documentation: "passing arguments of the wrong type", "an argument that has the right type but an
  inappropriate value") the release refused what the project's code passed it, as pytest 8's ``warns`` refuses
  ``None``; and a reading that says a new release removed what the code uses (pytest-asyncio 1.0's
  ``event_loop`` fixture, NumPy 2's aliases, a ruff rule), upstream's under an unpinned install, is the
  code's here: the release is the pull request's own bump.

Pure: lines in, a :class:`~healer.model.Diagnosis` out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from healer.diagnosis.emptysecret import secret_source
from healer.diagnosis.logs import clean_line
from healer.diagnosis.owner import reread
from healer.diagnosis.raised import ANY_FRAME, NODE_FRAME
from healer.model import Action, Category, Diagnosis, Owner

_INSTALLED = re.compile(r"[/\\](?:site|dist)-packages[/\\]|(?:^|[/\\])node_modules[/\\]")
_BROKEN_PACKAGE = re.compile(
    r'Failed to resolve entry for package "[^"]{1,200}"\. The package may have incorrect main/module/exports'
    r"|Package subpath '[^']{1,200}' is not defined by \"exports\" in \S*node_modules[/\\]"
    r"|Cannot find module '[^']*node_modules[/\\][^']+'"
)
# a release's own word that an API the code uses moved or went (pydantic's "`BaseSettings` has been moved to
# the `pydantic-settings` package" and "`const` is removed, use `Literal` instead", a deprecation shim's "X
# was removed in 2.0, use Y"): raised inside the package, but the change to make is in the code
_MOVED = re.compile(
    r"(?i)\b(?:has been|have been|is|are|was|were) (?:moved|removed|renamed)\b.{0,120}\b(?:to|in|use|see)\b"
    r"|\bmigration guide\b|/migration/"
)
# a release refusing its caller's arguments: the innermost frame's `raise TypeError(…)` or `raise
# ValueError(…)` with the exception's line after it (pytest's `E   TypeError: …`, or a traceback's last line)
_RAISES = re.compile(r"^\s*raise (?P<error>TypeError|ValueError)\(")
_RAISED = re.compile(r"^(?:E\s+)?(?P<error>TypeError|ValueError): ")
_KINDS = frozenset({Category.TEST, Category.BUILD, Category.TYPECHECK, Category.UNKNOWN})
# readings of an API or option a new release removed, upstream's when an unpinned install met it: on a
# Dependabot pull request the new release is the pull request's own bump, which the code follows
FOLLOWS_THE_BUMP = frozenset(
    {"python.pytest-asyncio-event-loop-removed", "python.numpy2-removed-name", "python.ruff-rule-removed"}
)


def from_dependabot(log_lines: Sequence[str]) -> bool:
    """Whether the job ran for a Dependabot pull request (its set-up section's secret source)."""
    return secret_source(log_lines) == "Dependabot"


def innermost_installed(step_lines: Sequence[str]) -> str | None:
    """The installed file the last traceback of the step ends in, or the module that required a missing one
    (Node's ``Require stack:``, innermost first); None when it is another file."""
    last = None
    stack = in_node_stack = False
    for raw in step_lines:
        line = clean_line(raw)
        if ".py" in raw and (match := ANY_FRAME.match(line)):
            last = match.group("path") or match.group("file")
            continue
        line = line.strip()
        node = NODE_FRAME.match(line) if line.startswith("at ") else None
        if node is None:
            in_node_stack = False
        elif not in_node_stack and not node.group("path").startswith(("node:", "internal/")):
            # Node prints the innermost frame first; its own modules' frames (`node:internal/…`) are not code
            last, in_node_stack = node.group("path"), True
        if node:
            continue
        if line == "Require stack:":
            stack = True
        elif stack:
            last, stack = (line[2:] if line.startswith("- ") else last), False
    return last if last is not None and _INSTALLED.search(last) else None


def refused_the_callers_arguments(step_lines: Sequence[str]) -> bool:
    """Whether a traceback of the step ends in a release's own ``raise TypeError(…)`` or ``raise
    ValueError(…)``, the exception's line within the next lines."""
    waiting, left = None, 0
    for raw in step_lines:
        if "Error" not in raw and not waiting:
            continue
        line = clean_line(raw).strip()
        if found := _RAISES.match(line):
            waiting, left = found.group("error"), 3
        elif waiting and (found := _RAISED.match(line)) and found.group("error") == waiting:
            return True
        elif waiting and line:
            left -= 1
            waiting = waiting if left > 0 else None
    return False


def the_bumps_own(diagnosis: Diagnosis, log_lines: Sequence[str], step_lines: Sequence[str]) -> Diagnosis:
    """``diagnosis`` given to upstream when a Dependabot pull request's resolver conflict or a failure inside
    the bumped release stopped the job; given to the code when a reading of a release's removal (read as an
    unpinned release's, upstream's) stopped a Dependabot pull request, which is that bump; otherwise
    unchanged."""
    removal = diagnosis.owner is Owner.UPSTREAM and diagnosis.rule in FOLLOWS_THE_BUMP
    if not (removal or diagnosis.owner is Owner.CODE) or not from_dependabot(log_lines):
        return diagnosis
    if removal:
        said = (
            "on a Dependabot pull request the release that removed it is the bump itself: the code follows it"
        )
        return reread(diagnosis, Owner.CODE, diagnosis.category, Action.AGENT, said)
    if diagnosis.category is Category.DEPENDENCY and "resolution" in diagnosis.rule:
        said = (
            "on a Dependabot pull request the resolver cannot fit the bumped version: a person holds the bump"
        )
        return reread(diagnosis, Owner.UPSTREAM, Category.DEPENDENCY, Action.ESCALATE, said)
    if diagnosis.category not in _KINDS:
        return diagnosis
    broken = next((m.group(0) for raw in step_lines if (m := _BROKEN_PACKAGE.search(raw))), None)
    inside = None if broken else innermost_installed(step_lines)
    if broken is None and inside is None:
        return diagnosis
    if broken is None and any(_MOVED.search(raw) for raw in step_lines):
        return diagnosis  # the new release tells the code what to change: the code's, for the agent
    if broken is None and inside.endswith(".py") and refused_the_callers_arguments(step_lines):
        return diagnosis  # the release refused the arguments the code passed it: the code's
    where = broken[:120] if broken else f"raised in {inside[-120:]}"
    said = f"on a Dependabot pull request the bumped release fails in itself ({where})"
    return reread(diagnosis, Owner.UPSTREAM, Category.DEPENDENCY, Action.ESCALATE, said)
