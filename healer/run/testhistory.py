"""What the healer's own history says of a test failure the log alone would misjudge. Pure.

- Tests known to be flaky (recorded on this pull request, or listed under ``flaky-tests:``) are history's:
  re-run, never healed (:func:`from_history`).
- A failure the diagnosis re-runs first (``rerun_first``: its run showed tests flaky, one passing on a retry
  or failing a different way each try) that fails again when the same commit ran again is the code's: the
  tests failed in two runs of the same code (:func:`failed_again`).
"""

from __future__ import annotations

from dataclasses import replace

from healer.diagnosis.owner import reassigned
from healer.model import Action, Diagnosis, Owner


def from_history(diagnosis: Diagnosis) -> Diagnosis:
    """A failure of tests the ledger or the config knows as flaky: history's, re-run and never healed."""
    history = "every failing test is known to be flaky"
    return reassigned(diagnosis, Owner.HISTORY, history, Action.RERUN.value, action=Action.RERUN)


def failed_again(diagnosis: Diagnosis, reruns: int, sha: str) -> Diagnosis:
    """``diagnosis`` given back to the code when it is to be re-run first and the commit ``sha`` was re-run
    already (``reruns``): the same tests failed again, so the agent gets them. Any other diagnosis is kept."""
    if not diagnosis.rerun_first or reruns < 1:
        return diagnosis
    history = f"failed again after a re-run of {sha[:7]}"
    said = reassigned(diagnosis, Owner.CODE, history, Action.AGENT.value, action=Action.AGENT)
    return replace(said, rerun_first=False)
