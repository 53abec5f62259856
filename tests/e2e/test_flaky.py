"""End to end: flaky tests are recognised — a test that failed and passed on a re-run of the same commit is
recorded as flaky, and when it fails again it is re-run (once per commit) instead of sent to the agent; tests
the repository lists under ``flaky-tests:`` are treated the same way."""

from __future__ import annotations

from pathlib import Path

from harness import LINT_PASSED, PASSED, agent_reports, failing_test_pull, heal, write_agent

from healer.demo.sandbox import Sandbox

TEST_ID = "tests/test_calc.py::test_add"


def test_a_test_that_passed_on_a_rerun_is_rerun_when_it_fails_again_not_sent_to_the_agent(
    box: Sandbox, tmp_path: Path
) -> None:
    pull, run = failing_test_pull(box)
    log = box.standin.jobs[max(box.standin.jobs)].log.decode()
    agent = tmp_path / "agent"
    inputs = {"agent-command": write_agent(agent, "report(ran=True)\n")}
    heal(box, run, inputs=inputs)
    assert len(agent_reports(agent)) == 1
    [comment] = box.standin.comments(box.repo, pull.number)
    assert TEST_ID.replace("-", "\\u002d") in comment.body or TEST_ID in comment.body

    # someone re-runs the failed jobs: the same commit passes this time
    box.add_run(
        pull,
        [("lint", "success", LINT_PASSED), ("test (3.12)", "success", PASSED)],
        run=run,
        conclusion="success",
    )
    green = heal(box, run, inputs=inputs)
    assert green.outputs["decision"] == "none"
    # no new comment: the healer's existing comment gets the flaky record and one line saying so
    [edited] = box.standin.comments(box.repo, pull.number)
    assert edited.id == comment.id and '"kind":"flaky"' in edited.body
    assert f":game_die: Flaky: `{TEST_ID}` failed on `{pull.head_sha[:7]}`" in edited.body

    # the author pushes another commit, and the same test fails again
    box.push_to_pull(pull, {"README.md": "# widgets\n\nanother\n"}, "Docs")
    again = box.add_run(pull, [("lint", "success", LINT_PASSED), ("test (3.12)", "failure", log)])
    second = heal(box, again, inputs=inputs)

    assert second.outputs["decision"] == "rerun"
    [rerun] = box.standin.reruns  # the failed job of the new commit's run, re-run once
    assert rerun.run_id == again.id
    assert len(agent_reports(agent)) == 1  # not sent to the agent
    # a re-run is not news: recorded in an edit of the healer's comment, which notifies nobody
    [newest] = box.standin.comments(box.repo, pull.number)
    assert newest.id == comment.id and '"kind":"rerun"' in newest.body
    assert f"; known flaky: `{TEST_ID}`" in newest.body
    assert not [r for r in second.requests if r.operation == "issues/create-comment"]

    # once per commit: the re-run fails the same way, and the check is escalated, still without the agent
    box.add_run(pull, [("lint", "success", LINT_PASSED), ("test (3.12)", "failure", log)], run=again)
    third = heal(box, again, inputs=inputs)
    assert third.outputs["decision"] == "escalated"
    assert len(box.standin.reruns) == 1 and len(agent_reports(agent)) == 1
    # that is news: the escalation is a comment of its own
    assert len(box.standin.comments(box.repo, pull.number)) == 2


def test_tests_listed_as_flaky_in_the_config_file_are_never_sent_to_the_agent(
    box: Sandbox, tmp_path: Path
) -> None:
    box.standin.set_file(box.repo, ".github/ci-healer.yml", "flaky-tests:\n  - 'tests/test_calc.py::*'\n")
    pull, run = failing_test_pull(box)
    agent = tmp_path / "agent"
    inputs = {"agent-command": write_agent(agent, "report(ran=True)\n")}

    first = heal(box, run, inputs=inputs)
    assert (first.outputs["decision"], first.outputs["category"]) == ("rerun", "test")
    assert not agent_reports(agent)
