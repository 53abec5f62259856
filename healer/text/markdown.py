"""Text for GitHub's Markdown: fences a text cannot close, inline code spans, defused mentions, clipping.

Everything the healer quotes from outside (log lines, check names, agent output) reaches a comment, a PR body
or a frame through these functions, which :mod:`healer.text.frames` registers as template filters.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from healer.text.spans import code, fence  # noqa: F401 - the span helpers live with the log's; re-exported here

# GitHub rejects comment bodies longer than this (REST "body is too long").
COMMENT_LIMIT = 65_536
# $GITHUB_STEP_SUMMARY is capped at 1 MiB per step.
SUMMARY_LIMIT = 1024 * 1024

_ZWSP = "\u200b"
_MENTION = re.compile(r"@(?=[A-Za-z0-9_-])")
_FENCE_LINE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def neutralize_mentions(text: str) -> str:
    """Insert a zero-width space after every ``@`` that could start a mention, outside fenced code blocks.

    Inside a fence GitHub does not link mentions, so the text stays byte-for-byte what the log said."""
    out: list[str] = []
    closer: str | None = None
    for line in text.splitlines(keepends=True):
        match = _FENCE_LINE.match(line)
        if closer is None:
            if match:
                closer = match.group(1)
                out.append(line)
            else:
                out.append(_MENTION.sub("@" + _ZWSP, line))
        else:
            fence_char = closer[0]
            if (
                match
                and match.group(1)[0] == fence_char
                and len(match.group(1)) >= len(closer)
                and not line.strip().strip(fence_char)
            ):
                closer = None
            out.append(line)
    return "".join(out)


def clip_lines(lines: tuple[str, ...] | list[str], max_lines: int, max_chars: int) -> str:
    """The last ``max_lines`` lines of an excerpt, at most ``max_chars`` characters (errors come last)."""
    kept = list(lines)[-max_lines:] if max_lines > 0 else []
    text = "\n".join(kept)
    if len(text) > max_chars:
        text = "…" + text[-max(0, max_chars - 1) :]
    return text


def _clip_head(text: str, max_lines: int, max_chars: int) -> str:
    """The first ``max_lines`` lines of ``text``, at most ``max_chars`` characters (a patch starts with the
    file names a reader needs)."""
    lines = text.splitlines()
    kept = "\n".join(lines[:max_lines])
    if len(kept) > max_chars:
        kept = kept[: max(0, max_chars - 1)]
    return kept + "\n…" if kept != "\n".join(lines) else text


def fit_comment(render: Callable[[int], str], markers: str, limit: int = COMMENT_LIMIT) -> str:
    """Render a comment within GitHub's size limit, its marker block (``markers``) on top.

    ``render(max_excerpt_lines)`` is called with fewer excerpt lines until the body fits; as a last resort the
    text is cut and the markers are kept (the ledger must survive any body). The ledger reads markers only
    from the top of a comment, so quoted log lines further down can never pass for one."""
    budget = limit - len(markers) - 2
    for lines in (60, 30, 10, 0):
        body = render(lines).strip("\n")
        if len(body) <= budget:
            break
    else:
        note = "\n\n_(cut to fit GitHub's comment size limit)_"
        body = body[: budget - len(note)] + note
    return f"{markers}\n\n{body}" if markers else body


def clip_summary(text: str, limit: int = SUMMARY_LIMIT) -> str:
    """The job summary cut to GitHub's 1 MiB limit (counted in UTF-8 bytes)."""
    data = text.encode()
    if len(data) <= limit:
        return text
    note = "\n\n_(summary cut to GitHub's 1 MiB limit)_\n"
    return data[: limit - len(note.encode()) - 4].decode(errors="ignore") + note
