"""``/ci-healer`` commands in pull-request comments: the ``issue_comment`` payload → :class:`CommentEvent`,
its text → :class:`Command`, and the healer's short replies. Pure: no I/O.

The comment is untrusted text. Only its first line is read, at most :data:`MAX_LINE` characters; the verb is
one of :class:`Verb`; the optional check name is kept as text, at most :data:`MAX_CHECK` characters, without
control characters. It is compared with job names and shown only in code spans (``frames.code``): it never
reaches a shell, a ``${{ }}`` expression or raw Markdown.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import Enum
from typing import Any

from healer.text.frames import code
from healer.text.spans import one_line

ZWSP = "\u200b"

PREFIX = "/ci-healer"
MAX_LINE = 300
MAX_CHECK = 200
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u2028-\u202e\u2066-\u2069\ufeff]")
_QUOTES = ("``", "`", '"', "'")


class Verb(str, Enum):
    RETRY = "retry"
    STOP = "stop"
    START = "start"
    EXPLAIN = "explain"
    HELP = "help"


# Commands that change something: they need write, maintain or admin permission on the repository.
ACTING = frozenset({Verb.RETRY, Verb.STOP, Verb.START})
_TAKES_CHECK = frozenset({Verb.RETRY, Verb.EXPLAIN})


@dataclass(frozen=True)
class Command:
    """A parsed command; ``verb`` is None for one the healer does not understand (``problem`` says why)."""

    verb: Verb | None
    check: str | None = None
    problem: str = ""


@dataclass(frozen=True)
class CommentEvent:
    """The parts of an ``issue_comment`` event a command needs."""

    action: str
    number: int
    is_pull_request: bool
    comment_id: int
    author: str
    author_type: str
    body: str
    html_url: str = ""


class CommentEventError(Exception):
    """The ``issue_comment`` payload lacks a field a command needs; the message names it."""


def comment_event(data: Mapping[str, Any]) -> CommentEvent:
    """Read an ``issue_comment`` payload. ``issue.pull_request`` is present only for pull requests."""
    issue, comment = data.get("issue"), data.get("comment")
    if not isinstance(issue, Mapping) or not isinstance(comment, Mapping):
        raise CommentEventError("the issue_comment payload has no `issue` or `comment` object")
    user = comment.get("user") if isinstance(comment.get("user"), Mapping) else {}
    number, comment_id = issue.get("number"), comment.get("id")
    if not isinstance(number, int) or not isinstance(comment_id, int) or isinstance(number, bool):
        raise CommentEventError("the issue_comment payload has no `issue.number` or `comment.id`")
    body = comment.get("body")
    return CommentEvent(
        action=str(data.get("action") or ""),
        number=number,
        is_pull_request=isinstance(issue.get("pull_request"), Mapping),
        comment_id=comment_id,
        author=str(user.get("login") or ""),
        author_type=str(user.get("type") or ""),
        body=body if isinstance(body, str) else "",
        html_url=str(comment.get("html_url") or ""),
    )


def is_command(body: str) -> bool:
    """Whether the comment is for the healer: it starts with ``/ci-healer`` and then a space or its end."""
    return body.startswith(PREFIX) and (len(body) == len(PREFIX) or body[len(PREFIX)].isspace())


def parse_command(body: str) -> Command | None:
    """The command in a comment, or None when the comment is not addressed to the healer."""
    if not is_command(body):
        return None
    line = body[: MAX_LINE + 1].split("\n", 1)[0].rstrip("\r")
    if len(line) > MAX_LINE:
        return Command(None, problem=f"the command line is longer than {MAX_LINE} characters")
    words = line[len(PREFIX) :].strip()
    if not words:
        return Command(Verb.HELP)
    verb_text, _, rest = words.partition(" ")
    try:
        verb = Verb(verb_text.casefold())
    except ValueError:
        return Command(None, problem="unknown command")
    # a command copied from a code span the healer wrote (the dashboard's) carries the zero-width spaces that
    # defuse mentions and links there (healer.text.spans.defuse): they are not part of any name
    argument = _unquote(rest.replace(ZWSP, "").strip())
    if not argument:
        return Command(verb)
    if verb not in _TAKES_CHECK:
        return Command(None, problem=f"`{verb.value}` takes no argument")
    if _CONTROL.search(argument) or len(argument) > MAX_CHECK:
        return Command(None, problem=f"a check name is at most {MAX_CHECK} printable characters")
    return Command(verb, argument)


def same_check(name: str, wanted: str) -> bool:
    """Whether the job ``name`` is the check a command names: compared as the healer shows names (on one line,
    runs of blanks as one space) and without regard to case."""

    def shown(text: str) -> str:
        return " ".join(one_line(text).split()).casefold()

    return shown(name) == shown(wanted)


def _unquote(text: str) -> str:
    for quote in _QUOTES:
        if len(text) > 2 * len(quote) and text.startswith(quote) and text.endswith(quote):
            return text[len(quote) : -len(quote)].strip()
    return text


# -- replies (healer-written Markdown; untrusted names only through `code`) ---------------------------------


def help_text(opt_out_label: str) -> str:
    """The list of commands (``/ci-healer help``)."""
    label = f" (adds the label {code(opt_out_label)})" if opt_out_label else ""
    return "\n".join(
        [
            "**ci-healer** commands (comment on the pull request):",
            "",
            "- `/ci-healer retry [check]`: one more heal attempt now on the latest failed run, beyond the "
            "budget",
            f"- `/ci-healer stop`: the healer leaves this pull request alone{label}",
            "- `/ci-healer start`: the healer looks after this pull request again",
            "- `/ci-healer explain [check]`: what the healer reads in the failure, without acting",
            "- `/ci-healer help`: this list",
            "",
            "`retry`, `stop` and `start` need write, maintain or admin permission on the repository. On a "
            "pull "
            "request from a fork, `retry` posts the diagnosis only.",
        ]
    )


def unknown_reply(command: Command) -> str:
    return f"**ci-healer**: {command.problem or 'unknown command'}. `/ci-healer help` lists the commands."


def denied_reply(verb: Verb, login: str, shown: str) -> str:
    return (
        f"**ci-healer**: `/ci-healer {verb.value}` needs write, maintain or admin permission on this "
        "repository; "
        f"{code(login)} has {code(shown)}. Nothing was done."
    )


def nothing_reply(why: str) -> str:
    return f"**ci-healer**: nothing to do: {why}"
