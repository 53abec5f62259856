"""End to end: the stand-in behaving as GitHub does where it is unkind — timeouts that end `cancelled`, runs
cancelled by a concurrency group, workflows that could not start, and runs that are not the PR's CI.

Each test names where the behaviour it models is documented (``BEHAVIOUR.md`` collects the sources)."""

from __future__ import annotations

from pathlib import Path

from harness import (
    BROKEN_ADD,
    LINT_PASSED,
    PASSED,
    check_contract,
    failing_test_pull,
    heal,
    job_log,
    lint_pull,
    write_agent,
)

from healer.demo.notifications import first_line
from healer.demo.sandbox import HealerRun, Sandbox
from healer.demo.state import Pull, Run
from healer.ledger.markers import Kind, Marker, comment_body

BOT = "github-actions[bot]"

SLOW_TESTS = job_log(
    "test (3.12)",
    "python -m pytest -q",
    ["collected 412 items", "", "tests/test_sync.py ........................................ [  9%]"],
    exit_code=0,
).split("##[error]Process completed")[0]

CLOSED = "> :no_entry_sign: **Closed by ci-healer:**"  # the first line of a fix PR the healer closed


def markers(box: Sandbox, number: int) -> str:
    """The healer's records on pull request ``number``: its comments and its fix pull requests' bodies."""
    fixes = [
        p.body or ""
        for p in box.standin.created_pulls(box.repo)
        if p.head_ref.startswith(f"ci-healer/{number}-")
    ]
    return "\n".join([*(c.body for c in box.standin.comments(box.repo, number)), *fixes])


# -- 2. timeouts end `cancelled` --------------------------------------------------------------------------


def test_a_job_stopped_by_its_time_limit_is_a_timeout_although_github_says_cancelled(box: Sandbox) -> None:
    # GitHub ends a job stopped by `timeout-minutes` (and its run) with conclusion `cancelled`, not
    # `timed_out`; the runner's "has exceeded the maximum execution time" line is in its log and annotations
    # (BEHAVIOUR.md, "Events and runs").
    pull, run = failing_test_pull(box)
    box.standin.jobs.pop(max(box.standin.jobs))  # replace the failed test job by one that timed out
    box.standin.time_out(run, "test (3.12)", log=SLOW_TESTS, minutes=10)
    assert run.conclusion == "cancelled"

    result = heal(box, run)

    assert (result.decision, result.outputs["category"]) == ("escalated", "timeout"), result.stdout
    assert '"kind":"escalation"' in markers(box, pull.number)


def test_a_timed_out_job_is_rerun_once_with_rerun_timeouts(box: Sandbox) -> None:
    pull, run = failing_test_pull(box)
    box.standin.jobs.pop(max(box.standin.jobs))
    box.standin.time_out(run, "test (3.12)", log=SLOW_TESTS)

    result = heal(box, run, inputs={"rerun-timeouts": "true"})

    assert (result.decision, result.outputs["category"]) == ("rerun", "timeout"), result.stdout
    assert len(box.standin.reruns) == 1


def test_a_run_cancelled_by_a_concurrency_group_is_no_verdict_and_cheap(box: Sandbox) -> None:
    # "Canceling since a higher priority waiting request for '<group>' exists" and "The operation was
    # canceled." are what a job cancelled by its concurrency group shows (BEHAVIOUR.md; GitHub's "Using
    # concurrency" docs).
    pull, run = failing_test_pull(box)
    box.standin.cancel(run, group="ci-feature/double")

    result = heal(box, run)

    assert result.decision == "none", result.stdout
    assert "not a verdict" in result.stdout
    assert box.standin.comments(box.repo, pull.number) == []
    assert not box.standin.writes()
    # the job listing and one annotations request per started cancelled job (two jobs: lint passed)
    operations = [r.operation for r in result.requests]
    assert operations == ["actions/list-jobs-for-workflow-run-attempt", "checks/list-annotations"]


def test_a_pending_run_cancelled_before_it_started_costs_one_request(box: Sandbox) -> None:
    _, run = failing_test_pull(box)
    box.standin.cancel(run, group="ci-feature/double", started=False)

    result = heal(box, run)

    assert result.decision == "none"
    assert [r.operation for r in result.requests] == ["actions/list-jobs-for-workflow-run-attempt"]


# -- 3. startup_failure -----------------------------------------------------------------------------------


def test_a_workflow_that_could_not_start_is_reported_once_per_commit_naming_its_file(box: Sandbox) -> None:
    # An invalid workflow file ends the run with conclusion `startup_failure` and no jobs (BEHAVIOUR.md).
    pull, run = lint_pull(box)
    box.standin.jobs.clear()
    run.conclusion, run.path = "startup_failure", ".github/workflows/ci.yml"

    first = heal(box, run)
    again = heal(box, run)
    other = box.standin.add_run(
        box.repo,
        head_sha=pull.head_sha,
        head_branch=pull.head_ref,
        pull_requests=[pull.number],
        conclusion="startup_failure",
        name="Docs",
        path=".github/workflows/docs.yml",
    )
    third = heal(box, other)

    assert first.decision == "escalated", first.stdout
    assert again.decision == "skipped" and "reported already" in again.stdout
    assert third.decision == "escalated"
    (comment,) = box.standin.comments(box.repo, pull.number)  # one comment per commit, edited for the second
    assert "`.github/workflows/ci.yml` could not start" in comment.body
    assert "`.github/workflows/docs.yml` could not start" in comment.body
    assert comment.body.count('"kind":"startup"') == 2
    assert not box.standin.reruns and not box.standin.created_pulls(box.repo)
    assert not any(r.operation.startswith("actions/") for r in first.requests + again.requests)


# -- 4. which runs count ----------------------------------------------------------------------------------


def test_a_scheduled_run_on_a_pr_branch_is_not_that_prs_ci(box: Sandbox) -> None:
    # `workflow_run.pull_requests` lists open PRs whose head branch matches, whatever triggered the run
    # (OpenAPI description of `workflow-run.pull_requests`; BEHAVIOUR.md).
    pull, run = lint_pull(box)
    for event in ("schedule", "workflow_dispatch", "merge_group", "workflow_run"):
        run.event = event
        result = heal(box, run)
        assert result.decision == "skipped", result.stdout
        assert f"a `{event}` run is not a pull request's CI" in result.stdout
    assert not box.standin.writes()
    assert not any(r.operation.startswith(("actions/", "checks/")) for r in box.standin.requests)


def test_the_events_setting_widens_the_list(box: Sandbox) -> None:
    pull, run = lint_pull(box)
    run.event = "workflow_dispatch"
    result = heal(box, run, inputs={"events": "pull_request, workflow_dispatch"})
    assert result.decision == "healed", result.stdout


def test_a_push_run_on_the_prs_own_head_branch_counts(box: Sandbox) -> None:
    pull, run = lint_pull(box)
    run.event = "push"
    result = heal(box, run)
    assert result.decision == "healed", result.stdout


def test_a_release_pr_from_the_default_branch_is_never_healed(box: Sandbox) -> None:
    # A PR whose head is the default branch gets every failure of that branch attached (BEHAVIOUR.md).
    box.commit("release", {"README.md": "# widgets\n\nrelease\n"}, "Release branch")
    main_sha = box.standin.repos[box.repo].resolve("main") or ""
    release_pull = box.standin.add_pull(
        box.repo, head_ref="main", head_sha=main_sha, base_ref="release", title="Release"
    )
    run = box.add_run(release_pull, [("lint", "failure", LINT_PASSED), ("test (3.12)", "success", PASSED)])
    run.event = "push"

    result = heal(box, run)

    assert result.decision == "skipped", result.stdout
    assert "head branch is the default branch" in result.stdout
    assert not box.standin.writes()


# -- 7. drafts refused, and no branch left behind ---------------------------------------------------------

FIX_ADD = (
    "calc = pathlib.Path('widgets/calc.py')\n"
    "calc.write_text(calc.read_text().replace('a - b', 'a + b'))\n"
    "print('Fixed add().')\n"
)


def test_a_repository_that_refuses_drafts_gets_a_ready_fix_pr_marked_unverified(
    box: Sandbox, tmp_path: Path
) -> None:
    # Private repositories on the Free and Pro plans answer `draft: true` with 422 "Draft pull requests are
    # not supported in this repository." (BEHAVIOUR.md, "Pull requests, branches and comments").
    box.standin.repos[box.repo.lower()].drafts = False
    pull, run = failing_test_pull(box)

    result = heal(box, run, inputs={"agent-command": write_agent(tmp_path / "agent", FIX_ADD)})

    assert result.decision == "healed", result.stdout
    [fix] = box.standin.created_pulls(box.repo)
    assert not fix.draft and fix.state == "open"
    assert "unverified" in fix.title.lower() and "**Opened unverified.**" in (fix.body or "")
    creates = [r for r in result.requests if r.operation == "pulls/create"]
    assert [r.status for r in creates] == [422, 201]  # one retry


def test_a_refused_fix_pr_leaves_no_branch_behind(box: Sandbox, tmp_path: Path) -> None:
    # GITHUB_TOKEN may not open PRs unless the repository allows it; the 403 says so (BEHAVIOUR.md).
    pull, run = failing_test_pull(box)
    box.standin.fail(
        "pulls/create",
        403,
        times=2,
        message="GitHub Actions is not permitted to create or approve pull requests.",
    )

    result = heal(box, run, inputs={"agent-command": write_agent(tmp_path / "agent", FIX_ADD)}, expect_exit=1)

    assert "could not open the fix pull request" in result.stdout
    assert not [ref for ref in box.origin_refs() if ref.startswith("refs/heads/ci-healer/")]
    # deleted by a git push, as it was pushed: no API request for it
    assert not any(r.operation == "git/delete-ref" for r in result.requests)


# -- 8. a fix PR never outlives its reason ----------------------------------------------------------------


def fix_branches(box: Sandbox) -> list[str]:
    return [ref for ref in box.origin_refs() if ref.startswith("refs/heads/ci-healer/")]


def healed_pull(box: Sandbox, tmp_path: Path) -> tuple[Pull, Run, Pull]:
    pull, run = failing_test_pull(box)
    result = heal(box, run, inputs={"agent-command": write_agent(tmp_path / "agent", FIX_ADD)})
    assert result.decision == "healed", result.stdout
    [fix] = box.standin.created_pulls(box.repo)
    assert fix.state == "open" and fix.base_ref == pull.head_ref and fix_branches(box)
    return pull, run, fix


def closed_event(box: Sandbox, pull: Pull, **kwargs: str) -> HealerRun:
    result = box.run_healer_on_pull(pull, **kwargs)
    box.standin.idle()
    detail = f"\n{result.stdout[-4000:]}\n{result.stderr[-2000:]}"
    assert result.returncode == 0, detail
    assert "Traceback" not in result.stdout + result.stderr, detail
    check_contract(result.requests, box.standin.api_url)
    return result


def test_a_merged_prs_fix_pr_is_closed_and_its_branch_deleted(box: Sandbox, tmp_path: Path) -> None:
    pull, _, fix = healed_pull(box, tmp_path)
    # GitHub retargets open PRs based on a merged PR's deleted head branch to that PR's base (BEHAVIOUR.md):
    # the fix PR now proposes an unreviewed change to `main`
    box.standin.merge_pull(pull, delete_branch=True)
    assert (fix.state, fix.base_ref) == ("open", "main")
    fetched = (box.workspace / ".git" / "FETCH_HEAD").stat().st_mtime_ns

    result = closed_event(box, pull)

    assert fix.state == "closed" and not fix.merged
    assert first_line(fix.body or "").startswith(
        f"{CLOSED} #{pull.number} was merged, so this fix has no pull request left"
    )
    assert fix_branches(box) == []
    assert not any(r.operation == "issues/create-comment" for r in result.requests)
    # nothing of the PR was fetched or checked out: the job runs no code of it
    assert (box.workspace / ".git" / "FETCH_HEAD").stat().st_mtime_ns == fetched


def test_a_closed_prs_fix_pr_is_closed_too(box: Sandbox, tmp_path: Path) -> None:
    pull, _, fix = healed_pull(box, tmp_path)
    box.standin.close_pull(pull)

    closed_event(box, pull, event_name="pull_request")

    assert fix.state == "closed" and first_line(fix.body or "").startswith(
        f"{CLOSED} #{pull.number} was closed"
    )
    assert fix_branches(box) == []


def test_another_pull_request_action_does_nothing(box: Sandbox, tmp_path: Path) -> None:
    pull, _, fix = healed_pull(box, tmp_path)
    result = closed_event(box, pull, action="synchronize")
    assert fix.state == "open" and fix_branches(box)
    assert result.requests == []


def test_a_fix_pr_is_closed_when_its_check_passes_without_it(box: Sandbox, tmp_path: Path) -> None:
    pull, _, fix = healed_pull(box, tmp_path)
    # the author fixes the test another way; CI passes at the new head
    sha = box.push_to_pull(pull, {"widgets/calc.py": BROKEN_ADD.replace("a - b", "b + a")}, "Fix add()")
    green = box.add_run(pull, [("lint", "success", LINT_PASSED), ("test (3.12)", "success", PASSED)],
                        sha=sha, conclusion="success")  # fmt: skip

    result = heal(box, green)

    assert fix.state == "closed"
    assert first_line(fix.body or "").startswith(
        f"{CLOSED} `test (3.12)` passed on {sha[:7]} without this fix."
    )
    assert fix_branches(box) == []
    assert "closed fix pull request" in result.stdout


def test_a_fix_pr_merged_into_the_pr_branch_loses_its_branch_not_its_state(
    box: Sandbox, tmp_path: Path
) -> None:
    pull, _, fix = healed_pull(box, tmp_path)
    box.standin.merge_pull(fix, delete_branch=False)  # the author merges the fix into the PR branch
    sha = box.standin.repos[box.repo.lower()].resolve(f"refs/heads/{pull.head_ref}") or ""
    with box.standin._lock:
        pull.head_sha = sha
    green = box.add_run(pull, [("lint", "success", LINT_PASSED), ("test (3.12)", "success", PASSED)],
                        sha=sha, conclusion="success")  # fmt: skip

    heal(box, green)

    assert fix.merged and fix.state == "closed"
    assert not (fix.body or "").startswith(">")  # no reason written over a merged PR
    assert fix_branches(box) == []


def test_a_superseded_fix_pr_loses_its_branch(box: Sandbox, tmp_path: Path) -> None:
    pull, run, first = healed_pull(box, tmp_path)
    log = next(j.log for j in box.standin.jobs.values() if j.run_id == run.id and j.name == "test (3.12)")
    box.push_to_pull(pull, {"README.md": "# widgets\n\nrevision 2\n"}, "Revision 2")
    again = box.add_run(pull, [("lint", "success", LINT_PASSED), ("test (3.12)", "failure", log.decode())])

    heal(box, again, inputs={"agent-command": write_agent(tmp_path / "agent2", FIX_ADD)})

    second = box.standin.created_pulls(box.repo)[-1]
    assert first.state == "closed" and second.state == "open"
    assert fix_branches(box) == [f"refs/heads/{second.head_ref}"]


# -- 5. one commit, several runs --------------------------------------------------------------------------

TRANSIENT = job_log(
    "test (3.12)",
    "pip install -e .",
    ["ERROR: Could not install packages due to an OSError: HTTPSConnectionPool(host='pypi.org', port=443): "
     "Max retries exceeded with url: /simple/flask/ (Caused by NewConnectionError('Failed to establish a new "
     "connection: [Errno -3] Temporary failure in name resolution'))"],
)  # fmt: skip


def test_a_second_run_of_the_commit_waits_for_the_rerun_another_run_requested(box: Sandbox) -> None:
    # One commit is often tested by several runs (`push` and `pull_request` triggers); each fires its own
    # workflow_run (BEHAVIOUR.md, "Events and runs").
    sha = box.commit("feature/net", {"README.md": "# widgets\n\nnetwork\n"}, "Touch the README")
    pull = box.open_pull("feature/net", sha)
    # the healer spoke on this pull request before: its re-run is recorded in an edit of that comment
    earlier = Marker(Kind.RESET, "0" * 40, "lint", run_id=1, run_attempt=1)
    box.standin.add_comment(box.repo, pull.number, comment_body([earlier], "earlier"), author=BOT)
    push = box.add_run(pull, [("test (3.12)", "failure", TRANSIENT)])
    push.event = "push"
    pr_run = box.add_run(pull, [("test (3.12)", "failure", TRANSIENT)])

    first = heal(box, push)
    second = heal(box, pr_run)  # the push run's re-run has not finished yet

    assert first.decision == "rerun" and len(box.standin.reruns) == 1
    assert second.decision == "skipped", second.stdout
    assert "has not finished" in second.stdout
    assert '"kind":"escalation"' not in markers(box, pull.number)
    assert len(box.standin.comments(box.repo, pull.number)) == 1  # recorded by an edit
    # the re-run fails as well: now the check escalates, once
    box.add_run(pull, [("test (3.12)", "failure", TRANSIENT)], run=push)
    third = heal(box, push)
    assert third.decision == "escalated", third.stdout
    assert len(box.standin.reruns) == 1


def test_without_a_healer_comment_each_run_of_the_commit_reruns_its_own_and_one_escalates(
    box: Sandbox,
) -> None:
    sha = box.commit("feature/net", {"README.md": "# widgets\n\nnetwork\n"}, "Touch the README")
    pull = box.open_pull("feature/net", sha)
    push = box.add_run(pull, [("test (3.12)", "failure", TRANSIENT)])
    push.event = "push"
    pr_run = box.add_run(pull, [("test (3.12)", "failure", TRANSIENT)])

    first = heal(box, push)
    second = heal(box, pr_run)

    # no marker to wait on: each run re-runs its own job (each bounded by its own run attempt), quietly
    assert (first.decision, second.decision) == ("rerun", "rerun")
    assert sorted(r.run_id for r in box.standin.reruns) == sorted([push.id, pr_run.id])
    assert box.standin.comments(box.repo, pull.number) == []
    # both re-runs fail: the first to finish escalates, the second says nothing more
    box.add_run(pull, [("test (3.12)", "failure", TRANSIENT)], run=push)
    box.add_run(pull, [("test (3.12)", "failure", TRANSIENT)], run=pr_run)
    third, fourth = heal(box, push), heal(box, pr_run)
    assert (third.decision, fourth.decision) == ("escalated", "skipped"), fourth.stdout
    assert len(box.standin.reruns) == 2
    assert markers(box, pull.number).count('"kind":"escalation"') == 1


def test_no_attempt_is_spent_twice_on_one_commit(box: Sandbox, tmp_path: Path) -> None:
    pull, run = failing_test_pull(box)
    log = next(j.log for j in box.standin.jobs.values() if j.run_id == run.id and j.name == "test (3.12)")
    push = box.add_run(pull, [("lint", "success", LINT_PASSED), ("test (3.12)", "failure", log.decode())])
    push.event = "push"
    agent = {"agent-command": write_agent(tmp_path / "agent", FIX_ADD)}

    first = heal(box, run, inputs=agent)
    second = heal(box, push, inputs=agent)

    assert (first.decision, second.decision) == ("healed", "skipped")
    assert len(box.standin.created_pulls(box.repo)) == 1
    assert markers(box, pull.number).count('"kind":"attempt"') == 1


def test_a_dry_run_of_a_startup_failure_writes_nothing(box: Sandbox) -> None:
    pull, run = lint_pull(box)
    box.standin.jobs.clear()
    run.conclusion = "startup_failure"

    result = heal(box, run, dry_run=True)

    assert result.decision == "none" and "could not start (dry run)" in result.stdout
    assert not box.standin.writes()
