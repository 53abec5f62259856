"""A pull request that changed only prose: a failure of its code's checks is its base branch's.

When every file a pull request changes is prose (Markdown, reStructuredText, AsciiDoc; a licence, an
authors or a code-owners file), its tests, compilers, type checkers, linters and formatters check the same
code as on its base branch: CI runs them on the merge of the two (``refs/pull/N/merge``), and the pull
request added nothing they compile or run. A failure there is the base branch's (a broken ``main``, or a
tool that moved under it): upstream's, escalated to whoever keeps the base branch green, not sent to the
agent to change the pull request.

Prose can still fail a check: a doctest of the README, a Markdown linter, a formatter that formats Markdown,
a test that reads ``CHANGELOG.md``, a docs build or a link checker. So the reading holds only for a step that
tests, builds, type-checks, lints or formats (not one whose purpose is the docs or their links), and only
when no changed file's name shows in the failing step's output outside the listing of the changed files.

The changed files come from what the job printed itself (the action leaves a pull request of prose only,
listed by GitHub, to its broken-trunk check, :mod:`healer.run.trunk`, which compares the failure with the
base branch's own run): the output of ``git diff --name-only <base>…`` or ``gh pr
diff --name-only`` (git's documentation: one path a line, relative to the repository's top), unfiltered (no
pipe, no pathspec after ``--``, no ``--diff-filter``), read up to the first line that is not a path. A ``git
diff`` must compare with the base (a range, ``origin/main``, ``FETCH_HEAD``, ``HEAD~1``, the event's base):
one of the working tree (``git diff --name-only --exit-code`` after generating files) lists what the job
changed, not the pull request.

Pure: a diagnosis and lines in, a diagnosis out.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from itertools import dropwhile, takewhile
from pathlib import PurePosixPath

from healer.diagnosis.installinputs import HEALED
from healer.diagnosis.logs import clean_line
from healer.diagnosis.owner import reassigned, shown
from healer.model import Action, Category, Diagnosis, Owner

_PROSE_SUFFIXES = frozenset({".md", ".markdown", ".rst", ".adoc", ".asciidoc", ".rdoc"})
_PROSE_NAMES = frozenset({"LICENSE", "LICENCE", "COPYING", "AUTHORS", "CONTRIBUTORS", "NOTICE", "CODEOWNERS"})
_KINDS = frozenset({Category.TEST, Category.BUILD, Category.TYPECHECK, Category.LINT, Category.FORMAT})
_PURPOSES = frozenset({"", "test", "build", "typecheck", "lint", "format", "check"})
# the command whose output lists the changed files: the whole list, nothing filtered out of it
_LISTING = re.compile(
    r"^(?:\+ |\$ )?(?P<args>(?:git|gh pr) diff\b[^|;&`]*?--name-only[^|;&`]*)(?:(?:&&|\|\||;).*)?$"
)
_FILTERED = re.compile(r"(?<!\S)(?:--(?:\s|$)|--diff-filter\b|--relative\b|--exit-code\b|--quiet\b)")
# what makes a `git diff` compare the pull request with its base, not the working tree with the index (a
# check that generated files are up to date lists what the job itself changed): a range, or a base ref
_AGAINST_THE_BASE = re.compile(
    r"\S\.\.\.?\S|(?<!\S)(?:origin|upstream)/\S|FETCH_HEAD|\bHEAD[~^]|\$\{\{\s*github\.(?:base_ref|event\.)"
    r"|\$\{?\w*BASE\w*\}?|(?<!\S)(?:main|master)(?!\S)"
)
_PATH = re.compile(r"^[\w@+-][\w.@+-]*(?:/[\w.@+-]+)*$")


def prose(path: str) -> bool:
    """Whether ``path`` is prose: nothing a test, compiler or linter of the code reads."""
    name = PurePosixPath(path).name
    return PurePosixPath(name).suffix.lower() in _PROSE_SUFFIXES or name.split(".")[0] in _PROSE_NAMES


def _applies(diagnosis: Diagnosis) -> bool:
    """Whether a list of changed files could give ``diagnosis`` to upstream: a failure of the code's tests,
    build, types, lint or format, read as the code's and headed for the agent or a fix rule."""
    return (
        diagnosis.owner is Owner.CODE
        and diagnosis.action in HEALED
        and diagnosis.category in _KINDS
        and diagnosis.purpose in _PURPOSES
    )


def listed_changes(lines: Sequence[str]) -> list[str]:
    """The changed files the job listed itself (``git diff --name-only …``'s output); ``[]`` when it listed
    none."""
    for index, raw in enumerate(lines):
        if "--name-only" not in raw:
            continue
        match = _LISTING.match(clean_line(raw).strip())
        args = match.group("args") if match else ""
        if not match or _FILTERED.search(args):
            continue
        if args.startswith("git ") and not _AGAINST_THE_BASE.search(args):
            continue  # the working tree against the index: what the job changed, not the pull request
        start = index + 1
        if _in_a_header(lines, index):  # a line of the step's script: its output follows the header
            start = next((at + 1 for at in range(index, len(lines)) if "##[endgroup]" in lines[at]), start)
        said = (clean_line(line).strip() for line in lines[start:])
        paths = list(takewhile(_is_path, dropwhile(_before_the_list, said)))
        if paths:
            return paths
    return []


def only_prose_changed(diagnosis: Diagnosis, changed: Sequence[str], step_lines: Sequence[str]) -> Diagnosis:
    """``diagnosis`` given to upstream and escalated when it :func:`_applies`, every ``changed`` file is prose
    and none of their names shows in the step's lines (other than a line that is one of the paths, as a
    listing of them prints it); else unchanged."""
    if not changed or not _applies(diagnosis) or not all(prose(path) for path in changed):
        return diagnosis
    names = {PurePosixPath(path).name for path in changed}
    listed = set(changed)
    for raw in step_lines:
        line = clean_line(raw).strip()
        if line not in listed and any(name in line for name in names):
            return diagnosis
    said = (
        f"the pull request changes only prose ({shown(sorted(names))}), which nothing of this step compiles "
        "or runs: its base branch fails the same way"
    )
    return reassigned(diagnosis, Owner.UPSTREAM, said, "escalate", action=Action.ESCALATE, stage="changes")


def prose_only_in_the_log(diagnosis: Diagnosis, every: Sequence[str], step_lines: Sequence[str]) -> Diagnosis:
    """``diagnosis`` read by :func:`only_prose_changed` against the changed files the job listed itself in
    ``every`` line of its log; ``step_lines``, the failing step's output."""
    if not _applies(diagnosis) or not any("--name-only" in raw for raw in every):
        return diagnosis
    return only_prose_changed(diagnosis, listed_changes(every), step_lines)


def _is_path(line: str) -> bool:
    return ("/" in line or "." in line) and _PATH.match(line) is not None


def _in_a_header(lines: Sequence[str], index: int) -> bool:
    """Whether ``lines[index]`` is in a step's header (``##[group]Run …`` to ``##[endgroup]``)."""
    for raw in reversed(lines[max(0, index - 200) : index]):
        if "##[endgroup]" in raw:
            return False
        if "##[group]Run " in raw:
            return True
    return False


def _before_the_list(line: str) -> bool:
    """Lines a script prints before the listing: blank lines, and git's fetch of the base it diffs against."""
    return line == "" or line.startswith(("From ", "* branch", "* [new", "remote: ", "##[endgroup]"))
