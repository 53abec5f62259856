"""The heal stage of ``healer run``: one attempt at the checks the plan heals (fix rules, the agent, the
guard, verification, delivery) through :func:`healer.heal.attempt.heal`, and what the run says about it.

:func:`heal_checks` picks the checks, :func:`heal_context` is what the attempt receives, :func:`heal_once`
runs it and returns its :class:`healer.heal.attempt.HealResult`; a dry run renders the frame the agent
would get (:func:`dry_run_frame`) instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from functools import partial
from textwrap import indent

from healer.change.context import Handover
from healer.change.workspace import Repo
from healer.config import Config
from healer.deliver.handover import hand_over
from healer.heal.attempt import HealContext, HealResult, frame_for, heal, model_keys
from healer.heal.modelkeys import reachable_warning
from healer.ledger.ledger import Ledger
from healer.ledger.memory import earlier_accounts, tokens_spent
from healer.model import CheckPlan, Comment, Plan, PullRequest, RunEvent, Verdict
from healer.run.bundles import delivered_from_bundle
from healer.run.context import RunContext
from healer.run.policy import heals_forks
from healer.text.frames import fence
from healer.text.proof import ci_note
from healer.text.spans import code


def heal_checks(plan: Plan, pr: PullRequest, config: Config) -> list[CheckPlan]:
    """The checks the plan heals. A fork's code is run only in the two stages, when `fork-policy` lets it
    (:func:`healer.run.policy.heals_forks`; the policy planned a diagnosis otherwise)."""
    if pr.is_fork and not heals_forks(config):
        return []
    return [c for c in plan.checks if c.verdict is Verdict.HEAL]


def heal_context(
    ctx: RunContext,
    event: RunEvent,
    pr: PullRequest,
    config: Config,
    heals: Sequence[CheckPlan],
    comments: Sequence[Comment],
    previous_fix_prs: tuple[int, ...] = (),
) -> HealContext:
    """What one attempt receives; ``comments`` hold the earlier attempts' accounts (its memory)."""
    return HealContext(
        repository=event.repository,
        pr=pr,
        head_sha=event.head_sha,
        run_id=event.run_id,
        run_url=event.html_url,
        server_url=ctx.actions.server_url,
        checks=tuple(heals),
        config=config,
        frames=ctx.frames,
        temp_dir=ctx.actions.temp,
        base_env=ctx.env,
        previous_fix_prs=previous_fix_prs,
        earlier=earlier_accounts(comments, config.bot_login, heals, ctx.signer(pr)),
        workflow_token=ctx.actions.workflow_token,
        ci_workflow=(event.workflow_path, event.workflow_name),
    )


def heal_once(
    ctx: RunContext,
    event: RunEvent,
    pr: PullRequest,
    config: Config,
    ledger: Ledger,
    heals: list[CheckPlan],
    comments: Sequence[Comment],
    *,
    capture: Handover | None = None,
    lease: str = "",
) -> HealResult:
    """One attempt at ``heals``; the outcome and the summary say what it delivered. By stage: run it and
    deliver (`all`), run it and hand the change to ``capture`` for the bundle (`heal`), or deliver the heal
    job's bundle (`deliver`)."""
    previous = tuple(dict.fromkeys(n for c in heals for n in ledger.fix_prs(c.check)))
    if pr.is_fork and config.fork_policy == "rules":
        config = replace(config, agent_command="")  # a fork's code gets the fix rules, never the agent
    attempt = heal_context(ctx, event, pr, config, heals, comments, previous)
    attempt = replace(
        attempt, agent_tokens_spent=tokens_spent(e.marker for e in ledger.entries), fix_lease=lease
    )
    if config.isolation == "none" and config.stage == "all":
        ctx.note(
            "warning: `isolation: none`: code from the pull request ran as the healer's own user, which "
            "holds the write token (see SECURITY.md)"
        )
        if model_keys(attempt):
            ctx.note(reachable_warning(model_keys(attempt).names))
    if config.stage == "deliver":
        result = delivered_from_bundle(ctx, event, attempt)  # the heal job ran the PR's code, not this one
    elif pr.is_fork and config.isolation == "none" and (model_keys(attempt) or config.ledger_key):
        # under `isolation: none` the fork's code would run as the healer's user, which can read them
        held = "a model key" if model_keys(attempt) else "the ledger key"
        why = (
            f"A fork's code is not run under `isolation: none` while this job holds {held}, which that code "
            "could read; use `isolation: user` (the default)."
        )
        ctx.reporter.warning(why.replace("`", ""))
        result = HealResult(False, why_not=why, refused=True)
    else:
        hand = capture if capture is not None else partial(hand_over, ctx.gh, ctx=attempt)
        result = heal(Repo(ctx.actions.workspace), attempt, hand=hand, say=ctx.say)
    report_spend(ctx, result)
    if result.result == "no-model":
        ctx.reporter.warning(
            "the agent command made no model request through the healer's model proxy; compare "
            "agent-command with the recipes in docs/agents.md"
        )
    outcome = ctx.outcome
    if result.setup is not None and result.setup.ran and not result.setup.ok:
        ctx.note(f"{result.setup.describe()}; the heal went on without it")
        if result.setup.output:
            # the set-up ran the PR's code: its output is fenced in the summary, printed with commands off
            tail = "\n".join(result.setup.output.splitlines()[-15:])
            outcome.lines.append("the end of its output:\n\n" + indent(fence(tail, "text"), "  "))
            ctx.reporter.untrusted(result.setup.output)
    if result.frame_path:
        outcome.frame_path = result.frame_path
        outcome.frame = result.frame
    if result.delivery and result.delivery.pull:
        outcome.fix_pull_request = result.delivery.url
        outcome.fix_ci = result.delivery.ci
        ctx.say(f"opened fix pull request {result.delivery.url}{' (draft)' if result.delivery.draft else ''}")
        if result.delivery.ci:
            ctx.note(ci_note(result.delivery.ci, event.workflow_path or event.workflow_name))
    elif result.delivery and result.delivery.mode == "bundle":
        ctx.note(f"the change of {names(heals)} is in the heal bundle, for the deliver job")
    elif result.delivery and result.delivery.review:
        ctx.note(f"suggested the change in a review: {result.delivery.review}")
    elif result.delivery:
        outcome.pushed = result.delivery.mode == "push"
        ctx.note(f"delivered the change by {result.delivery.mode}")
    elif config.delivery == "none":
        ctx.note(f"rendered the heal frame for {names(heals)} (delivery: none) at {result.frame_path}")
    else:
        ctx.note(f"nothing delivered for {names(heals)}: {result.why_not}")
    if result.delivered and result.allowed:
        # never silently: the summary names what only the repository's allow list let through
        ctx.note(f"the change touches {', '.join(map(code, result.allowed))}, let through by `guard: allow`")
    return result


def report_spend(ctx: RunContext, result: HealResult) -> None:
    """What the agent spent through the model proxy: the step output, and a line of the summary."""
    spend = result.spend
    if spend is None:
        return
    ctx.outcome.agent_tokens = str(spend.tokens)
    ctx.note(f"the agent's model use: {spend.describe()}")
    if spend.stopped:
        ctx.reporter.warning(f"the agent was stopped at {spend.stopped}: {spend.describe().replace('`', '')}")


def spent_tokens(result: HealResult) -> int:
    """The tokens an attempt's marker records (0 when no agent ran through the proxy)."""
    return result.spend.tokens if result.spend is not None else 0


def dry_run_frame(
    ctx: RunContext, event: RunEvent, pr: PullRequest, config: Config, plan: Plan, comments: Sequence[Comment]
) -> None:
    """A dry run prints the heal frame the agent would get (and puts it in the outcome)."""
    heals = heal_checks(plan, pr, config)
    if not heals:
        return
    frame = frame_for(heal_context(ctx, event, pr, config, heals, comments), heals)
    ctx.outcome.frame = frame
    ctx.outcome.attempt = max(c.attempt for c in heals)
    ctx.outcome.category = category_of(heals[0])
    ctx.say("the heal frame:")
    ctx.reporter.untrusted(frame)


def category_of(plan: CheckPlan) -> str:
    return plan.diagnosis.category.value if plan.diagnosis else "unknown"


def names(plans: Sequence[CheckPlan]) -> str:
    return ", ".join(code(p.check) for p in plans)
