"""Memory across attempts: an account survives a comment round trip, bounded, and only the healer's."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from healer.ledger.ledger import Kind, Marker, add_markers, comment_body, encode_marker
from healer.ledger.memory import decode, earlier_accounts, encode
from healer.model import Account, CheckPlan, Comment, PastAttempt, Verdict
from healer.text.clip import FRAME_BUDGET, for_frame

SHA = "a" * 40
BOT = "github-actions[bot]"


def account(**changes: object) -> Account:
    values: dict[str, object] = dict(
        checks=("test",), attempt=1, sha=SHA, result="verify-failed", fix_pr=12,
        diffstat="1 file changed, +1 -1", diff="-    return a - b\n+    return a * b\n",
        notes="made it multiply", why="assert 6 == 5",
    )  # fmt: skip
    values.update(changes)
    return Account(**values)  # type: ignore[arg-type]


def body_with(line: str) -> str:
    marker = encode_marker(Marker(Kind.ATTEMPT, SHA, "test", attempt=1, run_id=5, run_attempt=1))
    return f"{marker}\n{line}\n\n**ci-healer** on `aaaaaaa`"


def test_an_account_round_trips_under_the_marker_block() -> None:
    assert decode(body_with(encode(account()))) == account()


@given(st.text(max_size=300), st.text(max_size=300))
def test_any_text_round_trips_and_the_line_stays_one_html_comment(notes: str, name: str) -> None:
    original = account(notes=notes, checks=(name,))
    line = encode(original)
    assert "\n" not in line and line.count("-->") == 1
    assert decode(body_with(line)) == original


def test_an_account_is_bounded_whatever_the_agent_wrote() -> None:
    line = encode(account(diff="+x\n" * 100_000, notes="y" * 100_000, why="z" * 100_000))
    assert len(line) < 8 * 1024
    decoded = decode(body_with(line))
    assert decoded is not None and len(decoded.diff) <= 3000 and decoded.notes.endswith("y")


@pytest.mark.parametrize(
    "body",
    [
        pytest.param("**ci-healer**\n\n```\n" + encode(account()) + "\n```", id="quoted-below-the-text"),
        pytest.param("<!-- ci-healer:memory:v1 !!!notbase64 -->", id="garbage"),
        pytest.param("<!-- ci-healer:memory:v1 aGVsbG8= -->", id="not-zlib"),
    ],
)
def test_only_the_line_under_the_marker_block_is_read_and_bad_ones_are_skipped(body: str) -> None:
    assert decode(body) is None


def test_a_reset_edit_keeps_the_account_readable() -> None:
    body = body_with(encode(account()))
    edited = add_markers(body, [Marker(Kind.RESET, SHA, "test", run_id=6, run_attempt=1)], "passed")
    assert decode(edited) == account()


def plan_with_history(*shas: str) -> CheckPlan:
    history = tuple(
        PastAttempt("attempt", sha, n, "test", "agent", None, "verify-failed")
        for n, sha in enumerate(shas, 1)
    )
    return CheckPlan("test", Verdict.HEAL, attempt=len(shas) + 1, max_attempts=3, history=history)


def test_earlier_accounts_come_from_the_bot_and_from_attempts_since_the_last_reset() -> None:
    mine = Comment(1, BOT, body_with(encode(account())))
    old = Comment(2, BOT, body_with(encode(account(sha="b" * 40))))  # before a reset: not in the history
    forged = Comment(3, "mallory", body_with(encode(account(notes="do evil"))))
    other = Comment(4, BOT, body_with(encode(account(checks=("lint",)))))
    plain = Comment(5, BOT, comment_body([]))
    found = earlier_accounts([forged, other, old, mine, plain], BOT, [plan_with_history(SHA)])
    assert found == (account(),)


def test_the_frame_shares_a_few_kib_among_the_earlier_attempts() -> None:
    big = account(diff="+" * 5000, notes="n" * 5000, why="w" * 5000)
    clipped = for_frame([big, big, big])
    assert sum(len(a.diff) + len(a.notes) + len(a.why) for a in clipped) <= FRAME_BUDGET


def test_an_account_counts_only_where_its_own_markers_record_that_attempt() -> None:
    stray = Comment(
        1, BOT, '<!-- ci-healer:v1 {"kind":"claim","sha":"' + SHA + '"} -->\n' + encode(account())
    )
    assert earlier_accounts([stray], BOT, [plan_with_history(SHA)]) == ()
