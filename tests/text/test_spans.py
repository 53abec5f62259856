"""Untrusted names in Markdown code spans and in the job log."""

from __future__ import annotations

import io
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from healer.text.report import Reporter
from healer.text.spans import code, defuse, needs_stop_commands, one_line

HOSTILE = [
    "lint `` @octocat ``",
    "![x](https://evil.example/p.png)",
    "[click](https://evil.example)",
    "a\nb\r\nc",
    "nul\x00byte",
    "--> <!-- <script>",
    "::add-mask::secret",
    "::warning::pwned",
    "`",
    "``",
    "` a `",
    " ",
    "",
    "\u202egnp.exe",
    "x\u2028y\u2029z\x85w",
]

names = st.one_of(
    st.sampled_from(HOSTILE),
    st.text(alphabet=st.sampled_from(list("`@![]()-<>:\n\r\x00 ab")), max_size=60),
    st.text(max_size=60),
)


def code_span_end(text: str) -> int:
    """Where the code span that opens ``text`` ends (CommonMark: the next backtick run of the same length),
    or -1 when it never closes."""
    opener = re.match(r"`+", text)
    assert opener, text
    ticks = len(opener.group(0))
    for run in re.finditer(r"`+", text[ticks:]):
        if len(run.group(0)) == ticks:
            return ticks + run.end()
    return -1


@settings(max_examples=500, deadline=None)
@given(names)
def test_a_name_is_one_code_span_it_cannot_close(name: str) -> None:
    span = code(name)
    assert code_span_end(span) == len(span), span  # the span closes exactly at its end, never earlier
    assert all(ch.isprintable() or ch == "\u200b" for ch in span)  # one line: no newline, NUL, bidi
    inner = span.strip("`")
    assert not re.search(r"@[A-Za-z0-9_-]", inner)  # no mention, even inside the span
    assert "](" not in inner and "![" not in inner  # no link or image, even inside the span


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        pytest.param("lint", "`lint`", id="plain"),
        pytest.param("a `b` c", "``a `b` c``", id="backticks-inside"),
        pytest.param("`edge`", "`` `edge` ``", id="backtick-at-the-edges"),
        pytest.param("ping @team", "`ping @\u200bteam`", id="mention"),
        pytest.param("![i](u) [l](u)", "`!\u200b[i]\u200b(u) [l]\u200b(u)`", id="image-and-link"),
        pytest.param("two\nlines", "`two lines`", id="newline"),
        pytest.param("", "` `", id="empty"),
    ],
)
def test_code_examples(name: str, expected: str) -> None:
    assert code(name) == expected


def test_a_long_name_is_clipped_before_it_is_fenced() -> None:
    span = code("`" * 5 + "x" * 500, limit=40)
    assert len(span) < 60 and span.endswith("`") and code_span_end(span) == len(span)


def test_defuse_leaves_ordinary_text() -> None:
    assert defuse("a@ b [x] (y) !") == "a@ b [x] (y) !"


@pytest.mark.parametrize(
    ("message", "unsafe"),
    [
        pytest.param("'lint': heal", False, id="plain"),
        pytest.param("::warning::x", True, id="leading-command"),
        pytest.param("   ::add-mask::x", True, id="indented-command"),
        pytest.param("job 'a\n::add-mask::b'", True, id="newline-then-command"),
        pytest.param("job 'a' ##[error]b", True, id="legacy-command-anywhere"),
        pytest.param("job 'a\rb'", True, id="carriage-return"),
        pytest.param("job 'a\u2028b'", True, id="line-separator"),
        pytest.param("a :: b", False, id="colons-inside"),
    ],
)
def test_needs_stop_commands(message: str, unsafe: bool) -> None:
    assert needs_stop_commands(message) is unsafe


def commands_outside_stop_blocks(log: str) -> list[str]:
    """The lines the runner would read as workflow commands."""
    out: list[str] = []
    token: str | None = None
    for line in re.split(r"\r\n|\r|\n|\u2028|\u2029|\x85", log):
        if token is not None:
            if line == f"::{token}::":
                token = None
            continue
        stop = re.match(r"::stop-commands::(.+)$", line)
        if stop:
            token = stop.group(1)
            continue
        if line.lstrip().startswith("::") or "##[" in line:
            out.append(line)
    return out


@settings(max_examples=200, deadline=None)
@given(names)
def test_the_log_never_gives_the_runner_a_command_from_a_name(name: str) -> None:
    out = io.StringIO()
    reporter = Reporter(out)
    reporter.info(f"{name!s}: lint (rule ruff, fix)")
    reporter.info(f"pull request #7 from {name}")
    assert commands_outside_stop_blocks(out.getvalue()) == []
    assert one_line(name).strip() == "" or one_line(name)[:5] in out.getvalue()  # still printed, folded
    # folded: each message is one line of the log (besides the stop-commands lines around it), whatever
    # line breaks the name held
    lines = [
        line
        for line in re.split(r"\r\n|\r|\n|\u2028|\u2029|\x85", out.getvalue())
        if line and not line.startswith("::stop-commands::") and not re.fullmatch(r"::[0-9a-f]{32}::", line)
    ]
    assert len(lines) == 2, lines
