"""End to end: fix pull requests that prove themselves. With the job's ``GITHUB_TOKEN`` (whose pushes start no
workflow) the healer dispatches the healed workflow on the fix branch; the dispatched run's ``workflow_run``
event brings the verdict back: a green run marks the draft fix ready, a red one says what failed, and the next
attempt starts from it. No run on a fix branch is ever healed."""

from __future__ import annotations

from pathlib import Path

from commands_harness import command
from harness import PASSED, agent_reports, heal, lint_log, lint_pull, write_agent
from twojobs import deliver_job, heal_job

from healer.demo.notifications import first_line, heard
from healer.demo.sample import job_log
from healer.demo.sandbox import Sandbox
from healer.demo.state import Run
from healer.ledger.markers import Kind, decode_markers

GITHUB_TOKEN = {"token-is-workflow-token": "true"}
RED_LINT = job_log("lint", "ruff check .", ["widgets/calc.py:3:8: F401 [*] `os` imported but unused"])
DISPATCHABLE_CI = (
    "name: CI\non:\n  pull_request:\n  workflow_dispatch:\npermissions:\n  contents: read\njobs:\n"
    "  lint:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v5\n"
    "      - run: ruff check .\n"
)


def allow_dispatch(box: Sandbox) -> None:
    """The repository's CI declares ``workflow_dispatch`` (on the default branch, so on every PR branch)."""
    box.commit(box.default_branch, {".github/workflows/ci.yml": DISPATCHABLE_CI}, "CI: allow dispatch")


def finish(box: Sandbox, run: Run, jobs: list[tuple[str, str, str]], conclusion: str) -> Run:
    """The dispatched run completes with ``jobs`` (name, conclusion, log)."""
    for name, job_conclusion, log in jobs:
        box.standin.add_job(run, name, conclusion=job_conclusion, log=log)
    run.status, run.conclusion = "completed", conclusion
    return run


def operations(result: object) -> list[str]:
    return [r.operation for r in result.requests]  # type: ignore[attr-defined]


def test_a_lint_fix_opened_with_github_token_runs_ci_and_is_marked_ready_when_it_passes(box: Sandbox) -> None:
    allow_dispatch(box)
    pull, run = lint_pull(box)

    healed = heal(box, run, inputs=GITHUB_TOKEN)

    assert healed.outputs["decision"] == "healed"
    [fix] = box.standin.created_pulls(box.repo)
    # one dispatch of the healed workflow, on the fix branch, after the push and before the PR is opened
    [dispatched] = box.standin.dispatched
    assert (dispatched.path, dispatched.head_branch, dispatched.event) == (
        ".github/workflows/ci.yml",
        fix.head_ref,
        "workflow_dispatch",
    )
    assert dispatched.head_sha == fix.head_sha and dispatched.pull_requests == ()
    ops = operations(healed)
    assert ops.count("actions/create-workflow-dispatch") == 1
    assert ops.index("actions/create-workflow-dispatch") < ops.index("pulls/create")
    # the fix was verified on the runner, but it waits for CI as a draft that says so first; nobody is asked
    # to review it yet
    assert fix.draft
    assert first_line(fix.body or "").startswith(":hourglass_flowing_sand: **Waiting for CI:**")
    assert "is running on this branch" in (fix.body or "") and "draft until it passes" in (fix.body or "")
    assert "pulls/request-reviewers" not in ops
    comments_before = len(box.standin.comments(box.repo, pull.number))

    verdict = heal(box, finish(box, dispatched, [("lint", "success", PASSED)], "success"))

    # the verdict: marked ready (GraphQL), its first line says CI passed and names the run; the author is
    # asked to review it now, once (the one notification); the attempt's record, at the top of the fix's
    # body (the heal wrote no comment), gets the verdict's marker in the same edit
    assert box.standin.readied == [fix.number] and not fix.draft
    assert first_line(fix.body or "").startswith(":white_check_mark: **CI passed**")
    assert f"/actions/runs/{dispatched.id}" in (fix.body or "")
    assert "is running on this branch" not in (fix.body or "")
    assert comments_before == 0 and box.standin.comments(box.repo, pull.number) == []
    records = decode_markers(fix.body or "")
    assert [(m.kind, m.result) for m in records] == [(Kind.ATTEMPT, "verified"), (Kind.PROOF, "passed")]
    [told] = heard(verdict.requests)
    assert told.kind in ("review request", "comment") and told.number == fix.number
    # nothing was healed or re-run: a fix branch's run is a verdict
    assert not box.standin.reruns and len(box.standin.created_pulls(box.repo)) == 1
    assert "actions/create-workflow-dispatch" not in operations(verdict)
    assert operations(verdict)[:5] == [
        "pulls/list",
        "issues/list-comments",
        "graphql",
        "pulls/update",
        "pulls/get",
    ]
    # the same event delivered again records nothing twice
    again = heal(box, dispatched)
    assert [r.operation for r in again.requests if r.is_write] == []
    assert len(box.standin.comments(box.repo, pull.number)) == comments_before


def test_a_fix_whose_ci_fails_says_what_failed_and_the_next_attempt_starts_from_it(
    box: Sandbox, tmp_path: Path
) -> None:
    allow_dispatch(box)
    agent = tmp_path / "agent"
    # an agent that removes the unused import; the tests, which the runner's verification did not run, fail
    inputs = {
        **GITHUB_TOKEN,
        "agent-command": write_agent(
            agent,
            "report(frame=frame)\n"
            "calc = pathlib.Path('widgets/calc.py')\n"
            "calc.write_text(calc.read_text().replace('import os\\n', ''))\n",
        ),
        "unknown-action": "agent",
        "verify-command": "true",
    }
    box.commit(box.default_branch, {".github/ci-healer.yml": "checks:\n  lint:\n    action: agent\n"}, "cfg")
    pull, run = lint_pull(box, branch="feature/agent")
    assert heal(box, run, inputs=inputs).outputs["decision"] == "healed"
    [fix] = box.standin.created_pulls(box.repo)
    [dispatched] = box.standin.dispatched
    red = job_log(
        "test (3.12)",
        "python -m pytest -q",
        [
            "F                                                                        [100%]",
            "FAILED tests/test_calc.py::test_double - AssertionError: assert 6 == 4",
            "1 failed, 1 passed in 0.03s",
        ],
        exit_code=1,
    )

    heal(box, finish(box, dispatched, [("test (3.12)", "failure", red)], "failure"))

    assert fix.draft and box.standin.readied == []
    # the red CI supersedes what the runner's own check said: first line, title and the attempt's record
    assert first_line(fix.body or "").startswith(":x: **CI failed**") and "`test (3.12)`" in (fix.body or "")
    assert fix.title.startswith("ci-healer (CI failed): fix lint for #")
    assert [(m.kind, m.result) for m in decode_markers(fix.body or "")][-1] == (Kind.PROOF, "failed")
    # the one comment on the pull request is the news: a person has something to do
    [comment] = box.standin.comments(box.repo, pull.number)
    news = comment.body
    assert news.startswith(f":x: The fix for `lint` in #{fix.number} failed CI")
    assert "/ci-healer retry" in news
    # attempt 2, asked for by a maintainer, reads that the first fix failed its CI, and where
    box.standin.set_permission(box.repo, "maintainer", "write")
    result, _ = command(box, pull, "/ci-healer retry", inputs=inputs)
    assert result.outputs["decision"] == "healed"
    # the retry reuses the fix pull request of this commit: nobody is asked to review it again
    assert [t for t in heard(result.requests) if t.kind == "review request" or t.number == fix.number] == []
    first, second = agent_reports(agent)
    assert "failed CI on the fix branch" not in str(first["frame"])
    assert f"#{fix.number} failed CI on the fix branch" in str(second["frame"])
    assert "test (3.12)" in str(second["frame"])


def test_a_workflow_without_workflow_dispatch_gets_one_line_saying_what_to_add(box: Sandbox) -> None:
    pull, run = lint_pull(box)  # the sample CI runs on pull_request only

    healed = heal(box, run, inputs=GITHUB_TOKEN)

    assert healed.outputs["decision"] == "healed"
    [fix] = box.standin.created_pulls(box.repo)
    assert box.standin.dispatched == []  # GitHub refused it: no run was started
    lines = [line for line in (fix.body or "").splitlines() if "workflow_dispatch" in line]
    assert len(lines) == 1 and "`.github/workflows/ci.yml`" in lines[0]
    # verified on the runner, so ready as before: no verdict will come to take it out of draft
    assert not fix.draft
    assert "workflow_dispatch" in healed.summary


def test_no_run_on_a_fix_branch_is_healed_whatever_its_event(box: Sandbox) -> None:
    pull, run = lint_pull(box)
    heal(box, run)
    [fix] = box.standin.created_pulls(box.repo)
    requests_before = len(box.standin.requests)
    for event in ("pull_request", "push", "workflow_dispatch"):
        red = box.add_run(None, [("lint", "failure", lint_log(box))], sha=fix.head_sha, branch=fix.head_ref)
        red.event = event
        result = heal(box, red)
        assert result.outputs["decision"] != "healed"
        assert not [
            r
            for r in result.requests
            if r.operation in ("pulls/create", "actions/re-run-job-for-workflow-run")
        ]
    assert len(box.standin.created_pulls(box.repo)) == 1 and not box.standin.reruns
    assert len(box.standin.requests) > requests_before


def test_a_fork_branch_named_like_a_fix_branch_is_left_alone(box: Sandbox) -> None:
    box.add_fork("mallory/widgets")
    sha = box.commit("ci-healer/1-abcdef0", {"README.md": "hi\n"}, "bait", remote="mallory/widgets")
    red = box.add_run(None, [("lint", "failure", "boom\n")], sha=sha, branch="ci-healer/1-abcdef0")
    red.head_repo = "mallory/widgets"

    result = heal(box, red)

    assert result.outputs["decision"] == "skipped"
    assert [r for r in result.requests if r.is_write] == []
    assert [r.operation for r in result.requests] == []


def test_with_an_app_token_the_fix_prs_own_ci_gives_the_verdict_through_the_same_path(box: Sandbox) -> None:
    allow_dispatch(box)
    pull, run = lint_pull(box)
    app_token = {"token-is-workflow-token": "false"}
    heal(box, run, inputs=app_token)
    [fix] = box.standin.created_pulls(box.repo)
    # the App's push started CI itself: nothing dispatched, and the verified fix is ready as before
    assert box.standin.dispatched == [] and not fix.draft
    # the fix PR's own pull_request runs: another workflow first, then the healed one
    other = box.add_run(
        None,
        [("docs", "success", PASSED)],
        sha=fix.head_sha,
        branch=fix.head_ref,
        conclusion="success",
        name="Docs",
        path=".github/workflows/docs.yml",
    )
    other.pull_requests = (fix.number,)
    quiet = heal(box, other, inputs=app_token)
    assert [r.operation for r in quiet.requests if r.is_write] == ["pulls/update"]  # its record is in there
    green = box.add_run(
        None, [("lint", "success", PASSED)], sha=fix.head_sha, branch=fix.head_ref, conclusion="success"
    )
    green.pull_requests = (fix.number,)

    verdict = heal(box, green, inputs=app_token)

    assert "graphql" not in operations(verdict)  # not a draft: nothing to mark
    assert first_line(fix.body or "").startswith(":white_check_mark: **CI passed**")
    assert f"/actions/runs/{green.id}" in (fix.body or "")
    # the author was asked when the fix opened ready: its passing CI is an edit, not news
    assert heard(verdict.requests) == []
    assert box.standin.comments(box.repo, pull.number) == []  # the verdict is recorded in the fix's body
    proofs = [m for m in decode_markers(fix.body or "") if m.kind is Kind.PROOF]
    assert [(m.run_id, m.result) for m in proofs] == [(other.id, "passed"), (green.id, "passed")]


def test_the_two_jobs_record_the_verdict_in_the_deliver_job_alone(box: Sandbox, read_token: str) -> None:
    allow_dispatch(box)
    pull, run = lint_pull(box)
    heal(box, run, inputs=GITHUB_TOKEN)
    [fix] = box.standin.created_pulls(box.repo)
    [dispatched] = box.standin.dispatched
    finish(box, dispatched, [("lint", "success", PASSED)], "success")

    healing = heal_job(box, dispatched, GITHUB_TOKEN)
    assert healing.requests == [] and not healing.outputs.get("bundle-path")
    delivering = deliver_job(box, dispatched, "", GITHUB_TOKEN)

    assert box.standin.readied == [fix.number]
    assert "issues/create-comment" in operations(delivering)


def test_a_verdict_for_an_older_head_of_the_fix_or_a_persons_branch_is_not_recorded(box: Sandbox) -> None:
    allow_dispatch(box)
    pull, run = lint_pull(box)
    heal(box, run, inputs=GITHUB_TOKEN)
    [fix] = box.standin.created_pulls(box.repo)
    [dispatched] = box.standin.dispatched
    finish(box, dispatched, [("lint", "success", PASSED)], "success")
    with box.standin._lock:
        fix.head_sha = "0" * 40  # the fix branch moved on since the run started

    stale = heal(box, dispatched)

    assert [r for r in stale.requests if r.is_write] == [] and box.standin.readied == []
    # a person's pull request from a same-repository branch named like a fix branch
    sha = box.commit("ci-healer/1-abcdef0", {"README.md": "mine\n"}, "a person's branch")
    mine = box.open_pull("ci-healer/1-abcdef0", sha, author="mona", title="Not the healer's")
    red = box.add_run(None, [("lint", "failure", RED_LINT)], sha=sha, branch=mine.head_ref)
    theirs = heal(box, red)
    assert theirs.outputs["decision"] == "skipped" and [r for r in theirs.requests if r.is_write] == []


def test_where_drafts_are_refused_a_verified_fix_waiting_for_ci_opens_ready_and_is_not_called_unverified(
    box: Sandbox,
) -> None:
    # a private repository on the Free plan: GitHub answers a draft with 422 (BEHAVIOUR.md)
    box.standin.repos[box.repo.lower()].drafts = False
    allow_dispatch(box)
    pull, run = lint_pull(box)

    healed = heal(box, run, inputs=GITHUB_TOKEN)

    creates = [r for r in healed.requests if r.operation == "pulls/create"]
    assert [(r.body["draft"], r.status) for r in creates] == [(True, 422), (False, 201)]
    [fix] = box.standin.created_pulls(box.repo)
    assert not fix.draft and "unverified" not in fix.title.lower() + (fix.body or "").lower()
    assert "is running on this branch" in (fix.body or "") and "a draft" not in (fix.body or "")
    [dispatched] = box.standin.dispatched

    verdict = heal(box, finish(box, dispatched, [("lint", "success", PASSED)], "success"))

    # not a draft: nothing to mark; the body leads with the run that passed, and the author is asked now
    assert box.standin.readied == [] and first_line(fix.body or "").startswith(
        ":white_check_mark: **CI passed**"
    )
    assert "pulls/request-reviewers" not in operations(healed)
    assert [t.number for t in heard(verdict.requests)] == [fix.number]


def test_a_fix_whose_ci_hit_its_time_limit_failed_and_one_cancelled_by_a_person_is_no_verdict(
    box: Sandbox,
) -> None:
    # (what the fix PR says of the cancelled run: tests/e2e/test_fix_texts.py)
    allow_dispatch(box)
    pull, run = lint_pull(box)
    heal(box, run, inputs=GITHUB_TOKEN)
    [fix] = box.standin.created_pulls(box.repo)
    [dispatched] = box.standin.dispatched
    # cancelled by a person (or a newer push): GitHub says `cancelled`, and so it is not a verdict
    canceled = "##[error]The operation was canceled.\n"
    box.standin.add_job(dispatched, "lint", conclusion="cancelled", log=canceled)
    dispatched.status, dispatched.conclusion = "completed", "cancelled"

    nothing = heal(box, dispatched)

    assert heard(nothing.requests) == [] and fix.draft and box.standin.readied == []
    assert {r.operation for r in nothing.requests if r.is_write} <= {"pulls/update", "issues/update-comment"}
    # no verdict is recorded: neither in the fix's body (a quiet heal's record) nor on the pull request
    assert '"kind":"proof"' not in (fix.body or "")
    assert box.standin.comments(box.repo, pull.number) == []
    # its re-run hit the job's time limit: GitHub says `cancelled` too (BEHAVIOUR.md), and this is a failure
    box.standin.add_run_attempt(dispatched, conclusion="cancelled")
    box.standin.time_out(dispatched, "lint", log="Running ruff on 40,000 files\n", minutes=5)

    heal(box, dispatched)

    assert fix.draft and box.standin.readied == []
    assert "CI failed" in (fix.body or "") and "maximum execution time of 5 minutes" in (fix.body or "")
    news = box.standin.comments(box.repo, pull.number)[-1].body
    assert news.startswith(":x: The fix for `lint` in #") and "maximum execution time" in news


def test_a_fix_whose_ci_fails_then_passes_on_a_re_run_asks_its_author_once_when_it_passes(
    box: Sandbox,
) -> None:
    # A red verdict tells the author (a comment); it asks nobody to review. The same commit's CI passing on a
    # re-run makes the fix ready: that is when the author is asked, once, as for a fix green the first time.
    allow_dispatch(box)
    pull, run = lint_pull(box)
    assert heal(box, run, inputs=GITHUB_TOKEN).outputs["decision"] == "healed"
    [fix] = box.standin.created_pulls(box.repo)
    [dispatched] = box.standin.dispatched

    red = heal(box, finish(box, dispatched, [("lint", "failure", RED_LINT)], "failure"))
    assert fix.draft and [t.kind for t in heard(red.requests)] == ["comment"]

    box.standin.add_run_attempt(dispatched, conclusion="success")
    box.standin.add_job(dispatched, "lint", conclusion="success", log=PASSED)
    green = heal(box, dispatched)

    assert not fix.draft and box.standin.readied == [fix.number]
    assert first_line(fix.body or "").startswith(":white_check_mark: **CI passed**")
    [told] = heard(green.requests)
    assert told.kind in ("review request", "comment") and told.number == fix.number
    # once: the same verdict delivered again asks nobody
    assert heard(heal(box, dispatched).requests) == []
