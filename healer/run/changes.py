"""Whose a failed install is, from the files the pull request changes (:mod:`healer.diagnosis.installinputs`).

A check whose install failed and that would go to the agent or a fix rule is looked at once more, between
the diagnosis and the plan: one request lists the pull request's files. When none of them is a file the
install reads, its base branch installs the same, so the failure is upstream's and escalated, not healed.
No request is made when no check is such an install; a listing that cannot be read, or that holds more
files than one page, leaves every diagnosis as it was and says so.
"""

from __future__ import annotations

from dataclasses import replace

from healer.diagnosis.installinputs import applies, untouched_install
from healer.github import GitHubError
from healer.model import PullRequest
from healer.run.context import RunContext
from healer.run.planning import Diagnosed
from healer.text.spans import code


def check_changes(ctx: RunContext, pr: PullRequest, diagnosed: Diagnosed) -> Diagnosed:
    """``diagnosed`` with each failed install the pull request did not change given to upstream (see the
    module doc)."""
    installs = [name for name, diagnosis in diagnosed.diagnoses.items() if applies(diagnosis)]
    if not installs:
        return diagnosed
    names = ", ".join(map(code, installs))
    try:
        changed = ctx.gh.changed_files(pr.number)
    except GitHubError as exc:
        ctx.say(f"could not list the files of pull request #{pr.number} ({exc}); {names} handled as usual")
        return diagnosed
    if not changed.complete:
        ctx.say(
            f"pull request #{pr.number} changes more files than one page lists; whether it changed what "
            f"the install of {names} reads is not known, so it is handled as usual"
        )
        return diagnosed
    diagnoses = dict(diagnosed.diagnoses)
    for name in installs:
        diagnoses[name] = untouched_install(diagnoses[name], changed.paths)
        if diagnoses[name] is not diagnosed.diagnoses[name]:
            ctx.say(
                f"{name!r}: the pull request changed none of the files its install reads "
                f"({len(changed.paths)} changed): upstream's, escalated rather than healed"
            )
    return replace(diagnosed, diagnoses=diagnoses)
