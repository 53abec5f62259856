"""Text cut to a budget: the head or the tail of a string, and earlier attempts' accounts for a frame."""

from __future__ import annotations

from collections.abc import Sequence

from healer.model import Account

# characters that the accounts of all earlier attempts share in one heal frame
FRAME_BUDGET = 4096


def tail(text: str, limit: int) -> str:
    """The last ``limit`` characters of ``text``, after an ellipsis when some were cut."""
    return text if len(text) <= limit else "…" + text[-(limit - 1) :]


def head(text: str, limit: int) -> str:
    """The first ``limit`` characters of ``text``, before an ellipsis when some were cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def for_frame(accounts: Sequence[Account]) -> list[Account]:
    """``accounts`` clipped to share :data:`FRAME_BUDGET` characters (the newest attempts count most)."""
    if not accounts:
        return []
    share = FRAME_BUDGET // len(accounts)
    return [
        Account(
            a.checks,
            a.attempt,
            a.sha,
            a.result,
            a.fix_pr,
            a.diffstat,
            diff=head(a.diff, share * 5 // 10),
            notes=tail(a.notes, share * 2 // 10),
            why=tail(a.why, share * 3 // 10),
        )
        for a in accounts
    ]
