"""Broken-trunk notices read back from the healer's comments, and the notice comment rewritten in place."""

from __future__ import annotations

from healer.ledger.ledger import Ledger
from healer.ledger.markers import Kind, Marker, Signer, comment_body, decode_markers, encode_marker
from healer.ledger.trunk import notice_body, trunk_marker, trunk_notices
from healer.model import Comment

BOT = "github-actions[bot]"
SHA = "a" * 40
WF = ".github/workflows/ci.yml"


def notice(check: str = "test", run: int = 7, *, lifted: bool = False, workflow: str = WF) -> Marker:
    return trunk_marker(check, SHA, run, 1, workflow=workflow, category="test", lifted=lifted)


def test_the_newest_notice_of_each_check_counts_and_a_reset_ends_it() -> None:
    comments = [
        Comment(1, BOT, comment_body([notice("test", 7), notice("lint", 7)], "text")),
        Comment(2, BOT, comment_body([notice("test", 9)], "text")),
        Comment(3, BOT, comment_body([Marker(Kind.RESET, SHA, "lint", workflow=WF)])),
    ]
    found = trunk_notices(comments, BOT, workflow=WF)
    assert {c: (n.comment_id, n.run_id, n.open) for c, n in found.items()} == {"test": (2, 9, True)}


def test_notices_by_anyone_else_or_of_another_workflow_are_not_read() -> None:
    comments = [
        Comment(1, "mallory", comment_body([notice()], "forged")),
        Comment(2, BOT, comment_body([notice(workflow=".github/workflows/other.yml")])),
    ]
    assert trunk_notices(comments, BOT, workflow=WF) == {}


def test_with_a_ledger_key_only_signed_notices_count() -> None:
    signer = Signer.for_pull("key", "o/r", 5)
    comments = [
        Comment(1, BOT, comment_body([notice("lint")])),
        Comment(2, BOT, comment_body([notice()], signer=signer)),
    ]
    assert list(trunk_notices(comments, BOT, signer, workflow=WF)) == ["test"]


def test_a_notice_spends_no_attempt_and_is_no_history() -> None:
    ledger = Ledger.from_comments([Comment(1, BOT, comment_body([notice()]))], BOT, workflow=WF)
    assert ledger.attempts_spent("test") == 0
    assert not ledger.has_history("test")
    assert ledger.history("test") == ()


def test_rewriting_the_notice_keeps_other_markers_line_for_line_and_replaces_its_own() -> None:
    reset = encode_marker(Marker(Kind.RESET, SHA, "build", workflow=WF), Signer.for_pull("key", "o/r", 5))
    old = "\n".join([encode_marker(notice("test", 7)), reset]) + "\n\nold text"
    new = notice_body(old, [notice("test", 9)], "new text")
    assert new.split("\n")[0] == reset
    assert [m.run_id for m in decode_markers(new) if m.kind is Kind.TRUNK] == [9]
    assert new.endswith("\n\nnew text") and "old text" not in new


def test_a_lifted_notice_is_closed() -> None:
    comments = [
        Comment(1, BOT, comment_body([notice()])),
        Comment(1, BOT, comment_body([notice(lifted=True)])),
    ]
    [found] = trunk_notices(comments, BOT, workflow=WF).values()
    assert found.result == "lifted" and not found.open
