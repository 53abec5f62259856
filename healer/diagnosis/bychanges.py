"""Whose a failure is, given the files the pull request changes (pure): an install or an image pull it did
not change (:mod:`healer.diagnosis.installinputs`), a per-file checker whose findings are all in files it did
not change (:mod:`healer.diagnosis.checkfindings`). Either is upstream's: the base branch fails the same way.
The action reads the files from GitHub (:mod:`healer.run.changes`), ``healer diagnose --changed`` from a
file."""

from __future__ import annotations

from collections.abc import Sequence

from healer.diagnosis import checkfindings, installinputs
from healer.model import Diagnosis


def applies(diagnosis: Diagnosis) -> bool:
    """Whether the changed files could tell whose ``diagnosis`` is (an install, an image, a per-file
    checker's findings, headed for the agent or a fix rule)."""
    return installinputs.applies(diagnosis) or checkfindings.applies(diagnosis)


def by_changes(diagnosis: Diagnosis, changed: Sequence[str], lines: Sequence[str]) -> Diagnosis:
    """``diagnosis`` given to upstream when the pull request's ``changed`` files (every one of them) leave its
    failure as the base branch has it; else unchanged. ``lines``: the job's log, for a checker's findings."""
    said = installinputs.untouched_install(diagnosis, changed)
    return said if said is not diagnosis else checkfindings.untouched_findings(diagnosis, changed, lines)
