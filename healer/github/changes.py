"""The REST operation that says what a pull request changes: its files (``pulls/list-files``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from healer.github.errors import GitHubError
from healer.github.transport import PER_PAGE, Transport

# A mixin, like healer.github.history: GitHub brings the transport; the type checker reads it as a Transport.
if TYPE_CHECKING:
    _Calls = Transport
else:
    _Calls = object


@dataclass(frozen=True)
class ChangedFiles:
    """The paths a pull request changes (a renamed file under both names); ``complete`` is False when the
    listing had more than the one page read, so a path not listed may still be changed."""

    paths: tuple[str, ...]
    complete: bool


class ChangeCalls(_Calls):
    """Mixed into :class:`healer.github.GitHub`."""

    def changed_files(self, number: int) -> ChangedFiles:
        """The files pull request ``number`` changes: one request, one page of up to 100 files (GitHub lists
        at most 3,000, 30 a page unless asked). A full page may have more after it: not complete."""
        what = f"list the files of pull request #{number}"
        items = self._call(
            "GET", f"/pulls/{number}/files", {"per_page": PER_PAGE, "page": 1}, what=what,
            need="pull-requests: read",
        )  # fmt: skip
        if not isinstance(items, list):
            raise GitHubError(f"GitHub sent a malformed listing when asked to {what}")
        paths: list[str] = []
        for item in items:
            name = item.get("filename") if isinstance(item, dict) else None
            if not isinstance(name, str) or not name:
                raise GitHubError(f"GitHub sent a file without a name when asked to {what}")
            before = item.get("previous_filename")  # a renamed file: its old name was changed too
            for path in (name, before):
                if isinstance(path, str) and path and path not in paths:
                    paths.append(path)
        return ChangedFiles(tuple(paths), complete=len(items) < PER_PAGE)
