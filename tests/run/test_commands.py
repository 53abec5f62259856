"""``/ci-healer`` commands: the payload, strict parsing of untrusted comment text, and the replies."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from healer.run.commands import (
    MAX_CHECK,
    MAX_LINE,
    Command,
    CommentEventError,
    Verb,
    comment_event,
    denied_reply,
    help_text,
    parse_command,
    same_check,
)
from healer.text.dashboard import command
from healer.text.spans import one_line

WEBHOOKS = Path(__file__).parent.parent / "fixtures" / "github" / "webhooks"


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        pytest.param("/ci-healer retry", Command(Verb.RETRY), id="retry"),
        pytest.param("/ci-healer retry test (3.12)", Command(Verb.RETRY, "test (3.12)"), id="retry-check"),
        pytest.param("/ci-healer retry `test (3.12)`", Command(Verb.RETRY, "test (3.12)"), id="backticked"),
        pytest.param('/ci-healer explain "lint"', Command(Verb.EXPLAIN, "lint"), id="quoted"),
        pytest.param("/ci-healer RETRY\r\nplease, thanks", Command(Verb.RETRY), id="first-line-only"),
        pytest.param("/ci-healer stop", Command(Verb.STOP), id="stop"),
        pytest.param("/ci-healer  start  ", Command(Verb.START), id="start-spaces"),
        pytest.param("/ci-healer help", Command(Verb.HELP), id="help"),
        pytest.param("/ci-healer", Command(Verb.HELP), id="bare-is-help"),
        pytest.param("/ci-healer fix it", Command(None, problem="unknown command"), id="unknown"),
        pytest.param("/ci-healer stop now", Command(None, problem="`stop` takes no argument"), id="stop-arg"),
        pytest.param(
            "/ci-healer retry a\u202eb",
            Command(None, problem=f"a check name is at most {MAX_CHECK} printable characters"),
            id="bidi-control",
        ),
        pytest.param(
            "/ci-healer retry " + "x" * (MAX_CHECK + 1),
            Command(None, problem=f"a check name is at most {MAX_CHECK} printable characters"),
            id="long-check",
        ),
        pytest.param(
            "/ci-healer retry " + "x" * MAX_LINE,
            Command(None, problem=f"the command line is longer than {MAX_LINE} characters"),
            id="long-line",
        ),
    ],
)
def test_parse(body: str, expected: Command) -> None:
    assert parse_command(body) == expected


@pytest.mark.parametrize(
    "body",
    [
        pytest.param("Thanks! /ci-healer retry", id="not-at-the-start"),
        pytest.param(" /ci-healer retry", id="leading-space"),
        pytest.param("/ci-healerretry", id="no-space"),
        pytest.param("> /ci-healer retry", id="quoted-reply"),
        pytest.param("", id="empty"),
    ],
)
def test_comments_not_addressed_to_the_healer(body: str) -> None:
    assert parse_command(body) is None


@given(st.text(max_size=2000))
def test_any_comment_parses_to_a_bounded_command_or_nothing(body: str) -> None:
    command = parse_command("/ci-healer " + body)
    assert command is not None
    if command.check is not None:
        assert command.verb in (Verb.RETRY, Verb.EXPLAIN)
        assert 0 < len(command.check) <= MAX_CHECK
        assert "\n" not in command.check and "\r" not in command.check and "\x00" not in command.check


def test_github_example_payload_is_an_issue_not_a_pull_request() -> None:
    data = json.loads((WEBHOOKS / "issue_comment.created.1.json").read_text())
    event = comment_event(data)
    assert (event.action, event.number, event.is_pull_request) == ("created", data["issue"]["number"], False)
    assert (event.author, event.author_type, event.comment_id) == ("Codertocat", "User", 492700400)


def test_a_pull_request_comment_has_issue_pull_request() -> None:
    data = json.loads((WEBHOOKS / "issue_comment.created.1.json").read_text())
    data["issue"]["pull_request"] = {"url": "https://api.github.com/repos/o/r/pulls/1", "merged_at": None}
    assert comment_event(data).is_pull_request


@pytest.mark.parametrize("drop", ["issue", "comment"])
def test_a_payload_without_issue_or_comment_is_an_error(drop: str) -> None:
    data = json.loads((WEBHOOKS / "issue_comment.created.1.json").read_text())
    del data[drop]
    with pytest.raises(CommentEventError, match="no `issue` or `comment`"):
        comment_event(data)


def test_replies_show_names_only_in_code_spans() -> None:
    reply = denied_reply(Verb.RETRY, "@evil`` **x**", "read")
    # the hostile login stays inside one code span (however `code` defuses the mention within it)
    assert re.search(r"```[^`]*evil`` \*\*x\*\*``` has `read`", reply)
    assert "`ci-healer:off`" in help_text("ci-healer:off")


def _copied(span: str) -> str:
    """What a reader copies from a rendered inline code span (CommonMark: the fence and one padding space
    on each side go, when both sides have one)."""
    ticks = len(span) - len(span.lstrip("`"))
    inner = span[ticks:-ticks]
    if inner.startswith(" ") and inner.endswith(" ") and inner.strip():
        inner = inner[1:-1]
    return inner


@pytest.mark.parametrize(
    "check",
    [
        pytest.param("test (3.12)", id="plain"),
        pytest.param("deploy @staging", id="mention"),
        pytest.param("see ![x](http://e) and [y](z)", id="image-and-link"),
        pytest.param("lint`\n# x", id="backtick-newline"),
        pytest.param('"quoted"', id="double-quoted"),
        pytest.param("'single'", id="single-quoted"),
        pytest.param("`ticks`", id="backticked"),
        pytest.param("a  \t b", id="blank-runs"),
        pytest.param("x\u202ey\u200bz", id="bidi-and-zero-width"),
    ],
)
def test_a_dashboard_command_copied_and_pasted_names_its_check(check: str) -> None:
    span = command("retry", check)
    assert span is not None
    parsed = parse_command(_copied(span))
    assert parsed is not None and parsed.verb is Verb.RETRY and parsed.check is not None
    assert same_check(check, parsed.check)


@given(st.text(min_size=1, max_size=MAX_CHECK))
def test_any_check_name_copies_back_or_is_shown_without_a_command(check: str) -> None:
    span = command("retry", check)
    if span is None:
        flat = " ".join(one_line(check).split())
        assert not flat or len(flat) > MAX_CHECK
        return
    parsed = parse_command(_copied(span))
    assert parsed is not None and parsed.verb is Verb.RETRY, (span, parsed)
    assert parsed.check is not None and same_check(check, parsed.check)
    assert not same_check(check + "x", parsed.check)


def test_same_check_folds_blanks_and_case_but_not_letters() -> None:
    assert same_check("Test  (3.12)", "test (3.12)")
    assert same_check("a\nb", "a b")
    assert not same_check("test (3.12)", "test (3.13)")
