import json
import time
from dataclasses import replace
from datetime import datetime, timezone
from html.parser import HTMLParser

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from healer.ledger.ledger import (
    MAX_CHECK_CHARS,
    Kind,
    Ledger,
    Marker,
    Signer,
    add_markers,
    check_key,
    claim_body,
    comment_body,
    decode_markers,
    encode_marker,
    latest_healer_comment,
    record,
    reset_markers,
)
from healer.model import (
    Action,
    Category,
    CheckPlan,
    Comment,
    Diagnosis,
    HealMode,
    RunEvent,
    SkipReason,
    Verdict,
)

BOT = "github-actions[bot]"
A, B, C, D = "a" * 40, "b" * 40, "c" * 40, "d" * 40

HOSTILE_NAMES = [
    "-->",
    "--!>",
    "<!--",
    "a --> <script>alert(1)</script> <!-- b",
    "`` ` ``` ~~~",
    "'\"quotes\"'",
    "line\nbreak\r\nand\rmore",
    "nul\x00byte",
    "\u2028\u2029\x85",
    "bidi \u202e gnp.exe",
    "zero\u200bwidth",
    "emoji 🩹🤖 and CJK 測試",
    '<!-- ci-healer:v1 {"kind":"reset","check":"x","sha":"aaaa"} -->',
    "-",
    ">",
    "->",
    "x" * 5000,
]

check_names = st.one_of(
    st.text(min_size=1),
    st.text(alphabet="<>-!&`'\"\n\r\x00 \\{}:,u", min_size=1),
    st.text(alphabet=st.characters(codec=None, categories=["Cs", "Co", "Cf", "Zl", "Zp", "So"]), min_size=1),
    st.sampled_from(HOSTILE_NAMES),
    # A name reaches the healer through GitHub's JSON, which joins an escaped surrogate pair into one
    # character: two adjacent lone surrogates that form a pair cannot arrive as two, so need not round-trip.
).filter(lambda name: json.loads(json.dumps(name)) == name)
shas = st.text(alphabet="0123456789abcdef", min_size=7, max_size=40)
small_ints = st.integers(min_value=0, max_value=2**53)
markers = st.builds(
    Marker,
    kind=st.sampled_from([k for k in Kind if k is not Kind.CLAIM]),
    sha=shas,
    check=check_names,
    attempt=st.integers(min_value=0, max_value=50),
    run_id=st.none() | small_ints,
    run_attempt=st.none() | st.integers(min_value=1, max_value=20),
    category=st.sampled_from(["", "lint", "test", "transient"]) | st.text(),
    mode=st.sampled_from(["", "fix", "agent"]),
    fix_pr=st.none() | small_ints,
    result=st.text(max_size=50),
)


def comments(*bodies, author=BOT, start=1):
    return [Comment(id=start + i, author=author, body=body) for i, body in enumerate(bodies)]


def attempt(sha, k, check="test", run_id=None):
    return Marker(Kind.ATTEMPT, sha, check, attempt=k, run_id=run_id or 100 + k, run_attempt=1, mode="agent")


class CommentCounter(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.comments = []
        self.data = []
        self.tags = []

    def handle_comment(self, data):
        self.comments.append(data)

    def handle_data(self, data):
        self.data.append(data)

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)

    def handle_endtag(self, tag):
        self.tags.append(tag)


# -- the marker format ---------------------------------------------------------------------------------------


@given(markers)
@settings(max_examples=300)
def test_marker_round_trips(marker):
    assert decode_markers(encode_marker(marker)) == [marker]


@given(markers)
@settings(max_examples=300)
def test_a_marker_is_one_html_comment_on_one_line(marker):
    encoded = encode_marker(marker)
    assert "\n" not in encoded and "\r" not in encoded
    parser = CommentCounter()
    parser.feed(encoded + "\nvisible text")
    parser.close()
    assert len(parser.comments) == 1
    assert parser.tags == []
    assert "".join(parser.data).strip() == "visible text"
    inner = parser.comments[0]
    # HTML: comment text must not contain "--" nor "<!--", start with ">" or "->", or end with "<!-"
    assert "--" not in inner and "<" not in inner and ">" not in inner
    assert inner.count("-") == 1  # the one in "ci-healer"


@pytest.mark.parametrize("name", HOSTILE_NAMES, ids=range(len(HOSTILE_NAMES)))
def test_hostile_check_names_stay_inside_the_marker(name):
    marker = Marker(Kind.ATTEMPT, A, name, attempt=1)
    encoded = encode_marker(marker)
    assert encoded.startswith("<!-- ci-healer:v1 {") and encoded.endswith("} -->")
    assert encoded.count("-->") == 1 and encoded.count("<!--") == 1
    assert decode_markers(encoded)[0].check == check_key(name)


def test_printable_unicode_stays_readable():
    encoded = encode_marker(Marker(Kind.ATTEMPT, A, "tests 🩹 (3.12, Ubuntu)", attempt=1))
    assert "tests 🩹 (3.12, Ubuntu)" in encoded


def test_long_check_names_are_keyed_by_prefix_and_digest():
    long_a, long_b = "x" * 5000, "x" * 4999 + "y"
    assert len(check_key(long_a)) == MAX_CHECK_CHARS
    assert check_key(long_a) != check_key(long_b)
    ledger = Ledger.from_comments(comments(comment_body([attempt(A, 1, check=long_a)])), BOT)
    assert ledger.attempts_spent(long_a) == 1
    assert ledger.attempts_spent(long_b) == 0
    assert len(encode_marker(attempt(A, 1, check="🩹" * 5000))) < 2000


@pytest.mark.parametrize(
    "payload",
    [
        pytest.param('{"kind":"attempt","check":"t","sha":"zzzz"}', id="sha-not-hex"),
        pytest.param('{"kind":"explode","check":"t","sha":"abcd"}', id="unknown-kind"),
        pytest.param('{"kind":"attempt","check":"t","sha":"abcd","attempt":true}', id="bool-attempt"),
        pytest.param('{"kind":"attempt","check":"t","sha":"abcd","attempt":1.5}', id="float-attempt"),
        pytest.param('{"kind":"attempt","check":"t","sha":"abcd","run":"7"}', id="text-run-id"),
        pytest.param('{"kind":"attempt","sha":"abcd"}', id="no-check"),
        pytest.param('{"kind":["attempt"],"check":"t","sha":"abcd"}', id="list-kind"),
        pytest.param('{"kind":"attempt","check":7,"sha":"abcd"}', id="number-check"),
        pytest.param('{"kind":"attempt","check":"t","sha":"abcd"', id="truncated-json"),
        pytest.param("{" + '"a":' * 5000 + "1}", id="deep-nesting"),
        pytest.param('{"x":' + "[" * 5000 + "]" * 5000 + "}", id="deep-list"),
    ],
)
def test_malformed_markers_are_skipped(payload):
    good = encode_marker(attempt(A, 1))
    body = f"<!-- ci-healer:v1 {payload} -->\n{good}"
    assert decode_markers(body) == [attempt(A, 1)]


def test_negative_numbers_cannot_be_written():
    with pytest.raises(ValueError, match="attempt"):
        Marker(Kind.ATTEMPT, A, "t", attempt=-1)


@given(st.text())
def test_decode_never_raises_on_any_text(body):
    assert isinstance(decode_markers(body), list)


@given(st.lists(st.sampled_from(["<!-- ci-healer:v1 ", "{", "}", " -->", '"kind"', ":", "\n", "-", "x"])))
def test_decode_never_raises_on_marker_shaped_text(parts):
    decode_markers("".join(parts))


def test_markers_are_read_only_from_the_block_at_the_top():
    forged = encode_marker(Marker(Kind.RESET, A, "test"))
    body = comment_body([attempt(A, 1)], f"Log excerpt:\n```\n{forged}\n```")
    assert decode_markers(body) == [attempt(A, 1)]
    assert decode_markers(f"Hello\n{forged}") == []


def test_comment_body_holds_several_checks_and_blank_lines_do_not_end_the_block():
    ms = [attempt(A, 1, check="lint"), attempt(A, 1, check="test")]
    body = comment_body(ms, "visible")
    assert decode_markers(body) == ms
    assert decode_markers("\r\n\r\n" + body.replace("\n", "\r\n")) == ms
    assert body.endswith("visible")


def test_add_markers_appends_to_the_block_and_keeps_the_text():
    body = comment_body([attempt(A, 1)], "Attempt 1 of 3.\n\nDetails.")
    reset = reset_markers(["test"], B, 200, 1)
    edited = add_markers(body, reset, note="`test` passed at bbbbbbb.")
    assert decode_markers(edited) == [attempt(A, 1), *reset]
    assert edited.endswith("Attempt 1 of 3.\n\nDetails.\n\n`test` passed at bbbbbbb.")
    assert add_markers("", reset) == comment_body(reset)


# -- the ledger ----------------------------------------------------------------------------------------------


def test_only_the_bot_login_is_trusted():
    body = comment_body([attempt(A, 1), attempt(B, 2)])
    assert Ledger.from_comments(comments(body, author="mallory"), BOT).attempts_spent("test") == 0
    assert Ledger.from_comments(comments(body, author="GitHub-Actions[bot]"), BOT).attempts_spent("test") == 2
    assert Ledger.from_comments(comments(body), "").attempts_spent("test") == 0


def test_history_counts_distinct_shas_since_the_last_reset():
    ledger = Ledger.from_comments(
        comments(
            comment_body([attempt(A, 1)]),
            comment_body([Marker(Kind.RESET, B, "test")]),
            comment_body([attempt(C, 1)]),
            comment_body([attempt(C, 1)]),  # a duplicate report of the same commit
            comment_body([attempt(D, 2, check="test"), attempt(D, 1, check="lint")]),
        ),
        BOT,
    )
    assert ledger.attempted_shas("test") == (C, D)
    assert ledger.attempts_spent("test") == 2
    assert ledger.next_attempt("lint") == 2
    assert [past.sha for past in ledger.history("test")] == [C, C, D]
    assert set(ledger.checks) == {"test", "lint"}


def test_reset_clears_attempts_and_escalation_but_not_reruns_or_fix_prs():
    ledger = Ledger.from_comments(
        comments(
            comment_body([Marker(Kind.RERUN, A, "test", run_id=1, run_attempt=1)]),
            comment_body([Marker(Kind.ATTEMPT, A, "test", attempt=1, fix_pr=41)]),
            comment_body([Marker(Kind.ESCALATION, B, "test")]),
            add_markers(comment_body([attempt(C, 2)]), [Marker(Kind.RESET, D, "test")]),
        ),
        BOT,
    )
    assert ledger.attempts_spent("test") == 0
    assert not ledger.escalated("test")
    assert not ledger.has_history("test")
    assert ledger.history("test") == ()
    assert ledger.reruns("test", A) == 1
    assert ledger.fix_prs("test") == (41,)


def test_rerun_counts_are_per_check_and_commit_and_count_distinct_runs():
    rerun = Marker(Kind.RERUN, A, "test", run_id=5, run_attempt=1)
    ledger = Ledger.from_comments(
        comments(
            comment_body([rerun]),
            comment_body([rerun]),  # the same re-run recorded twice
            comment_body([Marker(Kind.RERUN, A, "test", run_id=5, run_attempt=2)]),
            comment_body([Marker(Kind.RERUN, B, "test", run_id=6, run_attempt=1)]),
        ),
        BOT,
    )
    assert ledger.reruns("test", A) == 2
    assert ledger.reruns("test", B) == 1
    assert ledger.reruns("lint", A) == 0


def test_deleting_a_middle_comment_keeps_the_count():
    bodies = [comment_body([attempt(sha, k)]) for k, sha in enumerate((A, B, C), start=1)]
    full = Ledger.from_comments(comments(*bodies), BOT)
    middle_deleted = Ledger.from_comments([c for c in comments(*bodies) if c.id != 2], BOT)
    first_deleted = Ledger.from_comments([c for c in comments(*bodies) if c.id != 1], BOT)
    assert (
        full.next_attempt("test")
        == middle_deleted.next_attempt("test")
        == first_deleted.next_attempt("test")
        == 4
    )


@given(st.integers(min_value=1, max_value=8), st.data())
def test_removing_any_comments_but_the_newest_never_lowers_the_count(n, data):
    bodies = [comment_body([attempt(f"{k:04x}", k)]) for k in range(1, n + 1)]
    all_comments = comments(*bodies)
    kept_older = data.draw(
        st.lists(st.sampled_from(all_comments[:-1]), unique=True) if n > 1 else st.just([])
    )
    ledger = Ledger.from_comments([*kept_older, all_comments[-1]], BOT)
    assert ledger.next_attempt("test") == n + 1


def test_fix_prs_are_listed_once_in_order():
    ledger = Ledger.from_comments(
        comments(
            comment_body([Marker(Kind.ATTEMPT, A, "test", attempt=1, fix_pr=10)]),
            comment_body([Marker(Kind.ATTEMPT, B, "test", attempt=2, fix_pr=12)]),
            comment_body([Marker(Kind.ATTEMPT, B, "test", attempt=2, fix_pr=12, result="merged")]),
        ),
        BOT,
    )
    assert ledger.fix_prs("test") == (10, 12)


def test_comments_are_ordered_by_id_whatever_the_listing_order():
    bodies = comments(comment_body([attempt(A, 1)]), comment_body([Marker(Kind.RESET, B, "test")]))
    assert Ledger.from_comments(list(reversed(bodies)), BOT).attempts_spent("test") == 0


def test_latest_healer_comment_is_the_newest_bot_comment_with_markers():
    listed = [
        *comments(comment_body([attempt(A, 1)]), comment_body([attempt(B, 2)])),
        Comment(id=3, author=BOT, body="a plain bot comment"),
        Comment(id=4, author="alice", body=comment_body([attempt(C, 3)])),
    ]
    assert latest_healer_comment(listed, BOT).id == 2
    assert latest_healer_comment([], BOT) is None


def test_handled_and_diagnosed_are_keyed_by_run_and_commit():
    ledger = Ledger.from_comments(
        comments(
            comment_body([Marker(Kind.ESCALATION, A, "cfg", run_id=9, run_attempt=2)]),
            comment_body([Marker(Kind.DIAGNOSIS, A, "test", run_id=9, run_attempt=2)]),
        ),
        BOT,
    )
    assert ledger.handled("cfg", A, 9, 2)
    assert not ledger.handled("cfg", A, 9, 3)
    assert ledger.diagnosed("test", A) and not ledger.diagnosed("test", B)


# -- claims --------------------------------------------------------------------------------------------------


def test_earliest_open_claim_wins():
    listed = comments(claim_body(A, 1, 1), claim_body(A, 2, 1), claim_body(B, 3, 1))
    ledger = Ledger.from_comments(listed, BOT)
    assert ledger.winning_claim(A).comment_id == 1
    assert ledger.won(A, 1) and not ledger.won(A, 2)
    assert ledger.won(B, 3)
    assert ledger.winning_claim(C) is None


def test_a_claim_is_settled_by_its_runs_outcome():
    listed = comments(
        claim_body(A, 1, 1),
        claim_body(A, 2, 1),
        comment_body([Marker(Kind.RERUN, A, "test", run_id=1, run_attempt=1)]),
    )
    assert Ledger.from_comments(listed, BOT).won(A, 2)


def test_a_claim_comment_edited_into_its_result_is_settled():
    claim = claim_body(A, 1, 1)
    result = add_markers(claim, [attempt(A, 1)], note="Attempt 1 of 3.")
    listed = comments(result, claim_body(A, 2, 1))
    ledger = Ledger.from_comments(listed, BOT)
    assert ledger.winning_claim(A).comment_id == 2


def test_a_reset_does_not_settle_a_claim():
    listed = comments(
        claim_body(A, 1, 1), comment_body([Marker(Kind.RESET, A, "lint", run_id=1, run_attempt=1)])
    )
    assert Ledger.from_comments(listed, BOT).winning_claim(A).comment_id == 1


def test_claims_in_other_peoples_comments_are_ignored():
    listed = [
        Comment(id=1, author="mallory", body=claim_body(A, 1, 1)),
        *comments(claim_body(A, 2, 1), start=2),
    ]
    assert Ledger.from_comments(listed, BOT).won(A, 2)


def _dated(body: str, comment_id: int, created_at: str) -> Comment:
    return Comment(id=comment_id, author=BOT, body=body, created_at=created_at)


def test_a_claim_left_by_a_run_that_died_expires():
    dead = _dated(claim_body(A, 1, 1), 1, "2026-03-01T08:00:00Z")
    ours = _dated(claim_body(A, 2, 1), 2, "2026-03-01T14:00:01Z")  # more than 6 h later, on GitHub's clock
    before = Ledger.from_comments([dead], BOT)
    assert before.winning_claim(A, now=datetime(2026, 3, 1, 14, 0, 1, tzinfo=timezone.utc)) is None
    assert before.winning_claim(A, now=datetime(2026, 3, 1, 13, 0, tzinfo=timezone.utc)).comment_id == 1
    assert Ledger.from_comments([dead, ours], BOT).won(A, 2)


def test_claim_age_is_measured_on_githubs_clock_once_this_run_has_claimed():
    """A stand-in (or a skewed runner clock) may date every comment alike: then the earliest claim still wins
    after claiming, even though the wall clock calls both ancient."""
    old = "2011-04-14T16:00:49Z"
    listed = [_dated(claim_body(A, 1, 1), 1, old), _dated(claim_body(A, 2, 1), 2, old)]
    ledger = Ledger.from_comments(listed, BOT)
    assert ledger.winning_claim(A, now=datetime(2026, 1, 1, tzinfo=timezone.utc)) is None
    assert not ledger.won(A, 2)
    assert ledger.winning_claim(A, claim_id=2, now=datetime(2026, 1, 1, tzinfo=timezone.utc)).comment_id == 1


def test_a_claim_without_a_readable_date_never_expires():
    listed = [_dated(claim_body(A, 1, 1), 1, "yesterday"), _dated(claim_body(A, 2, 1), 2, "")]
    ledger = Ledger.from_comments(listed, BOT)
    assert ledger.winning_claim(A, now=datetime(2030, 1, 1, tzinfo=timezone.utc)).comment_id == 1


# -- speed ---------------------------------------------------------------------------------------------------


def test_two_thousand_long_comments_are_read_fast():
    text = "A long explanation with a log excerpt.\n" * 1500  # ~58 KB each, below the body cap
    listed = []
    for i in range(2000):
        author = BOT if i % 2 else "someone"
        listed.append(Comment(id=i + 1, author=author, body=comment_body([attempt(f"{i:06x}", 1)], text)))
    started = time.perf_counter()
    ledger = Ledger.from_comments(listed, BOT)
    elapsed = time.perf_counter() - started
    assert len(ledger.entries) == 1000
    # about 0.3 s when linear; a parse quadratic in the comments takes minutes. Wide, so load never fails it.
    assert elapsed < 5.0, f"{elapsed:.3f}s for 2,000 comments"


def test_marker_json_is_plain_json():
    encoded = encode_marker(Marker(Kind.ATTEMPT, A, "a-b", attempt=2, run_id=7, run_attempt=1, fix_pr=3))
    payload = encoded.removeprefix("<!-- ci-healer:v1 ").removesuffix(" -->")
    assert json.loads(payload) == {
        "kind": "attempt",
        "check": "a-b",
        "sha": A,
        "attempt": 2,
        "run": 7,
        "run_attempt": 1,
        "fix_pr": 3,
    }


def test_record_turns_a_check_plan_into_its_marker():
    run = RunEvent("o/r", 77, 2, "CI", A, "feature", "o/r", False, "pull_request", "failure")
    diagnosis = Diagnosis(
        Category.LINT, 0.9, "ruff", Action.FIX, ("E501",), fix_commands=("ruff check --fix",)
    )
    heal = CheckPlan("lint", Verdict.HEAL, diagnosis, attempt=2, max_attempts=3, mode=HealMode.FIX)
    assert record(heal, run, fix_pr=12, result="opened") == Marker(
        Kind.ATTEMPT,
        A,
        "lint",
        attempt=2,
        run_id=77,
        run_attempt=2,
        category="lint",
        mode="fix",
        fix_pr=12,
        result="opened",
        workflow="CI",  # no workflow file in this event: the workflow's name
    )
    with_path = replace(run, workflow_path=".github/workflows/ci.yml")
    assert record(heal, with_path).workflow == ".github/workflows/ci.yml"
    assert record(CheckPlan("lint", Verdict.RERUN, diagnosis), run).kind is Kind.RERUN
    assert record(CheckPlan("lint", Verdict.ESCALATE, diagnosis), run).kind is Kind.ESCALATION
    fork = CheckPlan("lint", Verdict.SKIP, diagnosis, reason=SkipReason.FORK_POLICY, diagnose=True)
    assert record(fork, run).kind is Kind.DIAGNOSIS
    assert record(CheckPlan("lint", Verdict.SKIP, diagnosis, reason=SkipReason.EXHAUSTED), run) is None


# -- comments a run still holds ------------------------------------------------------------------------------


def test_a_comment_whose_claim_is_open_is_not_the_one_a_reset_edits():
    history = comment_body([attempt(A, 1)])
    open_claim = claim_body(B, 5, 1, "looking at it")
    ledger = Ledger.from_comments(comments(history, open_claim), BOT)
    assert ledger.held(2) and not ledger.held(1)
    assert ledger.latest_comment.id == 1
    # once its run wrote the result into it, the comment is settled and is the newest to edit
    settled = add_markers(open_claim, [Marker(Kind.RERUN, B, "test", run_id=5, run_attempt=1)])
    assert Ledger.from_comments(comments(history, settled), BOT).latest_comment.id == 2


def test_when_every_comment_is_held_there_is_none_to_edit():
    held = add_markers(claim_body(A, 5, 1), [Marker(Kind.ATTEMPT, B, "test", attempt=1)])
    ledger = Ledger.from_comments(comments(held), BOT)
    assert ledger.has_history("test")
    assert ledger.latest_comment is None


def test_comments_listed_newest_first_read_the_same():
    listed = comments(comment_body([attempt(A, 1)]), comment_body([attempt(B, 2)]), claim_body(C, 9, 1))
    forwards, backwards = Ledger.from_comments(listed, BOT), Ledger.from_comments(listed[::-1], BOT)
    assert forwards.entries == backwards.entries
    assert forwards.latest_comment == backwards.latest_comment
    assert backwards.latest_comment.id == 2


# -- signed markers ------------------------------------------------------------------------------------------

KEY = "5f2b0c6e9a4d4e1b8c7a3f60d1e2b4c9"


def signer(pull: int = 7, repository: str = "octo/repo", key: str = KEY) -> Signer:
    made = Signer.for_pull(key, repository, pull)
    assert made is not None
    return made


def test_no_key_no_signer():
    assert Signer.for_pull("", "octo/repo", 7) is None


def test_a_signed_marker_reads_back_with_its_key():
    marker = attempt(A, 1)
    line = encode_marker(marker, signer())
    assert '"sig":"' in line and KEY not in line
    assert decode_markers(line, signer()) == [marker]
    assert decode_markers(line) == [marker]  # without a key the signature is ignored


FORGED = [
    pytest.param(lambda m: encode_marker(m), id="unsigned"),
    pytest.param(lambda m: encode_marker(m, signer(pull=8)), id="signed-for-another-pull-request"),
    pytest.param(lambda m: encode_marker(m, signer(repository="octo/other")), id="signed-for-another-repo"),
    pytest.param(lambda m: encode_marker(m, signer(key="guessed")), id="another-key"),
    pytest.param(lambda m: encode_marker(m, signer()).replace('"run":3', '"run":4'), id="field-changed"),
    pytest.param(lambda m: encode_marker(m, signer()).replace('"sig":"', '"sig":"0'), id="signature-changed"),
    pytest.param(lambda m: encode_marker(m).replace("}", ',"sig":7}'), id="signature-not-text"),
]


@pytest.mark.parametrize("forge", FORGED)
def test_with_a_key_markers_not_signed_for_this_pull_request_are_ignored(forge):
    genuine = attempt(A, 1)
    forged_reset = Marker(Kind.RESET, B, "test", run_id=3, run_attempt=1)
    body = forge(forged_reset)
    listed = comments(comment_body([genuine], signer=signer()), body)
    ledger = Ledger.from_comments(listed, BOT, signer())
    assert [e.marker for e in ledger.entries] == [genuine]
    assert ledger.attempts_spent("test") == 1
    assert ledger.latest_comment.id == 1


def test_a_repository_name_differs_only_in_case():
    line = encode_marker(attempt(A, 1), signer(repository="Octo/Repo"))
    assert decode_markers(line, signer(repository="octo/repo")) == [attempt(A, 1)]


def test_a_forged_marker_in_the_bots_comment_is_not_signed_by_an_edit():
    """A reset edits the bot's newest comment; a forged line already in its block stays unsigned."""
    forged = encode_marker(Marker(Kind.RESET, A, "test"))
    body = f"{encode_marker(attempt(A, 1), signer())}\n{forged}\n\nvisible"
    edited = add_markers(body, [Marker(Kind.RESET, B, "lint")], signer=signer())
    assert forged in edited.split("\n")
    assert decode_markers(edited, signer()) == [attempt(A, 1), Marker(Kind.RESET, B, "lint")]


def test_claims_are_signed_too():
    unsigned, signed = claim_body(A, 1, 1), claim_body(A, 2, 1, signer=signer())
    ledger = Ledger.from_comments(comments(unsigned, signed), BOT, signer())
    assert ledger.won(A, 2)


@settings(max_examples=200, deadline=None)
@given(check_names, st.integers(min_value=1, max_value=10**6))
def test_any_signed_marker_verifies_only_for_its_own_pull_request(name, pull):
    marker = Marker(Kind.ATTEMPT, A, name or "x", attempt=1, run_id=1, run_attempt=1)
    line = encode_marker(marker, signer(pull=pull))
    assert decode_markers(line, signer(pull=pull)) == [marker]
    assert decode_markers(line, signer(pull=pull + 1)) == []


# -- per (workflow, check) -----------------------------------------------------------------------------------

CI, NIGHTLY = ".github/workflows/ci.yml", ".github/workflows/nightly.yml"


def reset(sha, check="test"):
    return Marker(Kind.RESET, sha, check, run_id=97, run_attempt=1)


def wf(marker, workflow):
    return replace(marker, workflow=workflow)


@pytest.mark.parametrize(
    ("markers", "workflow", "spent", "escalated", "reruns"),
    [
        # each workflow's `test` keeps its own attempts, escalation and re-runs
        ([wf(attempt(A, 1), CI), wf(attempt(B, 2), CI)], CI, 2, False, 0),
        ([wf(attempt(A, 1), CI), wf(attempt(B, 2), CI)], NIGHTLY, 0, False, 0),
        ([wf(Marker(Kind.ESCALATION, A, "test", run_id=3, run_attempt=1), NIGHTLY)], CI, 0, False, 0),
        ([wf(Marker(Kind.ESCALATION, A, "test", run_id=3, run_attempt=1), NIGHTLY)], NIGHTLY, 0, True, 0),
        ([wf(Marker(Kind.RERUN, A, "test", run_id=3, run_attempt=1), CI)], NIGHTLY, 0, False, 0),
        ([wf(Marker(Kind.RERUN, A, "test", run_id=3, run_attempt=1), CI)], CI, 0, False, 1),
        # a reset of one workflow's check leaves the other workflow's history alone
        ([wf(attempt(A, 1), CI), wf(attempt(A, 1), NIGHTLY), wf(reset(A), CI)], CI, 0, False, 0),
        ([wf(attempt(A, 1), CI), wf(attempt(A, 1), NIGHTLY), wf(reset(A), CI)], NIGHTLY, 1, False, 0),
        # markers written before the field (no workflow) count for every workflow ...
        ([attempt(A, 1), wf(attempt(B, 2), CI)], CI, 2, False, 0),
        ([attempt(A, 1), wf(attempt(B, 2), CI)], NIGHTLY, 1, False, 0),
        ([Marker(Kind.ESCALATION, A, "test", run_id=3, run_attempt=1)], NIGHTLY, 0, True, 0),
        # ... until that workflow's check resets; an old reset (no workflow) reset every workflow's
        ([attempt(A, 1), wf(reset(A), CI)], CI, 0, False, 0),
        ([attempt(A, 1), wf(reset(A), CI)], NIGHTLY, 1, False, 0),
        ([wf(attempt(A, 1), CI), wf(attempt(A, 1), NIGHTLY), reset(A)], NIGHTLY, 0, False, 0),
        # a ledger read for no workflow in particular sees every record
        ([wf(attempt(A, 1), CI), wf(attempt(B, 2), NIGHTLY)], None, 2, False, 0),
    ],
)
def test_budgets_are_kept_per_workflow_and_check(markers, workflow, spent, escalated, reruns):
    ledger = Ledger.from_comments(comments(comment_body(markers)), BOT, workflow=workflow)
    assert (ledger.attempts_spent("test"), ledger.escalated("test"), ledger.reruns("test", A)) == (
        spent,
        escalated,
        reruns,
    )
    assert ledger.in_workflow(CI).attempts_spent("test") == Ledger.from_comments(
        comments(comment_body(markers)), BOT, workflow=CI
    ).attempts_spent("test")


def test_per_workflow_ledgers_share_claims_and_the_handled_runs_of_their_own_workflow():
    claim = claim_body(A, 5, 1)
    outcome = comment_body([wf(attempt(A, 1, run_id=5), CI)])
    ledger = Ledger.from_comments(comments(claim, outcome), BOT, workflow=NIGHTLY)
    # run 5 recorded its outcome for the commit (in another workflow's check): its claim is settled for all
    assert ledger.winning_claim(A) is None
    assert not ledger.handled("test", A, 5, 1)
    assert ledger.in_workflow(CI).handled("test", A, 5, 1)


def test_the_workflow_is_signed_and_old_signatures_still_verify():
    signer = Signer.for_pull("secret", "octo/app", 7)
    old = attempt(A, 1)
    signed_old = encode_marker(old, signer)
    new = wf(old, CI)
    assert decode_markers(signed_old, signer) == [old]  # no field, the canonical record it always had
    assert decode_markers(encode_marker(new, signer), signer) == [new]
    # moving a signed marker to another workflow breaks its signature
    forged = encode_marker(new, signer).replace("ci.yml", "nightly.yml")
    assert "nightly.yml" in forged and decode_markers(forged, signer) == []
    # and a signed old marker given a workflow does too
    assert decode_markers(signed_old.replace("}", ',"workflow":"x"}', 1), signer) == []
