"""Judge a diff before it is delivered: the healer's last line of defence against a "fix" that cheats.

A fix rule or the agent changed the PR-head checkout; :func:`judge_diff` reads ``git diff`` output (with or
without rename detection, with binary patches, deletions and mode changes) and refuses, with one sentence
each,
a change that

* deletes a test file or a test (pytest, unittest, jest/vitest, go, cargo, JUnit), shadows one with a second
  definition in the same file, or moves one where its runner does not collect it (:mod:`.testnames`);
* adds a skip, focus or xfail marker however it is aliased, a build constraint or ``cfg`` that compiles tests
  out, an inline lint/type suppression, or a CI error suppression (:mod:`.suppressions`);
* changes the configuration of a test runner, linter, type checker or coverage tool (:mod:`.toolconfig`);
* touches ``.github/workflows/`` or ``.github/actions/``, a configured protected path, ``.gitmodules``,
  ``.gitattributes`` or ``.lfsconfig``, moves a submodule, adds a symbolic link out of the repository, or
  writes binary content that hides text or is larger than a byte limit (:mod:`.special`);
* changes more lines (added + removed) than ``max-diff-lines``.

A repository can let paths through on purpose with ``guard: allow`` in its config file: a refusal of the
configuration, git-settings and binary kinds for an allowed path is dropped, and the verdict lists the path in
``allowed`` so the fix PR and the summary say so. Deleted and skipped tests, workflow files and the healer's
own
settings are refused whatever is allowed.

The diff is text the agent produced, so the guard is pure, never raises on any input, and renders every path
and name it quotes as a Markdown code span (no ``@mention`` or HTML from a file name reaches a PR comment).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from healer.change.diff import FileChange, parse_diff
from healer.change.guard.paths import ALWAYS_PROTECTED, allowed, judge_paths, matches_glob
from healer.change.guard.special import (
    MAX_BINARY_BYTES,
    binary_changes,
    git_file_changes,
    link_and_submodule_changes,
)
from healer.change.guard.suppressions import added_markers, cfg_over_tests
from healer.change.guard.testnames import deleted_test_files, deleted_tests, redefined_tests
from healer.change.guard.toolconfig import tool_config_changes

__all__ = [
    "ALWAYS_PROTECTED",
    "MAX_BINARY_BYTES",
    "NO_CHANGE",
    "UNREADABLE",
    "GuardVerdict",
    "Reader",
    "judge_diff",
    "judge_paths",
    "matches_glob",
]

UNREADABLE = "The change could not be read as a diff, so it was not delivered."
NO_CHANGE = "no change — the fix left every file as it was, so there is nothing to deliver."

# The text of a changed file on one side: ``read(path, new)`` with ``new`` False for the PR head, True for the
# change; None when the file is absent there or cannot be read.
Reader = Callable[[str, bool], "str | None"]

# Bounds: a verdict is read by a person in a PR comment.
_MAX_REASONS = 12


@dataclass(frozen=True)
class GuardVerdict:
    """Whether a diff may be delivered, and why not.

    ``reasons`` are sentences addressed to the PR author (Markdown, paths in code spans); ``files`` are the
    paths the diff touches (old and new path of a rename); ``added`` and ``removed`` count text lines;
    ``allowed`` are the touched paths that would have been refused but for ``guard: allow``.
    """

    ok: bool
    reasons: tuple[str, ...]
    files: tuple[str, ...]
    added: int
    removed: int
    allowed: tuple[str, ...] = ()

    @property
    def empty(self) -> bool:
        """True when the diff changes nothing (no file touched)."""
        return not self.files

    @property
    def changed_lines(self) -> int:
        return self.added + self.removed


def judge_diff(
    diff: str,
    *,
    protected_paths: Sequence[str] = (),
    max_lines: int,
    allow: Sequence[str] = (),
    read: Reader | None = None,
    max_binary_bytes: int = MAX_BINARY_BYTES,
) -> GuardVerdict:
    """Judge ``git diff`` output: may this change be delivered as a fix?

    ``allow`` holds the repository's ``guard: allow`` globs; ``read`` (optional) gives the full text of a
    changed
    file on either side, so that a section of a shared config file or a second definition of a test far from
    the diff's context is seen. Never raises, whatever ``diff`` holds or ``read`` does.
    """
    try:
        return _judge(diff, protected_paths, max_lines, allow, _safe(read), max_binary_bytes)
    except Exception:  # fail closed: a bug in the guard must not let a change through
        return GuardVerdict(False, (UNREADABLE,), (), 0, 0)


def _safe(read: Reader | None) -> Reader | None:
    if read is None:
        return None

    def reader(path: str, new: bool) -> str | None:
        try:
            text = read(path, new)
        except Exception:  # an unreadable file is judged from the diff alone
            return None
        return text if isinstance(text, str) else None

    return reader


def _judge(
    diff: str,
    protected_paths: Sequence[str],
    max_lines: int,
    allow: Sequence[str],
    read: Reader | None,
    max_binary_bytes: int,
) -> GuardVerdict:
    files = parse_diff(diff)
    touched = tuple(dict.fromkeys(p for change in files for p in change.paths))
    added = sum(change.added_lines for change in files)
    removed = sum(change.removed_lines for change in files)
    if not files:
        return GuardVerdict(False, (NO_CHANGE,), (), 0, 0)
    reasons: list[str] = []
    reasons += judge_paths(touched, protected_paths=protected_paths)
    deleted_files = deleted_test_files(files)
    reasons += deleted_files.values()
    reasons += deleted_tests(files, skip=deleted_files)
    reasons += redefined_tests(files, read)
    reasons += added_markers(files)
    reasons += cfg_over_tests(files)
    permitted: list[str] = []
    for path, reason in _allowable(files, read, max_binary_bytes):
        if allowed(path, allow):
            permitted.append(path)
        else:
            reasons.append(reason)
    reasons += link_and_submodule_changes(files, lambda path: bool(judge_paths([path])))
    if added + removed > max_lines:
        reasons.append(
            f"It changes {added + removed} lines ({added} added, {removed} removed), more than the limit of "
            f"{max_lines} (input `max-diff-lines`); a change this large needs a person."
        )
    if len(reasons) > _MAX_REASONS:
        rest = len(reasons) - (_MAX_REASONS - 1)
        reasons = reasons[: _MAX_REASONS - 1] + [f"…and {rest} more problems of the same kinds."]
    return GuardVerdict(not reasons, tuple(reasons), touched, added, removed, tuple(dict.fromkeys(permitted)))


def _allowable(
    files: Sequence[FileChange], read: Reader | None, max_binary_bytes: int
) -> list[tuple[str, str]]:
    """Refusals that a repository may lift for a path on purpose (``guard: allow``)."""
    return [
        *tool_config_changes(files, read),
        *git_file_changes(files),
        *binary_changes(files, max_binary_bytes, read),
    ]
