"""Files that change what git does or shows: git's own settings, submodules, symbolic links and binary
content.

``.gitmodules`` points a submodule at another repository, ``.gitattributes`` can mark a file ``binary`` or
``-diff`` so its changes no longer show (and filters run programs), ``.lfsconfig`` moves where LFS objects
come
from. Binary content is measured in bytes (from the ``GIT binary patch``; a 20 MiB file is not "0 lines"), and
text that git shows as binary (an attribute hides it) is refused, since none of the guard's checks could see
it.
Pure.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence

from healer.change.diff import FileChange
from healer.change.guard.paths import CODE, ext, is_script, is_test_file, normalise, quote

# Binary content a fix may add or change, in bytes; above it a person decides.
MAX_BINARY_BYTES = 1024 * 1024

_GIT_FILES = {
    ".gitmodules": "which repositories submodules come from",
    ".gitattributes": (
        "how git shows, filters and merges files (a `binary` or `-diff` attribute hides a change)"
    ),
    ".lfsconfig": "where Git LFS fetches its objects",
}


def git_file_changes(files: Sequence[FileChange]) -> Iterator[tuple[str, str]]:
    """``(path, reason)`` for changes to ``.gitmodules``, ``.gitattributes`` and ``.lfsconfig``."""
    for change in files:
        for path in change.paths:
            base = normalise(path).rsplit("/", 1)[-1].lower()
            if base in _GIT_FILES:
                yield (
                    path,
                    (
                        f"It changes {quote(path)}, which decides {_GIT_FILES[base]}; the healer does not "
                        "change git's settings, a person must."
                    ),
                )
                break


def binary_changes(
    files: Sequence[FileChange],
    max_bytes: int = MAX_BINARY_BYTES,
    read: Callable[[str, bool], str | None] | None = None,
) -> Iterator[tuple[str, str]]:
    """``(path, reason)`` for binary content that hides a change or is larger than ``max_bytes``.

    Whether the content is text comes from a ``literal`` patch, else (a ``delta``) from ``read``, which
    gives a file's text only when it decodes as UTF-8."""
    for change in files:
        if not change.binary:
            continue
        path = change.path
        text = change.binary_text
        if text is None and read is not None and change.new_path:
            content = read(change.new_path, True)
            text = content is not None and "\0" not in content
        if text or any(ext(p) in CODE or is_test_file(p) or is_script(p) for p in change.paths):
            # Source shown as binary (a `-diff` or `binary` attribute in .gitattributes) would hide a deleted
            # test from every check.
            yield (
                path,
                (
                    f"It changes {quote(path)}, which git shows as binary although it is text or code, so "
                    "the change cannot be checked; a person must review it."
                ),
            )
        elif change.new_path and change.binary_size is not None and change.binary_size > max_bytes:
            yield (
                path,
                (
                    f"It writes {_size(change.binary_size)} of binary content to {quote(path)}, more "
                    f"than the {_size(max_bytes)} a fix may add; a person must review it."
                ),
            )


def _size(count: int) -> str:
    for unit, scale in (("MiB", 1024 * 1024), ("KiB", 1024)):
        if count >= scale:
            return f"{count / scale:.1f} {unit}"
    return f"{count} bytes"


def link_and_submodule_changes(
    files: Sequence[FileChange], protected: Callable[[str], bool]
) -> Iterator[str]:
    """Reasons for a moved submodule, or a symbolic link out of the repository or to a protected file."""
    for change in files:
        modes = {change.old_mode, change.new_mode}
        if "160000" in modes:
            yield (
                f"It moves the submodule {quote(change.path)}; the healer does not change submodules, "
                "a person must."
            )
        elif change.new_mode == "120000" and change.new_path:
            target = "".join(line.text for hunk in change.hunks for line in hunk if line.kind == "+")
            resolved = _resolve_link(change.new_path, target)
            if resolved is None:
                yield (
                    f"It adds a symbolic link {quote(change.new_path)} that points outside the repository "
                    f"({quote(target)})."
                )
            elif protected(resolved):
                yield (
                    f"It adds a symbolic link {quote(change.new_path)} to a workflow or action file "
                    f"({quote(target)}); the healer never changes those."
                )


def _resolve_link(link: str, target: str) -> str | None:
    """Where a symlink at ``link`` points, as a repository path; None when it leaves the repository."""
    if target.startswith(("/", "~", "\\")) or re.match(r"^[A-Za-z]:", target):
        return None
    parts = normalise(link).split("/")[:-1]
    for part in target.replace("\\", "/").split("/"):
        if part == "..":
            if not parts:
                return None
            parts.pop()
        elif part not in ("", "."):
            parts.append(part)
    return "/".join(parts)
