"""Whose a failure is, from the files the pull request changes.

A check headed for the agent or a fix rule is looked at once more, between the diagnosis and the plan, when
its failure depends only on files the pull request may not have touched: an install (what it reads:
:mod:`healer.diagnosis.installinputs`), an image the registry does not serve, a toolchain version read from
a version file of the tree, a per-file checker's findings (:mod:`healer.diagnosis.checkfindings`). One
request lists the pull request's files. When none of them is such a file, its base branch fails the same
way, so the failure is upstream's and escalated, not healed. (A code check of a pull request that changes
only prose is left to the broken-trunk check, :mod:`healer.run.trunk`, which compares it with the base
branch's own run and says so in its notice.)
A failure read from the log as upstream's (an audit's new advisory, a package the image's release no longer
ships, an R package its repository no longer serves) is the pull request's when it changed a file the step
reads.
No request is made when no check is such a failure; a listing that cannot be read, or that holds more files
than one page, leaves every diagnosis as it was and says so.
"""

from __future__ import annotations

from dataclasses import replace

from healer.diagnosis.bychanges import applies, by_changes
from healer.github import GitHubError
from healer.model import Owner, PullRequest
from healer.run.context import RunContext
from healer.run.planning import Diagnosed
from healer.text.spans import code


def check_changes(ctx: RunContext, pr: PullRequest, diagnosed: Diagnosed) -> Diagnosed:
    """``diagnosed`` with each failure the pull request's changes leave as its base branch has it given to
    upstream (see the module doc)."""
    checks = [name for name, diagnosis in diagnosed.diagnoses.items() if applies(diagnosis)]
    if not checks:
        return diagnosed
    names = ", ".join(map(code, checks))
    try:
        changed = ctx.gh.changed_files(pr.number)
    except GitHubError as exc:
        ctx.say(f"could not list the files of pull request #{pr.number} ({exc}); {names} handled as usual")
        return diagnosed
    if not changed.complete:
        ctx.say(
            f"pull request #{pr.number} changes more files than one page lists; whether it changed what "
            f"the failure of {names} depends on is not known, so it is handled as usual"
        )
        return diagnosed
    diagnoses = dict(diagnosed.diagnoses)
    for name in checks:
        evidence = diagnosed.evidence.get(name)
        # a log that could not be downloaded leaves only the listing to read
        lines = evidence.log.text.splitlines() if evidence is not None and evidence.log is not None else []
        diagnoses[name] = by_changes(diagnoses[name], changed.paths, lines)
        if diagnoses[name] is diagnosed.diagnoses[name]:
            continue
        if diagnoses[name].owner is Owner.CODE:
            ctx.say(f"{name!r}: the pull request changed a file this step reads: its own failure, healed")
        else:
            ctx.say(
                f"{name!r}: the pull request changed none of the files this failure depends on "
                f"({len(changed.paths)} changed): upstream's, escalated rather than healed"
            )
    return replace(diagnosed, diagnoses=diagnoses)
