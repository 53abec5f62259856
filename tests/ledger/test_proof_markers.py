"""A fix pull request's CI verdict in the ledger: recorded on the attempt's comment, it spends nothing and
settles no claim; a failure goes into the attempt's memory, where the next attempt reads it."""

from __future__ import annotations

from healer.ledger.ledger import Kind, Ledger, Marker, add_markers, comment_body, decode_markers
from healer.ledger.memory import decode, encode, with_why
from healer.model import Account, Comment

SHA = "a" * 40
FIX_HEAD = "b" * 40
BOT = "github-actions[bot]"


def attempt_comment(extra: list[Marker] | None = None, text: str = "Attempt 1 of 3.") -> Comment:
    attempt = Marker(
        Kind.ATTEMPT, SHA, "lint", attempt=1, run_id=5, run_attempt=1, fix_pr=13, result="opened"
    )
    account = encode(Account(checks=("lint",), attempt=1, sha=SHA, result="opened", fix_pr=13, why="first"))
    body = comment_body([attempt], f"{account}\n\n{text}")
    if extra:
        body = add_markers(body, extra, "CI on fix #13: failed.")
    return Comment(id=1, author=BOT, body=body, created_at="2026-01-01T00:00:00Z")


def proof(result: str, run_id: int = 77) -> Marker:
    return Marker(
        Kind.PROOF, FIX_HEAD, "lint", attempt=1, run_id=run_id, run_attempt=1, fix_pr=13, result=result
    )


def test_a_proof_is_read_back_from_the_attempt_comment_and_spends_nothing() -> None:
    before = Ledger.from_comments([attempt_comment()], BOT)
    after = Ledger.from_comments([attempt_comment([proof("failed"), proof("passed", 78)])], BOT)

    assert after.attempts_spent("lint") == before.attempts_spent("lint") == 1
    assert after.fix_prs("lint") == before.fix_prs("lint") == (13,)
    markers = decode_markers(attempt_comment([proof("failed")]).body)
    assert [m.kind for m in markers] == [Kind.ATTEMPT, Kind.PROOF]
    assert markers[1].result == "failed" and markers[1].sha == FIX_HEAD


def test_a_failure_is_added_to_the_end_of_the_account_and_nothing_else_moves() -> None:
    body = attempt_comment().body

    updated = with_why(
        body, "Its fix pull request #13 failed CI on the fix branch (CI, run 77):\n- test: boom"
    )

    account = decode(updated)
    assert account is not None and account.why.startswith("first\n")
    assert account.why.endswith("- test: boom")
    assert decode_markers(updated) == decode_markers(body)
    # only the account's own line changed
    changed = [
        i for i, (a, b) in enumerate(zip(updated.split("\n"), body.split("\n"), strict=True)) if a != b
    ]
    assert changed == [2]


def test_a_comment_without_an_account_is_left_as_it_is() -> None:
    body = comment_body([proof("passed")], "no account here")
    assert with_why(body, "anything") == body
