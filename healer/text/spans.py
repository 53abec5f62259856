"""Untrusted text inside Markdown and inside the job log: code spans it cannot close, lines the runner
cannot obey.

Check names, branch names, file and test names and agent notes come from whoever opened the pull request (a
job
name is whatever the workflow file says, YAML escapes included). Everywhere the healer writes Markdown (PR
comments, fix-PR bodies, the job summary) such a name enters only through :func:`code`, one inline code span:

* the span is delimited by a backtick run longer than any run inside, so the text cannot close it (CommonMark:
  a code span ends at the first backtick string of *equal* length);
* newlines, NULs and every other non-printable character (controls, bidi and zero-width marks, line and
  paragraph separators) are folded to a space, so the span stays on one line and no block (a heading, an HTML
  comment such as ``<!--`` or ``-->``) can start;
* ``@mention``, ``![](…)`` and ``[](…)`` are defused with a zero-width space even inside the span, so a
  template that forgets the span, or a renderer that reads it differently, still pings no one and loads
  nothing.

In the job log, the runner reads any line that starts with ``::`` (after leading whitespace) as a workflow
command, e.g. ``::add-mask::`` or ``::warning::``, and the older ``##[command]`` form too; see
https://docs.github.com/en/actions/using-workflows/workflow-commands-for-github-actions ("Stopping and
starting
workflow commands"). :func:`needs_stop_commands` says when a message must be printed with commands off
(``::stop-commands::<token>`` … ``::<token>::``, as :class:`healer.text.report.Reporter` does).
"""

from __future__ import annotations

import re

__all__ = ["code", "defuse", "fence", "needs_stop_commands", "one_line"]

_ZWSP = "\u200b"
_BACKTICKS = re.compile(r"`+")
# what GitHub turns into a notification, an image or a link
_MENTION = re.compile(r"@(?=[A-Za-z0-9_-])")
_LINK = re.compile(r"(!)(?=\[)|(\])(?=\()")
# a line the runner may read as a command: `::name …::` after optional whitespace, or `##[name]`
_COMMAND = re.compile(r"^\s*::|##\[")


def _fold(text: str) -> str:
    """Every non-printable character (newlines, NUL, bidi and zero-width marks) as a space; runs collapsed."""
    return " ".join("".join(ch if ch.isprintable() else " " for ch in text).split())


def one_line(text: str) -> str:
    """``text`` on one line: every character that is not printable (line breaks of every kind, NUL, bidi and
    zero-width marks) becomes a space, so no part of it starts a line of the job log."""
    return "".join(ch if ch.isprintable() else " " for ch in text)


def defuse(text: str) -> str:
    """``@`` that could start a mention, and ``![`` / ``](`` that could start an image or a link, broken by a
    zero-width space."""
    return _LINK.sub(lambda m: (m.group(1) or m.group(2)) + _ZWSP, _MENTION.sub("@" + _ZWSP, text))


def code(text: object, limit: int = 0) -> str:
    """``text`` as one inline Markdown code span on one line that the text cannot close.

    ``limit`` (characters, 0 for none) clips long text with an ellipsis before it is fenced."""
    flat = defuse(_fold(str(text)))
    if limit and len(flat) > limit:
        flat = flat[: max(1, limit - 1)] + "…"
    if not flat:
        return "` `"
    longest = max((len(run) for run in _BACKTICKS.findall(flat)), default=0)
    ticks = "`" * (longest + 1)
    # CommonMark strips one space on each side when both are there; a backtick at an edge needs the space
    pad = " " if flat.startswith("`") or flat.endswith("`") else ""
    return f"{ticks}{pad}{flat}{pad}{ticks}"


def fence(text: str, info: str = "") -> str:
    """``text`` in a backtick fence longer than any backtick run inside it (min. 3), so it cannot close."""
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    ticks = "`" * max(3, longest + 1)
    body = text if text.endswith("\n") or not text else text + "\n"
    return f"{ticks}{info}\n{body}{ticks}"


def needs_stop_commands(text: str) -> bool:
    """Whether printing ``text`` to the job log as it is could give the runner a workflow command: one of its
    lines starts with ``::`` or holds ``##[``, or it holds a character that splits lines (the runner splits
    on more than ``\\n``)."""
    if any(not ch.isprintable() and ch not in "\n\t" for ch in text):
        return True
    return any(_COMMAND.search(line) for line in text.split("\n"))
