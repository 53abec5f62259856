"""What a person waits on for a fix, from the verdicts of its CI recorded so far (pure)."""

from __future__ import annotations

import pytest

from healer.ledger.markers import Kind, Marker
from healer.run.proving import fix_state

HEAD, OLD = "b" * 40, "c" * 40
CI, DOCS = ".github/workflows/ci.yml", ".github/workflows/docs.yml"


def proof(result: str, workflow: str = CI, sha: str = HEAD, run: int = 1) -> Marker:
    return Marker(Kind.PROOF, sha, "lint", run_id=run, fix_pr=13, result=result, workflow=workflow)


@pytest.mark.parametrize(
    ("proofs", "healed", "state"),
    [
        pytest.param((), CI, "pending", id="nothing-yet"),
        pytest.param((proof("passed"),), CI, "ready", id="healed-workflow-passed"),
        pytest.param((proof("passed", DOCS),), CI, "pending", id="another-workflow-passed"),
        pytest.param((proof("passed"), proof("failed", DOCS)), CI, "failed", id="another-failed"),
        pytest.param((proof("failed"), proof("passed", run=2)), CI, "ready", id="re-run-passed"),
        pytest.param((proof("passed"), proof("failed", run=2)), CI, "failed", id="re-run-failed"),
        pytest.param((proof("failed", sha=OLD), proof("passed")), CI, "ready", id="old-head-forgotten"),
        pytest.param((proof("passed", sha=OLD),), CI, "pending", id="only-an-old-head"),
        pytest.param((proof("passed", DOCS),), "", "ready", id="older-attempt-without-workflow"),
    ],
)
def test_the_state_follows_the_latest_verdict_of_each_workflow_at_the_head(
    proofs: tuple[Marker, ...], healed: str, state: str
) -> None:
    assert fix_state(proofs, HEAD, healed) == state
