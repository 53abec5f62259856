"""Broken-trunk notices in the ledger: which checks of a pull request the healer stays off because the base
branch fails them the same way.

A notice is a ``trunk`` marker (:class:`~healer.ledger.markers.Kind`) in the healer's own comment: ``check``
and ``workflow`` as in every marker, ``sha`` the pull request's head when it was written, ``run`` the base
branch's run that failed, ``result`` ``broken`` or ``lifted``. It spends no attempt (the ledger does not
count it). One comment per episode holds the notices of a pull request: a later run edits it in place
(:func:`notice_body`), and a reset of the check ends the episode.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from healer.ledger.markers import (
    MARKER_PREFIX,
    Kind,
    Marker,
    Signer,
    check_key,
    decode_markers,
    encode_marker,
)
from healer.model import Comment

BROKEN = "broken"
LIFTED = "lifted"


@dataclass(frozen=True)
class TrunkNotice:
    """The newest trunk marker of one check since its last reset, and the comment that holds it."""

    check: str
    comment_id: int
    run_id: int | None
    result: str  # broken, lifted
    sha: str = ""

    @property
    def open(self) -> bool:
        return self.result == BROKEN


def trunk_notices(
    comments: Sequence[Comment], bot_login: str, signer: Signer | None = None, *, workflow: str = ""
) -> dict[str, TrunkNotice]:
    """Per check of ``workflow`` (budget keys), its newest trunk notice since its last reset.

    Markers are trusted as the ledger trusts them: only in comments by ``bot_login`` (and, with ``signer``,
    signed for this pull request). A marker without a workflow belongs to every workflow.
    """
    login = bot_login.strip().casefold()
    key = check_key(workflow) if workflow else ""
    found: dict[str, TrunkNotice] = {}
    for comment in sorted(comments, key=lambda c: c.id):
        if not login or comment.author.casefold() != login:
            continue
        for marker in decode_markers(comment.body, signer):
            if key and marker.workflow and marker.workflow != key:
                continue
            if marker.kind is Kind.RESET:
                found.pop(marker.check, None)
            elif marker.kind is Kind.TRUNK:
                found[marker.check] = TrunkNotice(
                    marker.check, comment.id, marker.run_id, marker.result, marker.sha
                )
    return found


def trunk_marker(
    check: str,
    sha: str,
    run_id: int,
    run_attempt: int,
    *,
    workflow: str,
    category: str = "",
    lifted: bool = False,
) -> Marker:
    """The notice that ``check`` fails on the base branch (run ``run_id``), or that it no longer does."""
    return Marker(
        Kind.TRUNK,
        sha,
        check,
        run_id=run_id,
        run_attempt=run_attempt,
        category=category,
        result=LIFTED if lifted else BROKEN,
        workflow=workflow,
    )


def notice_body(old: str, markers: Sequence[Marker], text: str, signer: Signer | None = None) -> str:
    """The notice comment's new body: the old marker block without its trunk markers (other markers a reset
    may have added stay, line for line, never re-signed), the new trunk markers, then ``text``."""
    kept: list[str] = []
    for line in old.split("\n"):
        stripped = line.strip()
        if not stripped:
            continue
        if not stripped.startswith(f"<!-- {MARKER_PREFIX} "):
            break
        if any(m.kind is Kind.TRUNK for m in decode_markers(stripped)):
            continue
        kept.append(stripped)
    block = "\n".join([*kept, *(encode_marker(marker, signer) for marker in markers)])
    return f"{block}\n\n{text}" if text else block
