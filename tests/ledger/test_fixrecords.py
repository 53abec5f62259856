"""The ledger's second source: the records at the top of the healer's fix pull requests' bodies."""

from __future__ import annotations

from dataclasses import replace

from healer.github.convert import with_records_of
from healer.ledger.fixrecords import fix_number, fix_records, is_fix_record, ledger_order, repository_records
from healer.ledger.ledger import Ledger
from healer.ledger.markers import Kind, Marker, Signer, comment_body, decode_markers
from healer.ledger.stats import events_of
from healer.model import Comment, PullRequest
from healer.text.head import split_head, under_head
from healer.text.proof import with_ci_line

BOT = "github-actions[bot]"
REPO = "octo/repo"
SHA1, SHA2 = "a" * 40, "b" * 40
PR = PullRequest(7, "open", "Add double()", "alice", SHA2, "feature", REPO, "main", REPO)


def attempt(sha: str, number: int = 1, fix_pr: int = 101) -> Marker:
    return Marker(
        Kind.ATTEMPT, sha, "lint", attempt=number, run_id=900 + number, run_attempt=1, fix_pr=fix_pr
    )


def fix(number: int, body: str, *, at: str = "2026-01-01T10:00:00Z", **changes: object) -> PullRequest:
    branch = f"ci-healer/7-{SHA1[:7]}"
    title = "ci-healer: fix lint for #7"
    pull = PullRequest(
        number, "open", title, BOT, "c" * 40, branch, REPO, "feature", REPO, body=body, created_at=at
    )
    return replace(pull, **changes)  # type: ignore[arg-type]


def test_only_the_bots_fix_pull_requests_of_this_pull_request_count() -> None:
    body = comment_body([attempt(SHA1)], "The fix.")
    pulls = [
        fix(101, body),
        fix(102, body, author="mallory"),  # a person's pull request of the same shape
        fix(103, body, head_ref="feature-2"),  # not a fix branch
        fix(104, body, head_ref=f"ci-healer/8-{SHA1[:7]}"),  # another pull request's fix
        fix(105, body, head_repository="mallory/repo"),  # a fork's branch of that name
        fix(106, body, base_ref="main"),  # not into this pull request's branch
        fix(107, body, state="closed"),  # closed (superseded, retired): still history
    ]
    records = fix_records(pulls, PR, BOT)
    assert [fix_number(r) for r in records] == [101, 107]
    assert all(is_fix_record(r) and r.author == BOT for r in records)
    assert Ledger.from_comments(records, BOT).attempts_spent("lint") == 1


def test_records_are_read_in_the_order_they_were_written_with_the_comments() -> None:
    record = fix_records([fix(101, comment_body([attempt(SHA1)]), at="2026-01-01T10:00:00Z")], PR, BOT)
    reset = Marker(Kind.RESET, SHA2, "lint", run_id=950, run_attempt=1)
    before = Comment(5, BOT, comment_body([reset]), created_at="2026-01-01T09:00:00Z")
    after = Comment(6, BOT, comment_body([reset]), created_at="2026-01-01T11:00:00Z")
    # a reset written after the fix opened ends that attempt; one written before it does not
    assert Ledger.from_comments([after, *record], BOT).attempts_spent("lint") == 0
    assert Ledger.from_comments([before, *record], BOT).attempts_spent("lint") == 1
    # the newest record is the one a reset edits: here the fix's body
    assert Ledger.from_comments([before, *record], BOT).latest_comment == record[0]
    assert [c.id for c in ledger_order([after, before, *record])] == [5, -101, 6]
    # without times (a fake), comments go by id and fix records after them
    assert [c.id for c in ledger_order([replace(after, created_at=""), *record])] == [6, -101]


def test_a_signed_ledger_reads_only_signed_records_of_this_pull_request() -> None:
    signer = Signer.for_pull("k3y", REPO, 7)
    other = Signer.for_pull("k3y", REPO, 8)
    assert signer is not None and other is not None
    signed = fix(101, comment_body([attempt(SHA1)], "fix", signer))
    unsigned = fix(102, comment_body([attempt(SHA2, 2)], "fix"), created_at="2026-01-01T11:00:00Z")
    elsewhere = fix(103, comment_body([attempt(SHA2, 3)], "fix", other), created_at="2026-01-01T12:00:00Z")
    ledger = Ledger.from_comments(fix_records([signed, unsigned, elsewhere], PR, BOT), BOT, signer)
    assert ledger.attempts_spent("lint") == 1


def test_text_edited_over_a_body_keeps_its_records_first() -> None:
    account = "<!-- ci-healer:memory:v1 eyJ4IjoxfQ== -->"
    body = comment_body([attempt(SHA1)], f"{account}\n\n:white_check_mark: A fix.\n\nDetails.")
    head, text = split_head(body)
    assert head.endswith(account) and text.startswith(":white_check_mark:")
    first = with_ci_line(body, ":x: **CI failed**", first=True)
    assert decode_markers(first) == [attempt(SHA1)]
    assert first.split("\n")[1] == account  # the account stays right under the markers
    assert first.split("\n\n")[1] == ":x: **CI failed**"  # the first visible line
    closed = under_head(first, lambda t: f"> Superseded.\n\n{t}")
    assert decode_markers(closed) == [attempt(SHA1)] and "> Superseded." in closed
    assert under_head("no records", str.upper) == "NO RECORDS"
    # a reused fix pull request's new body keeps the records of the one it replaces
    assert decode_markers(with_records_of(first, "The newer fix.")) == [attempt(SHA1)]
    assert with_records_of("plain", "new") == "new"


def test_the_report_reads_fix_records_under_the_pull_request_they_fix() -> None:
    body = comment_body([attempt(SHA1)], "The fix.")
    pulls = [fix(101, body), fix(102, body, author="mallory"), fix(103, body, head_ref="feature")]
    records = repository_records(pulls, BOT)
    assert [(r.id, r.issue) for r in records] == [(-101, 7)]
    [event] = events_of(records, BOT)
    assert (event.pull, event.marker.kind, event.marker.fix_pr) == (7, Kind.ATTEMPT, 101)
