"""What GitHub would have notified people of, read back from the requests the stand-in took.

GitHub notifies a pull request's subscribers when a comment is created, a reviewer when a review is
requested, and a user mentioned in a created comment or a new pull request's body; an edit notifies nobody,
not even of a mention it adds (BEHAVIOUR.md, "Pull requests, branches and comments"). Tests read a sequence
of runs through :func:`texts`: which texts were created (heard) and which were only edited, each with its
first visible line (the part a notification shows first).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from healer.demo.state import RecordedRequest

_MARKER = re.compile(r"^\s*<!--.*-->\s*$")
_NUMBER = re.compile(r"/(?:issues|pulls)/(\d+)(?:/|$)")
# a user (``@mona``) or a team (``@octo-org/maintainers``)
_MENTION = re.compile(r"(?<![\w`])@([A-Za-z0-9][A-Za-z0-9-]{0,38}(?:/[A-Za-z0-9][\w.-]*)?)(?![\w-])")


@dataclass(frozen=True)
class Text:
    """One text a run wrote on a pull request (``number``)."""

    kind: str  # "comment", "edit", "review request", "pull request", "pull request edit"
    number: int
    first_line: str  # the first visible line ("" for a review request); markers are hidden
    notifies: bool  # whether GitHub sends a notification for it
    mentions: tuple[str, ...] = ()  # logins a created text mentions (notified too)
    reviewers: tuple[str, ...] = ()


_HIDDEN = re.compile(r"<!--.*?-->")


def first_line(body: str) -> str:
    """The first visible line of a comment or pull request body (hidden markers and blank lines skipped, and
    a hidden mark at the start of a line, which GitHub does not show, left out)."""
    for line in body.split("\n"):
        shown = _HIDDEN.sub("", line).strip()
        if shown:
            return shown
    return ""


def texts(requests: Iterable[RecordedRequest]) -> list[Text]:
    """The texts written by the successful requests among ``requests``, in order."""
    found: list[Text] = []
    for request in requests:
        if not 200 <= request.status < 300:
            continue
        text = _text(request)
        if text is not None:
            found.append(text)
    return found


def heard(requests: Iterable[RecordedRequest]) -> list[Text]:
    """Only the texts that notify someone."""
    return [t for t in texts(requests) if t.notifies]


def _text(request: RecordedRequest) -> Text | None:
    body: Any = request.body if isinstance(request.body, dict) else {}
    response: Any = request.response if isinstance(request.response, dict) else {}
    if request.operation == "issues/create-comment":
        words = str(body.get("body", ""))
        return Text("comment", _number(request.path), first_line(words), True, _mentions(words))
    if request.operation == "issues/update-comment":
        number = _number(str(response.get("issue_url", "")))
        return Text("edit", number, first_line(str(body.get("body", ""))), False)
    if request.operation == "pulls/request-reviewers":
        reviewers = tuple(str(r) for r in body.get("reviewers", ()))
        return Text("review request", _number(request.path), "", True, reviewers=reviewers)
    if request.operation == "pulls/create":
        words = str(body.get("body") or "")
        number = int(response.get("number", 0) or 0)
        # opening a pull request notifies the repository's watchers, and whoever its body mentions
        return Text("pull request", number, str(body.get("title", "")), True, _mentions(words))
    if request.operation == "pulls/update" and ("body" in body or "title" in body):
        return Text("pull request edit", _number(request.path), str(body.get("title", "")), False)
    return None


def _number(path: str) -> int:
    found = _NUMBER.search(path)
    return int(found.group(1)) if found else 0


def _mentions(body: str) -> tuple[str, ...]:
    """Live mentions: outside code spans and fences (GitHub links no mention there)."""
    plain = re.sub(r"```.*?```", "", body, flags=re.DOTALL)
    plain = re.sub(r"`[^`\n]*`", "", plain)
    return tuple(dict.fromkeys(_MENTION.findall(plain)))
