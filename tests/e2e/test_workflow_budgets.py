"""End to end: budgets are kept per (workflow, check). Two workflows of one pull request each have a job
named ``test (3.12)``; both fail on the same commits, and each gets its own attempt and its own escalation."""

from __future__ import annotations

from pathlib import Path

from harness import LINT_PASSED, failing_test_pull, heal, write_agent

from healer.demo.sandbox import Sandbox, git
from healer.demo.state import Pull
from healer.ledger.markers import Kind, decode_markers

FIX_ADD = (
    "calc = pathlib.Path('widgets/calc.py')\n"
    "calc.write_text(calc.read_text().replace('a - b', 'a + b'))\n"
    "print('Fixed add().')\n"
)
CI, NIGHTLY = ".github/workflows/ci.yml", ".github/workflows/nightly-on-pr.yml"


def markers(box: Sandbox, pull: Pull, kind: Kind) -> list[tuple[str, str, str]]:
    """(workflow, check, sha7) of the healer's markers of ``kind``, by commit, oldest first."""
    bodies = [c.body for c in box.standin.comments(box.repo, pull.number)]
    fixes = sorted(box.standin.created_pulls(box.repo), key=lambda p: p.number)
    bodies += [p.body or "" for p in fixes]  # a heal's records lead its fix pull request's body
    found = [
        (m.workflow, m.check, m.sha[:7]) for body in bodies for m in decode_markers(body) if m.kind is kind
    ]
    order = shas(box, pull)
    return sorted(found, key=lambda f: order.index(f[2]) if f[2] in order else -1)


def shas(box: Sandbox, pull: Pull) -> list[str]:
    """The pull request's commits, oldest first (sha7)."""
    out = git(box.origin, "rev-list", "--reverse", pull.head_sha)
    return [line[:7] for line in out.split()]


def test_two_workflows_with_a_job_of_the_same_name_keep_their_own_budgets(
    box: Sandbox, tmp_path: Path
) -> None:
    pull, ci_run = failing_test_pull(box)
    log = box.standin.jobs[max(box.standin.jobs)].log.decode()
    jobs = [("lint", "success", LINT_PASSED), ("test (3.12)", "failure", log)]
    inputs = {"agent-command": write_agent(tmp_path / "agent", FIX_ADD), "max-attempts": "1"}
    first = pull.head_sha[:7]

    # the same commit fails in both workflows: the first run heals it, and the commit's fix branch then holds
    # that fix, so the other workflow's run does not heal the same commit again (one fix per commit)
    ci = heal(box, ci_run, inputs=inputs)
    assert (ci.outputs["decision"], ci.outputs["attempt"]) == ("healed", "1")
    nightly_run = box.add_run(pull, jobs, name="Nightly-on-PR", path=NIGHTLY)
    nightly = heal(box, nightly_run, inputs=inputs)
    assert nightly.outputs["decision"] == "skipped" and "its fix branch is at" in nightly.stdout
    assert markers(box, pull, Kind.ATTEMPT) == [(CI, "test (3.12)", first)]

    # a new commit fails in both again: CI's budget (1) is spent, so it escalates; Nightly's is its own, so
    # its `test (3.12)` spends its first attempt
    box.push_to_pull(pull, {"README.md": "# widgets\n\nrevision 2\n"}, "Revision 2")
    second = pull.head_sha[:7]
    assert heal(box, box.add_run(pull, jobs), inputs=inputs).outputs["decision"] == "escalated"
    nightly_again = heal(box, box.add_run(pull, jobs, name="Nightly-on-PR", path=NIGHTLY), inputs=inputs)
    assert (nightly_again.outputs["decision"], nightly_again.outputs["attempt"]) == ("healed", "1")
    assert markers(box, pull, Kind.ATTEMPT) == [(CI, "test (3.12)", first), (NIGHTLY, "test (3.12)", second)]

    # a third commit: Nightly's budget is spent too; each workflow has escalated once, and the escalations
    # name the workflow, where the check names alone would look the same
    box.push_to_pull(pull, {"README.md": "# widgets\n\nrevision 3\n"}, "Revision 3")
    third = pull.head_sha[:7]
    nightly_third = box.add_run(pull, jobs, name="Nightly-on-PR", path=NIGHTLY)
    assert heal(box, nightly_third, inputs=inputs).outputs["decision"] == "escalated"
    assert markers(box, pull, Kind.ESCALATION) == [
        (CI, "test (3.12)", second),
        (NIGHTLY, "test (3.12)", third),
    ]
    bodies = [c.body for c in box.standin.comments(box.repo, pull.number)]
    assert "workflow `CI`" in bodies[0] and "workflow `Nightly-on-PR`" in bodies[1]

    # and each escalation is said once: another run of either workflow on the commit stays silent
    comments = len(box.standin.comments(box.repo, pull.number))
    for name, path in (("CI", CI), ("Nightly-on-PR", NIGHTLY)):
        again = heal(box, box.add_run(pull, jobs, name=name, path=path), inputs=inputs)
        assert again.outputs["decision"] == "skipped"
    assert len(box.standin.comments(box.repo, pull.number)) == comments
    assert len(markers(box, pull, Kind.ESCALATION)) == 2
