"""The dashboard's checkboxes: a box per escalation ("retry") and per open fix pull request ("close"), each
with a hidden reference the healer can verify, and the ticks read back from an ``issues: edited`` event.

A box is one task-list line, as Renovate's Dependency Dashboard draws them::

    - [ ] <!-- ci-healer:box retry 12 bGludA digest --> #12 `title`: `lint` failing since 2026-01-20 …

The reference names the action, the pull request and (base64url, so no name can end the HTML comment) the
check; its digest covers the repository, the action, the number, the check and the visible text after it.
With a ``ledger-key`` the digest is an HMAC under that secret, so a box typed into the issue by anyone, with
write access or not, is refused; without one it is a plain SHA-256, which still refuses a box whose visible
text was changed after the healer wrote it (a box saying "retry #12" that would close #13). Who may tick at
all is the editor's repository permission, checked by :mod:`healer.run.dashboardrun`.

A tick is a box that went from ``[ ]`` in ``changes.body.from`` (the body before the edit) to ``[x]`` in the
body after it, with the same line otherwise: a line a person typed ticked, or one they changed as they ticked
it, is no tick. Pure: no I/O.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import re
from dataclasses import dataclass

RETRY = "retry"
CLOSE = "close"
_PREFIX = "ci-healer:box"
_LINE = re.compile(
    r"^- \[(?P<mark>[ xX])\] <!-- ci-healer:box (?P<action>retry|close) (?P<number>[1-9][0-9]{0,9})"
    r"(?: (?P<arg>[A-Za-z0-9_-]+))? (?P<digest>[0-9a-f]{32}) -->(?P<text>[^\r\n]*)$"
)
MAX_CHECK_BYTES = 600  # a job name is at most a few hundred characters; a longer reference is no box of ours


@dataclass(frozen=True)
class Box:
    """What a box does when ticked: ``retry`` ``check`` on pull request ``number``, or ``close`` fix pull
    request ``number`` (``check`` is then empty)."""

    action: str
    number: int
    check: str = ""


def _b64(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode("utf-8")).decode("ascii").rstrip("=")


def _unb64(text: str) -> str | None:
    if len(text) > MAX_CHECK_BYTES * 4 // 3 + 4:
        return None
    try:
        return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4)).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError, ValueError):
        return None


def _digest(box: Box, text: str, *, repository: str, key: str) -> str:
    message = "\n".join(
        [_PREFIX, repository.casefold(), box.action, str(box.number), _b64(box.check), text]
    ).encode("utf-8")
    # 128 bits are plenty: without the key a forger has nothing to test guesses against but the healer itself
    if key:
        return hmac.new(key.encode("utf-8"), message, hashlib.sha256).hexdigest()[:32]
    return hashlib.sha256(message).hexdigest()[:32]


def render_box(box: Box, text: str, *, repository: str, key: str = "") -> str:
    """The unticked task-list line of ``box``; ``text`` (healer-written Markdown, one line) follows it."""
    flat = " ".join(text.split())
    digest = _digest(box, flat, repository=repository, key=key)
    argument = f" {_b64(box.check)}" if box.check else ""
    return f"- [ ] <!-- {_PREFIX} {box.action} {box.number}{argument} {digest} --> {flat}"


def _read(line: str, *, repository: str, key: str) -> tuple[bool, Box] | None:
    """(ticked, box) for a line that is one of the healer's boxes with a valid digest, else None."""
    found = _LINE.match(line.rstrip("\r"))
    if found is None:
        return None
    check = _unb64(found["arg"] or "")
    if check is None or (found["action"] == RETRY) != bool(check):
        return None
    box = Box(found["action"], int(found["number"]), check)
    text = found["text"].removeprefix(" ")
    if not hmac.compare_digest(_digest(box, text, repository=repository, key=key), found["digest"]):
        return None
    return found["mark"] != " ", box


def _unticked(line: str) -> str:
    return line[:3] + " " + line[4:]


def ticked_boxes(before: str, after: str, *, repository: str, key: str = "") -> list[tuple[Box, str]]:
    """The healer's boxes ticked by the edit ``before`` → ``after``, with each one's line in ``after``.

    A tick counts when the verified line is ticked in ``after`` and the very same line, unticked, was in
    ``before``. Each box counts once, however often its line appears."""
    earlier = set(before.splitlines())
    found: dict[Box, str] = {}
    for line in after.splitlines():
        read = _read(line, repository=repository, key=key)
        if read is None or not read[0] or read[1] in found:
            continue
        if _unticked(line) in earlier:
            found[read[1]] = line
    return list(found.items())


def untick(body: str, box: Box, *, repository: str, key: str = "") -> str | None:
    """``body`` with ``box`` unticked again (the tick was handled), or None when it is not ticked there
    (another run handled it already, or the dashboard was re-rendered since)."""
    lines = body.split("\n")
    changed = False
    for i, line in enumerate(lines):
        read = _read(line, repository=repository, key=key)
        if read is not None and read[0] and read[1] == box:
            lines[i] = _unticked(line)
            changed = True
    return "\n".join(lines) if changed else None
