"""End to end: what a fix pull request says stays true after later events the healer hears of (its CI
cancelled, a newer commit passing, the fix closed) and those it does not (a person marking the fix ready), and
a quiet heal leaves nothing on the pull request to go stale. Each text is read where people look: the first
visible line, and nothing further down that still says waiting."""

from __future__ import annotations

from harness import LINT_PASSED, PASSED, heal, lint_pull
from test_fix_ci import GITHUB_TOKEN, RED_LINT, allow_dispatch, finish

from healer.demo.notifications import first_line, heard
from healer.demo.sandbox import Sandbox

TRANSPORT = ("HTTP", "Resource not accessible", "graphql", "FORBIDDEN")


def test_a_fix_github_refused_to_mark_ready_says_what_happened_then_and_what_to_do(box: Sandbox) -> None:
    # a workflow's GITHUB_TOKEN without `contents: write` (BEHAVIOUR.md, cli/cli#8910)
    box.standin.repos[box.repo.lower()].ready_refused = True
    allow_dispatch(box)
    pull, run = lint_pull(box)
    heal(box, run, inputs=GITHUB_TOKEN)
    [fix] = box.standin.created_pulls(box.repo)
    [dispatched] = box.standin.dispatched

    verdict = heal(box, finish(box, dispatched, [("lint", "success", PASSED)], "success"))

    assert fix.draft and box.standin.readied == []
    shown = first_line(fix.body or "")
    assert shown.startswith(":white_check_mark: **CI passed**")
    # what happened then, in the past: still true once a person marks it ready, which no event tells
    assert "refused to let ci-healer mark this pull request ready for review" in shown
    assert "left it a draft" in shown and "still a draft" not in (fix.body or "")
    # what to do, and no transport detail for the reader
    assert "mark it ready for review yourself" in shown and "`contents: write`" in shown
    assert not [bit for bit in TRANSPORT if bit in (fix.body or "")]
    # the heal was quiet (its record is the fix's body): nothing on the pull request can go stale
    assert box.standin.comments(box.repo, pull.number) == []
    # the one notification asks the author to review it, as for a fix marked ready
    [told] = heard(verdict.requests)
    assert told.number == fix.number


def cancel(box: Sandbox, run: object) -> None:
    """A person (or a newer push, or a concurrency group) cancels the run: GitHub says ``cancelled``, and the
    job's log says it was cancelled, not that it hit a time limit."""
    box.standin.add_job(run, "lint", conclusion="cancelled", log="##[error]The operation was canceled.\n")
    run.status, run.conclusion = "completed", "cancelled"  # type: ignore[attr-defined]


def test_a_fix_whose_ci_was_cancelled_says_so_first_and_what_to_do_and_asks_nobody(box: Sandbox) -> None:
    allow_dispatch(box)
    pull, run = lint_pull(box)
    heal(box, run, inputs=GITHUB_TOKEN)
    [fix] = box.standin.created_pulls(box.repo)
    [dispatched] = box.standin.dispatched
    cancel(box, dispatched)

    cancelled = heal(box, dispatched)

    # no verdict: nothing marked, nobody asked or told; the first lines say what is true and what to do
    assert fix.draft and box.standin.readied == [] and heard(cancelled.requests) == []
    shown = first_line(fix.body or "")
    assert shown.startswith(":stop_sign: **CI cancelled:** `CI`") and f"/runs/{dispatched.id})" in shown
    assert "Re-run it" in shown and "nobody was asked to review it" in shown
    assert "Waiting for CI" not in (fix.body or "") and "is running on this branch" not in (fix.body or "")
    assert box.standin.comments(box.repo, pull.number) == []

    # the person re-runs it and it passes: marked ready, and the author asked, once
    box.standin.add_run_attempt(dispatched, conclusion="success")
    box.standin.add_job(dispatched, "lint", conclusion="success", log=PASSED)
    green = heal(box, dispatched)

    assert not fix.draft and box.standin.readied == [fix.number]
    assert first_line(fix.body or "").startswith(":white_check_mark: **CI passed**")
    assert "cancelled" not in (fix.body or "").lower()
    assert box.standin.comments(box.repo, pull.number) == []
    [told] = heard(green.requests)
    assert told.number == fix.number and told.kind in ("review request", "comment")


def test_the_attempts_comment_follows_a_red_verdict_and_promises_no_review_it_contradicts(
    box: Sandbox,
) -> None:
    allow_dispatch(box)
    pull, run = lint_pull(box)
    heal(box, run, inputs=GITHUB_TOKEN)
    [fix] = box.standin.created_pulls(box.repo)
    [dispatched] = box.standin.dispatched
    # a quiet heal: nothing on the pull request promises a review while the fix waits
    assert box.standin.comments(box.repo, pull.number) == []

    heal(box, finish(box, dispatched, [("lint", "failure", RED_LINT)], "failure"))

    # the red verdict is news, created once, and promises no review it contradicts
    [news] = box.standin.comments(box.repo, pull.number)
    assert f"#{fix.number}" in first_line(news.body) and "failed CI" in first_line(news.body)
    assert "asked for once its CI passes" not in news.body and "a draft until its CI passes" not in news.body
    assert first_line(fix.body or "").startswith(":x: **CI failed**")

    # the same commit passes on a re-run: the fix says so first, and the author is asked once
    box.standin.add_run_attempt(dispatched, conclusion="success")
    box.standin.add_job(dispatched, "lint", conclusion="success", log=PASSED)
    green = heal(box, dispatched)

    assert first_line(fix.body or "").startswith(":white_check_mark: **CI passed**")
    assert [t.number for t in heard(green.requests)] == [fix.number]
    # the red news says what came since, first (an edit: nobody is told twice); the failure stays below
    [news] = box.standin.comments(box.repo, pull.number)
    assert first_line(news.body).startswith(f"> :white_check_mark: **Later:** `CI` passed on #{fix.number}")
    assert f"/runs/{dispatched.id})" in first_line(news.body) and "failed CI" in news.body


def test_a_fix_closed_as_unneeded_while_waiting_for_ci_says_so_first_and_nothing_says_waiting(
    box: Sandbox,
) -> None:
    allow_dispatch(box)
    pull, run = lint_pull(box)
    heal(box, run, inputs=GITHUB_TOKEN)
    [fix] = box.standin.created_pulls(box.repo)
    assert first_line(fix.body or "").startswith(":hourglass_flowing_sand: **Waiting for CI:**")
    # the author fixes lint another way before the fix's CI reports; CI passes at the new head
    sha = box.push_to_pull(pull, {"widgets/extra.py": "VALUE = 1\n"}, "Fix lint by hand")
    green = box.add_run(
        pull,
        [("lint", "success", LINT_PASSED), ("test (3.12)", "success", PASSED)],
        sha=sha,
        conclusion="success",
    )

    heal(box, green)

    assert fix.state == "closed"
    shown = first_line(fix.body or "")
    assert shown == f"> :no_entry_sign: **Closed by ci-healer:** `lint` passed on {sha[:7]} without this fix."
    body = fix.body or ""
    assert "Waiting for CI" not in body and "is running on this branch" not in body
    assert "stays a draft until it passes" not in body and "ci-healer:unasked" not in body
    # what the fix is stays below, for whoever reads it later
    assert "lint" in body.split("\n", 2)[2]
    # the heal and the pass are both quiet: nothing on the pull request still waits on the fix
    assert box.standin.comments(box.repo, pull.number) == []


def test_a_fix_a_person_closes_while_it_waits_for_ci_no_longer_says_it_waits(box: Sandbox) -> None:
    allow_dispatch(box)
    pull, run = lint_pull(box)
    heal(box, run, inputs=GITHUB_TOKEN)
    [fix] = box.standin.created_pulls(box.repo)
    [dispatched] = box.standin.dispatched
    box.standin.close_pull(fix)

    closed = box.run_healer_on_pull(fix)
    box.standin.idle()

    assert closed.returncode == 0, closed.stdout[-3000:]
    shown = first_line(fix.body or "")
    assert shown.startswith(":information_source: **CI:** this pull request was closed before the CI")
    assert "Waiting for CI" not in (fix.body or "") and "ci-healer:unasked" not in (fix.body or "")
    assert heard(closed.requests) == []
    # its CI reports later: the fix is not open, so nothing is recorded or said
    late = heal(box, finish(box, dispatched, [("lint", "success", PASSED)], "success"))
    assert [r for r in late.requests if r.is_write] == [] and box.standin.readied == []


def test_a_fix_whose_ci_could_not_start_says_so_first_instead_of_waiting(box: Sandbox) -> None:
    allow_dispatch(box)
    pull, run = lint_pull(box)
    heal(box, run, inputs=GITHUB_TOKEN)
    [fix] = box.standin.created_pulls(box.repo)
    [dispatched] = box.standin.dispatched
    # the workflow could not start on the fix branch: GitHub ends the run `startup_failure`, with no jobs
    dispatched.status, dispatched.conclusion = "completed", "startup_failure"

    ended = heal(box, dispatched)

    assert heard(ended.requests) == [] and fix.draft and box.standin.readied == []
    shown = first_line(fix.body or "")
    assert shown.startswith(":warning: **CI gave no verdict:** `CI`") and "`startup_failure`" in shown
    assert "run `CI` on this branch again" in shown and "Waiting for CI" not in (fix.body or "")
    assert box.standin.comments(box.repo, pull.number) == []
