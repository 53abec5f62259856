"""The record head of a body the healer writes: the hidden lines at its top that the ledger reads.

Only the *leading* lines of a comment or a fix pull request's body are read as records (the marker block,
:mod:`healer.ledger.markers`, and the account under it, :mod:`healer.ledger.memory`): a line put above them
would hide every one. Text edits of such a body go through :func:`under_head`.
"""

from __future__ import annotations

from collections.abc import Callable

_MARKER_LINE = "<!-- ci-healer:v1 "  # a marker (healer.ledger.markers.MARKER_PREFIX)

_ACCOUNT_LINE = "<!-- ci-healer:memory:v1 "  # healer.ledger.memory's hidden line, right under the block


def split_head(body: str) -> tuple[str, str]:
    """``body``'s record head, as the healer writes it (the marker block and the account line right under
    it), and the text after it. A body without markers has no head: ``("", body)``."""
    lines = body.split("\n")
    head: list[str] = []
    at = 0
    while at < len(lines):
        stripped = lines[at].strip()
        if stripped and not stripped.startswith(_MARKER_LINE):
            break
        if stripped:
            head.append(stripped)
        at += 1
    if not head:
        return "", body
    if at < len(lines) and lines[at].strip().startswith(_ACCOUNT_LINE):
        head.append(lines[at].strip())
        at += 1
    return "\n".join(head), "\n".join(lines[at:]).strip("\n")


def under_head(body: str, edit: Callable[[str], str]) -> str:
    """``body`` with ``edit`` applied to its text, its record head kept first (only the leading lines of a
    body are read as records: a line put above them would hide every one)."""
    head, text = split_head(body)
    if not head:
        return edit(body)
    edited = edit(text)
    return f"{head}\n\n{edited}" if edited else head
