"""End to end: budgets are kept per (workflow, check). Two workflows of one pull request each have a job
named ``test (3.12)``; both fail on the same commits, and each gets its own attempt and its own escalation."""

from __future__ import annotations

from pathlib import Path

from harness import LINT_PASSED, failing_test_pull, heal, write_agent

from healer.demo.sandbox import Sandbox
from healer.demo.state import Pull
from healer.ledger.markers import Kind, decode_markers

FIX_ADD = (
    "calc = pathlib.Path('widgets/calc.py')\n"
    "calc.write_text(calc.read_text().replace('a - b', 'a + b'))\n"
    "print('Fixed add().')\n"
)
CI, NIGHTLY = ".github/workflows/ci.yml", ".github/workflows/nightly-on-pr.yml"


def markers(box: Sandbox, pull: Pull, kind: Kind) -> list[tuple[str, str, str]]:
    """(workflow, check, sha7) of the healer's markers of ``kind``, oldest first."""
    return [
        (m.workflow, m.check, m.sha[:7])
        for comment in box.standin.comments(box.repo, pull.number)
        for m in decode_markers(comment.body)
        if m.kind is kind
    ]


def test_two_workflows_with_a_job_of_the_same_name_keep_their_own_budgets(
    box: Sandbox, tmp_path: Path
) -> None:
    pull, ci_run = failing_test_pull(box)
    log = box.standin.jobs[max(box.standin.jobs)].log.decode()
    jobs = [("lint", "success", LINT_PASSED), ("test (3.12)", "failure", log)]
    inputs = {"agent-command": write_agent(tmp_path / "agent", FIX_ADD), "max-attempts": "1"}
    first = pull.head_sha[:7]

    # the same commit fails in both workflows: each workflow's `test (3.12)` spends its own first attempt
    ci = heal(box, ci_run, inputs=inputs)
    assert (ci.outputs["decision"], ci.outputs["attempt"]) == ("healed", "1")
    nightly_run = box.add_run(pull, jobs, name="Nightly-on-PR", path=NIGHTLY)
    nightly = heal(box, nightly_run, inputs=inputs)
    assert (nightly.outputs["decision"], nightly.outputs["attempt"]) == ("healed", "1")
    assert markers(box, pull, Kind.ATTEMPT) == [(CI, "test (3.12)", first), (NIGHTLY, "test (3.12)", first)]
    # the comments name the workflow, where the check names alone would look the same
    bodies = [c.body for c in box.standin.comments(box.repo, pull.number)]
    assert "workflow `CI`" in bodies[0] and "workflow `Nightly-on-PR`" in bodies[1]

    # a new commit fails in both again: each workflow's budget (1) is spent, so each escalates once
    box.push_to_pull(pull, {"README.md": "# widgets\n\nrevision 2\n"}, "Revision 2")
    second = pull.head_sha[:7]
    assert heal(box, box.add_run(pull, jobs), inputs=inputs).outputs["decision"] == "escalated"
    nightly_again = box.add_run(pull, jobs, name="Nightly-on-PR", path=NIGHTLY)
    assert heal(box, nightly_again, inputs=inputs).outputs["decision"] == "escalated"
    assert markers(box, pull, Kind.ESCALATION) == [
        (CI, "test (3.12)", second),
        (NIGHTLY, "test (3.12)", second),
    ]

    # and each escalation is said once: another run of either workflow on the commit stays silent
    comments = len(box.standin.comments(box.repo, pull.number))
    for name, path in (("CI", CI), ("Nightly-on-PR", NIGHTLY)):
        again = heal(box, box.add_run(pull, jobs, name=name, path=path), inputs=inputs)
        assert again.outputs["decision"] == "skipped"
    assert len(box.standin.comments(box.repo, pull.number)) == comments
    assert len(markers(box, pull, Kind.ESCALATION)) == 2
