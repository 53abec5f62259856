"""End to end: the attempt budget kept in PR comments — attempts 1..N, one escalation, re-runs, resets,
idempotent re-runs of a healed commit, and a head that moved on."""

from __future__ import annotations

from pathlib import Path

from harness import PASSED, agent_reports, failing_test_pull, heal, job_log, write_agent

from healer.demo.sandbox import Sandbox
from healer.demo.state import Pull

FIX_ADD = (
    "calc = pathlib.Path('widgets/calc.py')\n"
    "calc.write_text(calc.read_text().replace('a - b', 'a + b'))\n"
    "print('Fixed add().')\n"
)
TRANSIENT_LOG = job_log(
    "test (3.12)",
    "git clone https://git.example-host.invalid/org/repo.git",
    [
        "Cloning into 'repo'...",
        "fatal: unable to access 'https://git.example-host.invalid/org/repo.git/': "
        "Could not resolve host: git.example-host.invalid",
    ],
    exit_code=128,
)


def kinds(box: Sandbox, pull: Pull) -> list[str]:
    """The marker kinds of the healer's comments, comment by comment."""
    found = []
    for comment in box.standin.comments(box.repo, pull.number):
        found.append(
            ",".join(
                k for k in ("attempt", "escalation", "rerun", "reset") if f'"kind":"{k}"' in comment.body
            )
        )
    return found


def test_a_failure_repeated_on_new_commits_is_healed_n_times_then_escalated_once(
    box: Sandbox, tmp_path: Path
) -> None:
    pull, run = failing_test_pull(box)
    log = box.standin.jobs[max(box.standin.jobs)].log.decode()
    inputs = {"agent-command": write_agent(tmp_path / "agent", FIX_ADD), "max-attempts": "2"}

    decisions = []
    for number in range(1, 5):
        if number > 1:
            # the author pushes another commit without merging the fix: the test still fails
            box.push_to_pull(pull, {"README.md": f"# widgets\n\nrevision {number}\n"}, f"Revision {number}")
            run = box.add_run(pull, [("lint", "success", PASSED), ("test (3.12)", "failure", log)])
        result = heal(box, run, inputs=inputs)
        decisions.append((result.outputs["decision"], result.outputs.get("attempt", "")))

    assert [decision for decision, _ in decisions] == ["healed", "healed", "escalated", "skipped"]
    assert [attempt for _, attempt in decisions[:2]] == ["1", "2"]
    # the two heals wrote no comment (their records lead their fix PRs' bodies); after the escalation, its
    # one comment, the healer stays silent for that check until it passes
    assert kinds(box, pull) == ["escalation"]
    # two fix PRs; the first was closed as superseded when the second opened
    first, second = box.standin.created_pulls(box.repo)
    assert (first.state, second.state) == ("closed", "open")


def test_a_transient_failure_is_rerun_once_then_escalated(box: Sandbox) -> None:
    sha = box.commit("feature/net", {"README.md": "# widgets\n\nnetwork\n"}, "Touch the README")
    pull = box.open_pull("feature/net", sha)
    run = box.add_run(pull, [("lint", "success", PASSED), ("test (3.12)", "failure", TRANSIENT_LOG)])

    first = heal(box, run)
    assert (first.outputs["decision"], first.outputs["category"]) == ("rerun", "transient")
    # the failed job itself (`POST /actions/jobs/{id}/rerun`), not every failed job of the run
    test_job = next(j for j in box.standin.jobs.values() if j.run_id == run.id and j.name == "test (3.12)")
    assert [(r.run_id, r.job_id) for r in box.standin.reruns] == [(run.id, test_job.id)]

    # the re-run (attempt 2 of the same run, same commit) fails the same way
    box.add_run(pull, [("lint", "success", PASSED), ("test (3.12)", "failure", TRANSIENT_LOG)], run=run)
    second = heal(box, run)
    assert second.outputs["decision"] == "escalated"
    assert len(box.standin.reruns) == 1
    # the re-run wrote nothing (no healer comment to record it in): GitHub's run attempt counted it
    assert kinds(box, pull) == ["escalation"]
    assert not box.standin.created_pulls(box.repo)


def test_a_green_run_resets_the_budget(box: Sandbox, tmp_path: Path) -> None:
    pull, run = failing_test_pull(box)
    log = box.standin.jobs[max(box.standin.jobs)].log.decode()
    inputs = {"agent-command": write_agent(tmp_path / "agent", FIX_ADD), "max-attempts": "1"}
    assert heal(box, run, inputs=inputs).outputs["attempt"] == "1"
    assert box.standin.comments(box.repo, pull.number) == []  # a quiet heal: its record is in the fix PR
    [fix] = box.standin.created_pulls(box.repo)

    # the author fixes it: a green run at the PR's head
    box.push_to_pull(pull, {"widgets/calc.py": box.show("main", "widgets/calc.py")}, "Fix add()")
    green = box.add_run(
        pull, [("lint", "success", PASSED), ("test (3.12)", "success", PASSED)], conclusion="success"
    )
    reset = heal(box, green, inputs=inputs)
    assert reset.outputs["decision"] == "none"
    # no comment: the reset goes after the attempt, into the fix PR's records (an edit), and the fix the
    # check no longer needs is closed
    assert box.standin.comments(box.repo, pull.number) == []
    assert (fix.body or "").startswith("<!-- ci-healer:v1 ") and '"kind":"reset"' in (fix.body or "")
    assert fix.state == "closed"
    assert not [r for r in reset.requests if r.method == "POST"]

    # a new failure starts again at attempt 1, although max-attempts is 1 and one attempt was spent before
    box.push_to_pull(
        pull, {"widgets/calc.py": box.show(pull.head_sha + "~1", "widgets/calc.py")}, "Break it again"
    )
    again = box.add_run(pull, [("lint", "success", PASSED), ("test (3.12)", "failure", log)])
    result = heal(box, again, inputs=inputs)
    assert (result.outputs["decision"], result.outputs["attempt"]) == ("healed", "1")


def test_a_green_run_without_history_writes_nothing(box: Sandbox) -> None:
    sha = box.commit("feature/ok", {"README.md": "# widgets\n\nfine\n"}, "Docs")
    pull = box.open_pull("feature/ok", sha)
    green = box.add_run(
        pull, [("lint", "success", PASSED), ("test (3.12)", "success", PASSED)], conclusion="success"
    )
    result = heal(box, green)
    assert result.outputs["decision"] == "none"
    assert not [r for r in result.requests if r.is_write]


def test_a_rerun_of_an_already_healed_commit_does_nothing(box: Sandbox, tmp_path: Path) -> None:
    pull, run = failing_test_pull(box)
    log = box.standin.jobs[max(box.standin.jobs)].log.decode()
    inputs = {"agent-command": write_agent(tmp_path / "agent", "report(ran=True)\n" + FIX_ADD)}
    assert heal(box, run, inputs=inputs).outputs["decision"] == "healed"
    comments, fixes = (
        len(box.standin.comments(box.repo, pull.number)),
        len(box.standin.created_pulls(box.repo)),
    )

    # someone re-runs the failed jobs of the same commit: attempt 2 of the run fails again
    box.add_run(pull, [("lint", "success", PASSED), ("test (3.12)", "failure", log)], run=run)
    result = heal(box, run, inputs=inputs)
    assert result.outputs["decision"] == "skipped"
    assert not [r for r in result.requests if r.is_write]
    assert len(box.standin.comments(box.repo, pull.number)) == comments
    assert len(box.standin.created_pulls(box.repo)) == fixes
    assert len(agent_reports(tmp_path / "agent")) == 1  # the agent ran for the first run only


def test_a_stale_head_does_nothing(box: Sandbox, tmp_path: Path) -> None:
    pull, run = failing_test_pull(box)
    # the author pushed again after the failed run: the run's head is no longer the PR's head
    box.push_to_pull(pull, {"README.md": "# widgets\n\nnewer\n"}, "Newer commit")
    refs = box.origin_refs()
    agent_dir = tmp_path / "agent"
    result = heal(box, run, inputs={"agent-command": write_agent(agent_dir, "report(ran=True)\n")})
    assert result.outputs["decision"] == "skipped"
    assert not [r for r in result.requests if r.is_write]
    assert box.origin_refs() == refs
    assert not (agent_dir / "report.json").exists()


def test_a_long_pr_is_read_newest_first(box: Sandbox, tmp_path: Path) -> None:
    # GitHub lists issue comments oldest first, 100 a page: on a PR with thousands of comments the healer's
    # newest markers are on the last pages (BEHAVIOUR.md, "Issue comments are listed in ascending id order")
    pull, run = failing_test_pull(box)
    for index in range(5_200):
        box.standin.add_comment(box.repo, pull.number, f"review note {index}", author=f"reviewer{index % 7}")
    log = box.standin.jobs[max(box.standin.jobs)].log.decode()
    inputs = {"agent-command": write_agent(tmp_path / "agent", "report(ran=True)\n" + FIX_ADD)}
    assert heal(box, run, inputs=inputs).outputs["decision"] == "healed"

    # a re-run of the same commit fails again: its attempt marker, 5,200 comments down, is found
    box.add_run(pull, [("lint", "success", PASSED), ("test (3.12)", "failure", log)], run=run)
    result = heal(box, run, inputs=inputs)
    assert result.outputs["decision"] == "skipped"
    assert not [r for r in result.requests if r.is_write]
    assert len(agent_reports(tmp_path / "agent")) == 1
    assert "in the middle were not read" in result.stdout  # the maintainer learns what was left out
    listings = [r for r in result.requests if r.operation == "issues/list-comments"]
    pages = [dict(r.query)["page"] for r in listings]
    assert pages[:2] == ["1", "52"]  # the first page names the last; the newest page comes next
    assert (
        len(listings) <= 10 * 2
    )  # each listing costs at most ten requests (the run reads the ledger twice at most)
