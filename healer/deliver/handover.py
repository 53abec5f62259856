"""Handing a heal's change over: a fix pull request with a body that says what ran, a push, or a patch.

:mod:`healer.heal.attempt` decides whether a change is delivered; this module only turns it into the delivery
the configuration asks for (the git and GitHub work is :mod:`healer.deliver.fixpr`'s).
"""

from __future__ import annotations

from functools import partial

from healer.change.context import Delivery, HealContext, HealResult
from healer.change.outcomes import Verification
from healer.change.workspace import Checkout, identity_for
from healer.deliver.fixpr import deliver_comment, deliver_pull_request, deliver_push
from healer.deliver.proof import CiWorkflow, StartedCi, start_ci
from healer.github import GitHub
from healer.text.fixpr import budget_stop, render_fix_pr_body
from healer.text.tokens import scrub

# Files listed in a fix PR's body; the rest are counted.
FILES_SHOWN = 50


def hand_over(
    gh: GitHub,
    checkout: Checkout,
    diff: str,
    verification: Verification,
    result: HealResult,
    *,
    ctx: HealContext,
) -> Delivery:
    """Deliver the staged, verified (or not) change as ``delivery`` says: a fix PR with its body, a push onto
    the PR branch, or a patch for the comment."""
    config = ctx.config
    names = [p.check for p in ctx.checks]
    attempt = max(p.attempt for p in ctx.checks)
    identity = identity_for(config.bot_login)
    # A push lands on the PR branch with no review step, so only a change that did not fail verification is
    # pushed; one that fails is posted as a patch instead.
    # The heal job's word (two jobs) may only make this more careful, never less.
    said = result.heal_word
    failed = verification.state in ("failed", "timed-out") or bool(
        said and said.state in ("failed", "timed-out")
    )
    if config.delivery == "comment" or (config.delivery == "push" and failed):
        return deliver_comment(diff)
    if config.delivery == "push" and not ctx.pr.is_fork:
        return deliver_push(
            checkout,
            pr=ctx.pr,
            head_sha=ctx.head_sha,
            checks=names,
            attempt=attempt,
            max_attempts=config.max_attempts,
            identity=identity,
            token=config.github_token,
            server_url=ctx.server_url,
        )
    body = render_fix_pr_body(
        ctx.frames,
        pr=ctx.pr,
        head_sha=ctx.head_sha,
        run_url=ctx.run_url,
        checks=ctx.checks,
        fix_commands=result.fix_commands,
        agent_ran=result.agent is not None,
        agent_exit=result.agent.returncode if result.agent else None,
        verification=verification,
        heal_word=result.heal_word,
        diffstat=result.diffstat,
        notes=result.notes,
        setup=result.setup,
        files=result.files[:FILES_SHOWN],
        more_files=max(0, len(result.files) - FILES_SHOWN),
        attempt=attempt,
        max_attempts=config.max_attempts,
        allowed=result.allowed,
        budget_stop=budget_stop(result.spend) if result.agent is not None else "",
    )
    body = scrub(body, config.github_token)
    return deliver_pull_request(
        gh,
        checkout,
        pr=ctx.pr,
        head_sha=ctx.head_sha,
        checks=names,
        attempt=attempt,
        max_attempts=config.max_attempts,
        body=body,
        draft=not verification.passed,
        identity=identity,
        token=config.github_token,
        server_url=ctx.server_url,
        previous_fix_prs=ctx.previous_fix_prs,
        start_ci=_ci_starter(gh, ctx),
        lease=ctx.fix_lease,
    )


def _ci_starter(gh: GitHub, ctx: HealContext) -> partial[StartedCi] | None:
    """How the fix branch's CI starts: with the job's ``GITHUB_TOKEN`` (whose pushes start no workflow) the
    healed workflow is dispatched on it; with another token its pushes start CI themselves."""
    path, name = ctx.ci_workflow
    if ctx.workflow_token is not True or not path or ctx.pr.is_fork:
        return None
    return partial(start_ci, gh, CiWorkflow(path, name or path), server_url=ctx.server_url)
