"""A fork's fix as GitHub can take it: suggested changes on the pull request's diff, and the whole patch.

Neither ``GITHUB_TOKEN`` nor a GitHub App's token can push to a fork's branch (BEHAVIOUR.md, "Dispatch, forks
and notifications"), so the healer hands a fork's author its change in two forms:

* a review of **suggested changes**: GitHub accepts a review comment only on a line of the PR's diff hunks,
  on the ``RIGHT`` side (an added or a context line of the head's file), and a multi-line one only within one
  hunk (422 "Pull request review thread line must be part of the diff", "… start line must be part of the
  same hunk as the line", "… start line must precede the end line"). :func:`suggest` turns each change of the
  fix that fits there into one comment whose ```` ```suggestion ```` block replaces the head's lines; the
  rest is left out, with a reason;
* the whole patch in the run's comment, with the command that applies it (``prompts/comment.md.j2``).

The changes are counted as git shows them: each run of removed and added lines between context lines of
the fix's diff is one change (one suggestion), so two fixes three lines apart are two suggestions, each on
the lines it replaces (an insertion at the top of a file and one after its first line share line 1, and one
suggestion). A CRLF file's lines keep their CR in the block, the fix's own endings: applied suggestions
are reported to commit the line endings they were written with (CRLF reached LF repositories that way,
w3c-fedid/digital-credentials#572); not verified against github.com for a body sent through the API.

The text of a suggestion is the change itself and is delivered verbatim, although the PR's code may have
written it: it only ever sits inside a fence longer than any backtick run it holds (so it cannot close the
fence, and inside a fence GitHub links no mention and starts no block), and everything outside the fences
is the healer's own fixed text and numbers. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import pairwise

from healer.change.diff import DiffLine, FileChange, parse_diff
from healer.text.markdown import COMMENT_LIMIT, fence

__all__ = ["LeftOut", "SuggestedChanges", "Suggestion", "suggest"]

PATCH_FILE = "ci-healer.patch"
# file modes whose content is no text a suggestion could show (a symlink's target, a submodule's commit)
_SPECIAL_MODES = frozenset({"120000", "160000"})


@dataclass(frozen=True)
class Suggestion:
    """One review comment: replace lines ``start_line``..``line`` of ``path`` in the PR's head with the block
    in ``body`` (a ```` ```suggestion ```` fence; an empty block deletes the lines)."""

    path: str
    start_line: int | None  # the first replaced line; None when only ``line`` is replaced (GitHub refuses
    # start_line == line: "start line must precede the end line")
    line: int  # the last replaced line, on the RIGHT side of the PR's diff
    body: str


@dataclass(frozen=True)
class LeftOut:
    """A change of the fix that is only in the patch, and why (a fixed phrase, never text from the PR)."""

    path: str
    line: int | None  # the first head-file line it changes; None: the whole file
    reason: str


@dataclass(frozen=True)
class SuggestedChanges:
    """The fix split into review suggestions and the changes only the patch holds."""

    suggestions: tuple[Suggestion, ...] = ()
    left_out: tuple[LeftOut, ...] = ()


# reasons a change is only in the patch
NEW_FILE = "a new file"
DELETED_FILE = "a deleted file"
BINARY_FILE = "a binary file"
SPECIAL_FILE = "a symbolic link or submodule"
MODE_CHANGE = "a change of the file's mode"
OFF_DIFF = "outside the lines the pull request changes"
NO_NEWLINE = "at the end of a file without a final newline"
UNSAFE_TEXT = "a line holds a carriage return or NUL that Markdown would change"
TOO_LONG = "too long for a review comment"
NO_ANCHOR = "an insertion with no line beside it in the diff"


@dataclass
class _Change:
    """One run of removed and added lines of the fix, with the context lines around it."""

    removed: list[int] = field(default_factory=list)  # head-file line numbers
    added: list[DiffLine] = field(default_factory=list)
    after_old: int = 0  # head-file lines before the change (where an insertion goes)
    before: tuple[int, DiffLine] | None = None  # the context line just before: (head line, line)
    following: tuple[int, DiffLine] | None = None  # the context line just after


def suggest(fix_diff: str, pr_diff: str) -> SuggestedChanges:
    """The fix (``git diff --cached --no-renames`` against the PR's head) as review suggestions on the PR's
    diff (``git diff -U3 <merge-base> <head> --no-renames``), and the changes that cannot be one.

    A change becomes a suggestion when every head-file line it replaces lies in one hunk of the PR's diff, on
    its RIGHT side. A pure insertion is attached to the line before it (that line is replaced by itself and
    the new lines), or, at the top of a file, to the line after it. New, deleted, binary and special files,
    mode changes, and changes at the end of a file without a final newline (a suggestion cannot say whether
    a newline ends the file) are left out.
    """
    on_diff = _right_side_hunks(pr_diff)
    suggestions: list[Suggestion] = []
    left_out: list[LeftOut] = []
    for change, old_no_eol, new_no_eol in _files_with_eol(fix_diff):
        path = change.path
        whole = _whole_file_reason(change)
        if whole:
            left_out.append(LeftOut(path, None, whole))
            continue
        if change.old_mode and change.new_mode and change.old_mode != change.new_mode:
            left_out.append(LeftOut(path, None, MODE_CHANGE))
        # the last line of a side that has no final newline: a suggestion touching it cannot keep that
        old_last, new_last = _last_lines(change)
        ends = (old_last if old_no_eol else None, new_last if new_no_eol else None)
        for piece in _pieces(path, _changes(change)):
            judged = _judge(path, piece, on_diff.get(path, ()), ends) if isinstance(piece, _Piece) else piece
            if isinstance(judged, Suggestion):
                suggestions.append(judged)
            else:
                left_out.append(judged)
    return SuggestedChanges(tuple(suggestions), tuple(left_out))


def _whole_file_reason(change: FileChange) -> str:
    if change.binary:
        return BINARY_FILE
    if change.old_path is None:
        return NEW_FILE
    if change.new_path is None:
        return DELETED_FILE
    if change.old_path != change.new_path:  # a rename or copy (the fix diff is made with --no-renames)
        return NEW_FILE
    if {change.old_mode, change.new_mode} & _SPECIAL_MODES:
        return SPECIAL_FILE
    return ""


def _right_side_hunks(pr_diff: str) -> dict[str, list[tuple[int, int]]]:
    """Per path of the PR's head, the first and last RIGHT-side line of each hunk of the PR's diff."""
    out: dict[str, list[tuple[int, int]]] = {}
    for change in parse_diff(pr_diff):
        if change.new_path is None or change.binary:
            continue
        for hunk in change.hunks:
            right = [line.number for line in hunk if line.kind != "-"]
            if right:
                out.setdefault(change.new_path, []).append((right[0], right[-1]))
    return out


def _files_with_eol(diff: str) -> Iterator[tuple[FileChange, bool, bool]]:
    """Each file of ``diff`` with whether its old and its new content lack a final newline.

    :func:`parse_diff` drops git's ``\\ No newline at end of file`` lines, so each file's section is scanned
    for them here: the marker follows the last line of the side it speaks of (``-`` old, ``+`` new, `` ``
    both). A content line never starts with ``diff --git `` (it starts with ``+``, ``-`` or a space), so the
    sections are cut at those headers."""
    sections: list[list[str]] = [[]]
    for line in diff.split("\n"):
        if line.startswith("diff --git ") and sections[-1]:
            sections.append([])
        sections[-1].append(line)
    for lines in sections:
        old_no_eol = new_no_eol = False
        for previous, line in pairwise(lines):
            if line.startswith("\\") and previous[:1] in ("-", " ", ""):
                old_no_eol = True
            if line.startswith("\\") and previous[:1] in ("+", " ", ""):
                new_no_eol = True
        for change in parse_diff("\n".join(lines)):
            yield change, old_no_eol, new_no_eol


def _last_lines(change: FileChange) -> tuple[int, int]:
    """The head-file and the fixed file's numbers of the last line of each side that the diff shows (the
    marker of a missing final newline always follows those)."""
    delta = 0
    old_last = new_last = 0
    for hunk in change.hunks:
        for line in hunk:
            if line.kind == "-":
                old_last = line.number
                delta -= 1
            elif line.kind == "+":
                new_last = line.number
                delta += 1
            else:
                old_last, new_last = line.number - delta, line.number
    return old_last, new_last


def _changes(change: FileChange) -> Iterator[_Change]:
    """The runs of removed and added lines of one file, with head-file line numbers.

    A context line's number is its new-file number; its head-file number is that minus the lines added and
    plus the lines removed before it in the file (``delta``)."""
    delta = 0
    for hunk in change.hunks:
        current: _Change | None = None
        before: tuple[int, DiffLine] | None = None
        for line in hunk:
            if line.kind == " ":
                here = (line.number - delta, line)
                if current is not None:
                    current.following = here
                    yield current
                    current = None
                before = here
                continue
            if current is None:
                current = _Change(before=before)
                first_old = line.number if line.kind == "-" else line.number - delta
                current.after_old = first_old - 1
            if line.kind == "-":
                current.removed.append(line.number)
                delta -= 1
            else:
                current.added.append(line)
                delta += 1
        if current is not None:
            yield current


@dataclass(frozen=True)
class _Piece:
    """Head-file lines ``first``..``last`` and the lines (text, fixed-file number) that replace them."""

    first: int
    last: int
    lines: tuple[tuple[str, int], ...]


def _pieces(path: str, runs: Iterator[_Change]) -> Iterator[_Piece | LeftOut]:
    """Each change as the head lines it replaces and their replacement; a pure insertion also replaces the
    line it is attached to (the one before it; at the top of the file, the one after it)."""
    previous: _Piece | None = None
    for run in runs:
        added = tuple((line.text, line.number) for line in run.added)
        if run.removed:
            piece = _Piece(run.removed[0], run.removed[-1], added)
        elif run.after_old >= 1 and run.before is not None and run.before[0] == run.after_old:
            piece = _Piece(run.after_old, run.after_old, ((run.before[1].text, run.before[1].number), *added))
        elif run.after_old == 0 and run.following is not None and run.following[0] == 1:
            piece = _Piece(1, 1, (*added, (run.following[1].text, run.following[1].number)))
        else:
            if previous is not None:
                yield previous
                previous = None
            yield LeftOut(path, max(1, run.after_old), NO_ANCHOR)
            continue
        if previous is not None and piece.first <= previous.last:
            # Only an insertion at the top of the file and one after its first line share a line (line 1,
            # after the first and before the second): one suggestion replaces it by both.
            if (previous.first, previous.last, piece.first, piece.last) == (1, 1, 1, 1):
                previous = _Piece(1, 1, previous.lines + piece.lines[1:])
                continue
            yield LeftOut(path, piece.first, NO_ANCHOR)
            continue
        if previous is not None:
            yield previous
        previous = piece
    if previous is not None:
        yield previous


def _judge(
    path: str, piece: _Piece, hunks: Sequence[tuple[int, int]], ends: tuple[int | None, int | None]
) -> Suggestion | LeftOut:
    """The piece as a review comment, or why it cannot be one. ``ends``: the head's and the fixed file's last
    line when that side has no final newline."""
    first, last = piece.first, piece.last
    old_end, new_end = ends
    if (old_end is not None and first <= old_end <= last) or any(n == new_end for _, n in piece.lines):
        return LeftOut(path, first, NO_NEWLINE)
    if not any(start <= first and last <= end for start, end in hunks):
        return LeftOut(path, first, OFF_DIFF)
    texts = [text for text, _ in piece.lines]
    # CommonMark reads a lone CR as a line ending and turns NUL into U+FFFD: such a line would not survive
    # as written. A CR that ends the line is the file's CRLF and is kept.
    if any("\0" in text or "\r" in text.removesuffix("\r") for text in texts):
        return LeftOut(path, first, UNSAFE_TEXT)
    body = fence("".join(text + "\n" for text in texts), "suggestion")
    if len(body) > COMMENT_LIMIT:
        return LeftOut(path, first, TOO_LONG)
    return Suggestion(path, first if last > first else None, last, body)
