"""The report's figures from markers across pull requests (pure: comments and pull requests in)."""

from __future__ import annotations

from dataclasses import replace

from healer.change.context import HealResult
from healer.change.outcomes import Spend, Verification
from healer.ledger.entries import record
from healer.ledger.markers import Kind, Marker, add_markers, comment_body
from healer.ledger.stats import events_of, figures
from healer.ledger.trunk import notice_body, trunk_marker
from healer.model import (
    Action,
    Category,
    CheckPlan,
    Comment,
    Diagnosis,
    HealMode,
    PullRequest,
    RunEvent,
    Verdict,
)

BOT = "github-actions[bot]"
WF = "ci.yml"
SHA = "b" * 40


def comment(
    cid: int, issue: int, markers: list[Marker], at: str, *, author: str = BOT, edited: str = ""
) -> Comment:
    return Comment(cid, author, comment_body(markers, "text"), at, edited or at, issue=issue)


def pull(
    number: int, head_ref: str, state: str = "open", *, merged: bool = False, title: str = ""
) -> PullRequest:
    return PullRequest(number, state, title, "mona", SHA, head_ref, "o/r", "main", "o/r", merged=merged)


def run(comments: list[Comment], pulls: list[PullRequest] = ()) -> object:
    return figures(
        comments, list(pulls), bot_login=BOT, since="2026-01-01T00:00:00Z", until="2026-02-01T00:00:00Z"
    )


def attempt(check: str = "test", sha: str = SHA, result: str = "verified", fix_pr: int | None = 9) -> Marker:
    return Marker(
        Kind.ATTEMPT,
        sha,
        check,
        attempt=1,
        run_id=1,
        run_attempt=1,
        result=result,
        fix_pr=fix_pr,
        workflow=WF,
    )


def test_an_attempt_repeated_in_an_edited_comment_counts_once_and_strangers_never() -> None:
    found = run(
        [
            comment(1, 5, [attempt()], "2026-01-02T00:00:00Z"),
            comment(2, 5, [attempt()], "2026-01-02T01:00:00Z"),
            comment(3, 5, [attempt("forged")], "2026-01-02T02:00:00Z", author="mallory"),
        ]
    )
    assert (found.attempts, found.verified, found.pulls) == (1, 1, 1)


def test_markers_before_the_window_do_not_count() -> None:
    assert run([comment(1, 5, [attempt()], "2025-12-31T23:59:59Z")]).attempts == 0


def test_fix_pull_requests_take_their_state_from_the_listing_and_unknown_without_it() -> None:
    comments = [
        comment(1, 5, [attempt(fix_pr=9)], "2026-01-02T00:00:00Z"),
        comment(2, 6, [attempt(fix_pr=10)], "2026-01-02T00:00:00Z"),
        comment(3, 7, [attempt(fix_pr=11)], "2026-01-02T00:00:00Z"),
    ]
    pulls = [pull(9, "ci-healer/5-bbbbbbb", "closed", merged=True), pull(10, "ci-healer/6-bbbbbbb", "closed")]
    found = run(comments, pulls)
    assert [(p.number, p.state) for p in found.fix_pulls] == [(9, "merged"), (10, "closed"), (11, "unknown")]


def test_an_open_fix_branch_without_a_marker_is_listed_with_the_pull_request_it_fixes() -> None:
    found = run([], [pull(12, "ci-healer/4-abcdef0"), pull(13, "ci-healer/rule-1a2b"), pull(14, "feature")])
    assert [(p.number, p.for_pull, p.state) for p in found.fix_pulls] == [(12, 4, "open")]
    assert [(p.number, p.state) for p in found.rule_pulls] == [(13, "open")]


def test_a_reset_ends_an_escalation_and_gives_the_time_to_green_from_its_edit() -> None:
    escalation = Marker(Kind.ESCALATION, SHA, "test", run_id=2, run_attempt=1, workflow=WF)
    first = comment(1, 5, [attempt()], "2026-01-02T00:00:00Z")
    closing = Comment(
        2, BOT, add_markers(comment_body([escalation]), [Marker(Kind.RESET, SHA, "test", workflow=WF)]),
        "2026-01-02T03:00:00Z", "2026-01-02T06:00:00Z", issue=5,
    )  # fmt: skip
    still_open = comment(3, 6, [escalation], "2026-01-03T00:00:00Z")
    found = run([first, closing, still_open], [pull(6, "feature", title="Add @everyone")])
    assert found.escalations == 2
    assert [(e.pull, e.check, e.title) for e in found.open_escalations] == [(6, "test", "Add @everyone")]
    assert found.hours_to_green == (6.0,)


def test_an_escalation_on_a_closed_pull_request_is_not_waiting_for_anyone() -> None:
    escalation = Marker(Kind.ESCALATION, SHA, "test", workflow=WF)
    found = run([comment(1, 6, [escalation], "2026-01-03T00:00:00Z")], [pull(6, "feature", "closed")])
    assert found.open_escalations == ()


def test_re_runs_end_passed_flaky_failed_again_or_pending() -> None:
    def rerun(sha: str) -> Marker:
        return Marker(Kind.RERUN, sha, "test", run_id=3, run_attempt=1, workflow=WF)

    s1, s2, s3, s4 = ("1" * 40, "2" * 40, "3" * 40, "4" * 40)
    found = run(
        [
            comment(1, 5, [rerun(s1)], "2026-01-02T00:00:00Z"),
            comment(2, 5, [Marker(Kind.RESET, s1, "test", workflow=WF)], "2026-01-02T01:00:00Z"),
            comment(3, 6, [rerun(s2)], "2026-01-02T00:00:00Z"),
            comment(
                4, 6, [Marker(Kind.FLAKY, s2, "test", tests=("t::a",), workflow=WF)], "2026-01-02T01:00:00Z"
            ),
            comment(5, 7, [rerun(s3)], "2026-01-02T00:00:00Z"),
            comment(6, 7, [attempt(sha=s3)], "2026-01-02T01:00:00Z"),
            comment(7, 8, [rerun(s4)], "2026-01-02T00:00:00Z"),
        ]
    )
    assert found.rerun_outcomes == {"passed": 1, "flaky": 1, "failed-again": 1, "pending": 1}
    assert found.flaky_tests == {"t::a": 1}


def test_broken_trunk_notices_group_by_base_run_and_say_when_lifted() -> None:
    def trunk(result: str) -> Marker:
        return Marker(Kind.TRUNK, SHA, "build", run_id=77, run_attempt=1, result=result, workflow=WF)

    found = run(
        [
            comment(1, 5, [trunk("broken")], "2026-01-02T00:00:00Z"),
            comment(2, 6, [trunk("broken")], "2026-01-02T00:00:00Z"),
            comment(3, 6, [trunk("lifted")], "2026-01-03T00:00:00Z"),
        ]
    )
    [episode] = found.trunk_episodes
    assert (episode.check, episode.base_run, episode.pulls, episode.lifted) == ("build", 77, (5, 6), True)
    assert found.attempts == 0


def test_a_comment_whose_issue_is_unknown_is_skipped() -> None:
    assert events_of([Comment(1, BOT, comment_body([attempt()]), "2026-01-02T00:00:00Z")], BOT) == []


# -- real marker shapes: what healer.run.trunk and healer.run.acting write ----------------------------------


def notice(cid: int, issue: int, body: str, at: str, edited: str = "") -> Comment:
    return Comment(cid, BOT, body, at, edited or at, issue=issue)


def test_an_episode_lifted_in_place_still_counts_with_the_pull_requests_it_held() -> None:
    # the notice comment is edited in place: its broken marker is replaced by the lifted one, which keeps the
    # episode's base-branch run (77); before, the report counted no episode at all
    broken = trunk_marker("build", SHA, 77, 1, workflow=WF, category="build")
    lifted = trunk_marker("build", "c" * 40, 77, 0, workflow=WF, lifted=True)
    first = notice_body("", [broken], "fails on main too")
    found = run(
        [
            notice(1, 5, notice_body(first, [lifted], "healed as usual"), "2026-01-02T00:00:00Z"),
            notice(2, 6, first, "2026-01-02T01:00:00Z"),
        ]
    )
    assert [(t.check, t.base_run, t.pulls, t.lifted) for t in found.trunk_episodes] == [
        ("build", 77, (5, 6), True)
    ]


def test_a_lift_written_with_the_green_run_joins_the_episode_it_ended() -> None:
    # markers written before lifts kept the episode's run name the base branch's green run (80)
    old_lift = trunk_marker("build", SHA, 80, 1, workflow=WF, lifted=True)
    still_broken = trunk_marker("build", SHA, 77, 1, workflow=WF)
    other = trunk_marker("lint", SHA, 90, 1, workflow=WF, lifted=True)
    found = run(
        [
            notice(1, 5, notice_body("", [old_lift], "healed as usual"), "2026-01-03T00:00:00Z"),
            notice(2, 6, notice_body("", [still_broken], "fails on main too"), "2026-01-02T00:00:00Z"),
            notice(3, 7, notice_body("", [other], "healed as usual"), "2026-01-04T00:00:00Z"),
        ]
    )
    assert [(t.check, t.base_run, t.pulls, t.lifted) for t in found.trunk_episodes] == [
        ("build", 77, (5, 6), True),
        ("lint", 90, (7,), True),
    ]


DIAGNOSIS = Diagnosis(Category.TEST, 0.9, "pytest", Action.AGENT, ("FAILED t::a",))


def heal_markers(result: HealResult, checks: list[tuple[str, HealMode]], fix_pr: int | None) -> list[Marker]:
    """The attempt markers of one heal, as the act stage writes them (healer.run.acting)."""
    event = RunEvent(
        "o/r", 40, 1, "CI", SHA, "feature", "o/r", False, "pull_request", "failure", workflow_path=WF
    )
    stopped = result.spend.stopped if result.spend else ""
    tokens = result.spend.tokens if result.spend else 0
    plans = [
        CheckPlan(check, Verdict.HEAL, attempt=1, mode=mode, diagnosis=DIAGNOSIS) for check, mode in checks
    ]
    return [
        record(p, event, fix_pr=fix_pr, result=result.result, tokens=tokens, stopped=stopped) for p in plans
    ]


def test_a_budget_stopped_attempt_that_delivered_a_verified_change_counts_as_delivered() -> None:
    spend = Spend(tokens=600, requests=5, refused=1, stopped="agent-token-budget", limit=500)
    verified = HealResult(True, verification=Verification("passed", "pytest"), diffstat="1 file", spend=spend)
    stopped_empty = HealResult(False, spend=spend)
    found = run(
        [
            comment(1, 5, heal_markers(verified, [("test", HealMode.AGENT)], 9), "2026-01-02T00:00:00Z"),
            Comment(2, BOT, comment_body(heal_markers(stopped_empty, [("test", HealMode.AGENT)], None)),
                    "2026-01-03T00:00:00Z", "2026-01-03T00:00:00Z", issue=6),
        ]
    )  # fmt: skip
    assert found.attempt_results == {"budget": 1, "verified": 1}
    assert (found.attempts, found.delivered, found.verified, found.budget_stops) == (2, 1, 1, 2)


def test_a_budget_stop_recorded_before_the_stopped_field_reads_its_fix_pull_request() -> None:
    legacy = [attempt(result="budget", fix_pr=9), attempt(sha="d" * 40, result="budget", fix_pr=None)]
    draft = replace(pull(9, "ci-healer/5-bbbbbbb"), draft=True)
    assert (
        run([comment(1, 5, legacy, "2026-01-02T00:00:00Z")], [pull(9, "ci-healer/5-bbbbbbb")]).verified == 1
    )
    found = run([comment(1, 5, legacy, "2026-01-02T00:00:00Z")], [draft])
    assert (found.delivered, found.verified, found.budget_stops) == (1, 0, 2)


def test_tokens_are_known_to_be_zero_without_an_agent_and_one_heal_counts_once() -> None:
    fix_rule = HealResult(
        True, fix_commands=("ruff check --fix",), verification=Verification("passed", "ruff")
    )
    proxied = HealResult(True, diffstat="2 files", spend=Spend(tokens=1000, requests=2))
    no_proxy = HealResult(True, diffstat="1 file")  # an agent whose model calls no proxy counted
    found = run(
        [
            comment(1, 5, heal_markers(fix_rule, [("lint", HealMode.FIX)], 9), "2026-01-02T00:00:00Z"),
            # one heal of two checks: each marker carries the heal's 1,000 tokens
            comment(2, 6, heal_markers(proxied, [("lint", HealMode.FIX), ("test", HealMode.AGENT)], 10),
                    "2026-01-03T00:00:00Z"),
        ]
    )  # fmt: skip
    assert (found.tokens, found.attempts_with_tokens, found.tokens_unknown) == (1000, 2, 0)
    rules_only = run(
        [comment(1, 5, heal_markers(fix_rule, [("lint", HealMode.FIX)], 9), "2026-01-02T00:00:00Z")]
    )
    assert (rules_only.tokens, rules_only.tokens_unknown) == (0, 0)
    unread = run(
        [comment(1, 5, heal_markers(no_proxy, [("test", HealMode.AGENT)], 9), "2026-01-02T00:00:00Z")]
    )
    assert unread.tokens_unknown == 1


def proof(result: str, fix_pr: int, workflow: str = WF, head: str = "c" * 40, run_id: int = 50) -> Marker:
    return Marker(
        Kind.PROOF, head, "test", attempt=1, run_id=run_id, fix_pr=fix_pr, result=result, workflow=workflow
    )


def test_a_fix_prs_ci_is_its_latest_verdicts_at_the_commit_they_tested() -> None:
    green, red, fixed_later, none = 9, 10, 11, 12
    comments = [
        comment(1, 5, [attempt(fix_pr=green), proof("passed", green)], "2026-01-02T00:00:00Z"),
        comment(
            2,
            6,
            [attempt(fix_pr=red), proof("passed", red), proof("failed", red, "docs.yml")],
            "2026-01-02T00:00:00Z",
        ),
        comment(
            3,
            7,
            [
                attempt(fix_pr=fixed_later),
                proof("failed", fixed_later),
                proof("passed", fixed_later, run_id=51),
            ],
            "2026-01-02T00:00:00Z",
        ),
        comment(4, 8, [attempt(fix_pr=none)], "2026-01-02T00:00:00Z"),
    ]

    found = run(comments)

    assert [(p.number, p.ci) for p in found.fix_pulls] == [
        (9, "passed"),
        (10, "failed"),
        (11, "passed"),
        (12, ""),
    ]
    assert (found.fix_ci_count("passed"), found.fix_ci_count("failed")) == (2, 1)
    assert found.attempts == 4  # a verdict is no attempt


def test_a_check_with_nothing_to_try_is_no_escalation_waiting_for_a_person() -> None:
    untried = Marker(Kind.ESCALATION, SHA, "docs", run_id=1, run_attempt=1, result="untried", workflow=WF)
    escalated = Marker(Kind.ESCALATION, SHA, "test", run_id=1, run_attempt=1, workflow=WF)
    found = run(
        [comment(1, 5, [untried], "2026-01-02T00:00:00Z"), comment(2, 6, [escalated], "2026-01-02T00:00:00Z")]
    )

    assert (found.escalations, found.untried) == (1, 1)
    assert [(e.pull, e.check) for e in found.open_escalations] == [(6, "test")]


def test_what_became_of_each_attempts_fix_is_read_from_the_records() -> None:
    # three attempts verified on the runner: a red fix (still a draft), a green fix marked ready, a merged
    # one; and one not verified whose fix waits as a draft with no verdict
    red, ready, merged, waiting = 9, 10, 11, 12
    comments = [
        comment(1, 5, [attempt("a", fix_pr=red), proof("failed", red)], "2026-01-02T00:00:00Z"),
        comment(2, 6, [attempt("b", fix_pr=ready), proof("passed", ready)], "2026-01-02T00:00:00Z"),
        comment(3, 7, [attempt("c", fix_pr=merged)], "2026-01-02T00:00:00Z"),
        comment(4, 8, [attempt("d", result="unverified", fix_pr=waiting)], "2026-01-02T00:00:00Z"),
    ]
    pulls = [
        replace(pull(red, "ci-healer/5-bbbbbbb"), draft=True),
        pull(ready, "ci-healer/6-bbbbbbb"),
        pull(merged, "ci-healer/7-bbbbbbb", "closed", merged=True),
        replace(pull(waiting, "ci-healer/8-bbbbbbb"), draft=True),
    ]

    found = run(comments, pulls)

    assert found.verified == 3
    assert found.attempt_fixes == {"ci-failed": 1, "ci-passed": 1, "merged": 1, "ready": 1}
