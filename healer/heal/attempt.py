"""One heal, in the PR-head checkout: fix commands, the agent, the guard, verification, delivery.

A run heals every check planned for healing in one go: the fix rules first, then one agent invocation whose
frame holds every check still failing, then one diff, one verification and one delivery. The result says what
ran and what was established, so the comment and the fix-PR body can say exactly that and no more.
"""

from __future__ import annotations

import contextlib
import shlex
import shutil
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from healer.change.context import Handover, HealContext, HealResult
from healer.change.environment import scrubbed_env
from healer.change.judge import healer_protected_paths, judge_staged
from healer.change.outcomes import ProcessResult, SetupResult, Spend
from healer.change.workspace import Checkout, ConfigSnapshot, Repo
from healer.config import Config
from healer.heal.agent import no_model_reason, run
from healer.heal.agenthome import prepare_agent_home
from healer.heal.fixes import plan_fixes
from healer.heal.isolation import ThrowawayUser, availability, throwaway_user
from healer.heal.learn import ENV_VAR as COMMAND_FILE_VAR
from healer.heal.learn import command_file, learned_command
from healer.heal.modelkeys import ModelKeys, find_keys, without_keys
from healer.heal.prepare import run_setup, setup_commands, with_path
from healer.heal.proxy import model_proxy
from healer.heal.usage import Limits, Meter
from healer.heal.verify import VerifyPlan, plan_verification, verify
from healer.model import CheckPlan
from healer.text.frames import HealNote, render_heal_frame
from healer.text.spans import code
from healer.text.tokens import contains, scrub

# Fix commands are formatters and fixers: quick. The agent gets `agent-timeout-minutes`.
FIX_TIMEOUT = 600.0
_NOTES_LIMIT = 16 * 1024


def heal_note(result: HealResult, heals: Sequence[CheckPlan], config: Config) -> HealNote:
    """What the run's comment says about a heal: what ran, what was delivered or why nothing was."""
    how: list[str] = [result.setup.describe()] if result.setup and result.setup.ran else []
    if result.fix_commands:
        how.append(f"ran {', '.join(code(c) for c in result.fix_commands)}")
    if result.agent is not None:
        how.append(
            f"ran the agent command ({result.spend.describe()})" if result.spend else "ran the agent command"
        )
    elif result.spend is not None:
        how.append(f"did not run the agent command, its budget being spent ({result.spend.describe()})")
    if config.delivery == "none":
        how.append("handed the heal frame to a later step of the workflow")
    delivery = result.delivery
    return HealNote(
        attempt=max(c.attempt for c in heals),
        max_attempts=config.max_attempts,
        checks=tuple(heals),
        delivered=result.delivered or config.delivery == "none",
        how=" and ".join(how) or "nothing ran",
        verification=result.verification.describe() if result.verification else "",
        fix_pr_url=delivery.url if delivery else "",
        asked=delivery.asked if delivery else "",
        draft=bool(delivery and delivery.draft),
        ci_started=bool(delivery and delivery.ci == "started"),
        pushed=bool(delivery and delivery.mode == "push"),
        frame_path=result.frame_path if config.delivery == "none" else "",
        patch=delivery.patch if delivery else "",
        review_url=delivery.review if delivery else "",
        suggested=delivery.suggested if delivery else 0,
        why_not=result.why_not if result.delivered else _with_spend(result, result.spend),
        notes=result.notes if not result.delivered or result.agent is not None else "",
        agent_ran=result.agent is not None,
        setup_output=result.setup.output if result.setup and not result.setup.ok else "",
    )


def _with_spend(result: HealResult, spend: Spend | None) -> str:
    """Why nothing was delivered, and what the agent spent (the budget that stopped it, if one did)."""
    if spend is None:
        return result.why_not
    if result.agent is None:
        return f"the agent command did not run, its budget being spent ({spend.describe()})"
    use = f"the agent's model use: {spend.describe()}"
    return f"{result.why_not.rstrip('. ')} ({use})" if result.why_not else use


def frame_for(
    ctx: HealContext,
    checks: Sequence[CheckPlan],
    setup: SetupResult | None = None,
    verification: VerifyPlan | None = None,
    *,
    learn: bool = False,
) -> str:
    """The heal frame for ``checks``: with the set-up's outcome and the command that will judge the change
    when the healer runs the agent itself."""
    return render_heal_frame(
        ctx.frames,
        repository=ctx.repository,
        pr=ctx.pr,
        head_sha=ctx.head_sha,
        run_url=ctx.run_url,
        checks=checks,
        delivery=ctx.config.delivery,
        protected_paths=healer_protected_paths(ctx.config),
        max_diff_lines=ctx.config.max_diff_lines,
        setup=setup,
        verification=verification,
        earlier=ctx.earlier,
        learn=learn,
    )


def write_frame(ctx: HealContext, frame: str) -> Path:
    """Write the frame under ``RUNNER_TEMP`` (readable by later steps of the job: output ``frame-path``)."""
    directory = ctx.temp_dir / "ci-healer"
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"heal-frame-{ctx.pr.number}-{ctx.head_sha[:7]}-{ctx.run_id}.md"
    path.write_text(frame, encoding="utf-8")
    return path


def model_keys(ctx: HealContext) -> ModelKeys:
    """The model keys in the runner's environment and the ``agent-api-key`` input (:mod:`.modelkeys`)."""
    return find_keys(ctx.base_env, ctx.config.agent_api_key)


def agent_env(ctx: HealContext, frame_path: Path, checks: Sequence[CheckPlan]) -> dict[str, str]:
    """The agent's environment: the runner's, without credentials (unless `agent-token`) and without model
    keys (the proxy's variables stand in for them), plus the frame."""
    base = {
        k: v for k, v in without_keys(ctx.base_env, model_keys(ctx)).items() if not k.startswith("HEALER_")
    }
    env = scrubbed_env(base, token=ctx.config.github_token, pass_token=ctx.config.agent_token)
    categories = dict.fromkeys(p.diagnosis.category.value if p.diagnosis else "unknown" for p in checks)
    env.update(
        HEALER_FRAME=str(frame_path),
        HEALER_PR_NUMBER=str(ctx.pr.number),
        HEALER_ATTEMPT=str(max((p.attempt for p in checks), default=1)),
        HEALER_MAX_ATTEMPTS=str(ctx.config.max_attempts),
        HEALER_CATEGORY=",".join(categories),
        HEALER_CHECKS="\n".join(_one_line(p.check) for p in checks),
    )
    return env


def _one_line(name: str) -> str:
    """A check name for ``HEALER_CHECKS``: job names come from the PR's workflow file, and a NUL (which no
    environment variable can hold) or a newline (which would split one name in two) is a push away."""
    return "".join(" " if ch < " " or ch == "\x7f" else ch for ch in name)


def tool_env(ctx: HealContext) -> dict[str, str]:
    """Set-up, fix and verify commands never get a token, nor a model key."""
    base = {
        k: v for k, v in without_keys(ctx.base_env, model_keys(ctx)).items() if not k.startswith("HEALER_")
    }
    return scrubbed_env(base, token=ctx.config.github_token)


def heal(repo: Repo, ctx: HealContext, *, hand: Handover, say: Callable[[str], None]) -> HealResult:
    """Heal ``ctx.checks`` in a fresh worktree of the PR head and hand the change over (see the module doc):
    ``hand`` delivers it (a job with the write token) or writes the heal bundle (the heal stage's job)."""
    if ctx.config.delivery == "none":
        frame = frame_for(ctx, ctx.checks)
        path = write_frame(ctx, frame)
        return HealResult(False, frame, str(path), agent_checks=tuple(p.check for p in ctx.checks))
    if ctx.config.isolation == "user":
        how, why_not = availability()
        if not how:
            # code from the pull request never runs as the user that holds the token (SECURITY.md)
            say(f"no code from the pull request was run: {why_not}")
            return HealResult(
                False, why_not=f"No code from the pull request was run: {why_not}.", refused=True
            )
    repo.fetch_head(ctx.pr, ctx.head_sha, token=ctx.config.github_token, server_url=ctx.server_url)
    worktree = ctx.temp_dir / "ci-healer" / f"checkout-{ctx.run_id}"
    if worktree.exists():
        repo.remove_worktree(worktree)
        shutil.rmtree(worktree, ignore_errors=True)
    checkout = repo.add_worktree(worktree, ctx.head_sha)
    try:
        isolated = ctx.config.isolation == "user"
        with throwaway_user(checkout.path) if isolated else contextlib.nullcontext() as user:
            return _heal_in(hand, checkout, ctx, say, user)
    finally:
        repo.remove_worktree(worktree)
        shutil.rmtree(worktree, ignore_errors=True)


def _heal_in(
    hand: Handover,
    checkout: Checkout,
    ctx: HealContext,
    say: Callable[[str], None],
    user: ThrowawayUser | None,
) -> HealResult:
    """``user``: the throwaway user every command from the PR runs as, in its copy (``isolation: user``)."""
    config = ctx.config
    where = user.workdir if user is not None else checkout.path
    snapshot = checkout.snapshot_config()
    setup = run_setup(
        setup_commands(config, ctx.checks),
        checkout,
        tool_env(ctx),
        ctx.temp_dir / "ci-healer" / f"setup-{ctx.run_id}",
        user=user,
    )
    if setup.ran:
        say(setup.describe().replace("`", ""))
        if snapshot.changed():  # checked before git runs in the checkout again (git status runs filters)
            return _tampered(HealResult(False, setup=setup), snapshot, "The set-up command")
        setup = replace(setup, leftovers=checkout.leftovers())
    tools = with_path(tool_env(ctx), setup.path)
    fixes, agents, problems = plan_fixes(ctx.checks, tools.get("PATH"), checkout.path)
    if agents and not config.agent_command:
        say(f"no agent command is configured for {', '.join(code(p.check) for p in agents)}")
    verification_plan = plan_verification(config, ctx.checks, tools.get("PATH"))
    ran: list[str] = []
    notes: list[str] = []
    for _plan, argvs in fixes:
        for argv in argvs:
            shown = shlex.join(argv)
            if shown in ran:
                continue
            result = run(argv, cwd=where, env=tools, timeout=FIX_TIMEOUT, isolation=user)
            ran.append(shown)
            say(f"fix command `{shown}` exited with {result.returncode}")
            if not result.ok and result.output:
                notes.append(f"$ {shown}\n{result.output}")
    frame, frame_path, agent, spend = "", "", None, None
    # one agent check at a time is learned from: the agent may name the command that makes its change
    fix_file = None
    if config.learn and len(agents) == 1 and config.agent_command:
        fix_file = command_file(user, ctx.temp_dir / "ci-healer", ctx.run_id)
    if agents and config.agent_command:
        frame = frame_for(ctx, agents, setup, verification_plan, learn=fix_file is not None)
        path = write_frame(ctx, frame)
        frame_path = str(path)
        env = agent_env(ctx, user.share(path) if user else path, agents)
        if fix_file is not None:
            env[COMMAND_FILE_VAR] = str(fix_file)
        env = with_path(env, setup.path)
        agent, spend = run_agent(ctx, frame, env, where, user)
        if spend is not None:
            say(f"the agent's model requests: {spend.describe().replace('`', '')}")
        if agent is not None:
            state = "timed out" if agent.timed_out else f"exited with {agent.returncode}"
            say(f"agent command {state} after {agent.seconds:.0f} s")
            notes.append(agent.stdout.strip() or agent.stderr.strip())
    note_text = scrub("\n\n".join(n for n in notes if n), config.github_token)[-_NOTES_LIMIT:]
    base = HealResult(
        False,
        frame=frame,
        frame_path=frame_path,
        fix_commands=tuple(ran),
        fixed_checks=tuple(p.check for p, _ in fixes),
        agent_checks=tuple(p.check for p in agents) if config.agent_command else (),
        agent=agent,
        notes=note_text,
        setup=setup,
        spend=spend,
    )
    if user is not None:
        # every process of the user is gone before its tree is read back: what is judged is what is committed
        user.copy_out(checkout.path)
    if snapshot.changed():
        # checked before git runs again in the checkout: the new configuration could run programs
        return _tampered(base, snapshot, "The commands run in the checkout")
    diff = checkout.stage(setup.leftovers)
    if contains(diff, config.github_token):
        reason = "The change contains the healer's token; it was set aside and nothing of it is shown."
        return _replace(base, why_not=reason, refused=True)
    verdict = judge_staged(checkout, diff, config)
    if verdict.allowed:
        say(f"guard: {', '.join(map(code, verdict.allowed))} changed, allowed by `guard: allow`")
    diffstat = checkout.diffstat() if not verdict.empty else ""
    files = tuple(checkout.git("diff", "--cached", "--name-status", "--no-renames").splitlines())
    base = _replace(base, diffstat=diffstat, files=files, diff=diff[:8192], allowed=verdict.allowed)
    if agent is not None and spend is not None and spend.silent and verdict.empty:
        return _replace(base, why_not=no_model_reason(agent))
    if agent is not None and agent.timed_out:
        minutes = config.agent_timeout_minutes
        reason = f"the agent command did not finish within {minutes} minute{'s' if minutes != 1 else ''}"
        return _replace(base, why_not=reason)
    if not verdict.ok:
        why = " ".join(verdict.reasons)
        if verdict.empty and agents and not config.agent_command:
            why = "; ".join(problems) or "no fix rule applies here and no `agent-command` is configured"
        elif verdict.empty and problems:
            why = f"{why} ({'; '.join(problems)})"
        return _replace(base, why_not=why)
    verification = verify(verification_plan, checkout, tools, setup.leftovers, user=user)
    verification = replace(verification, output=scrub(verification.output, config.github_token))
    say(f"verification: {verification.describe()}")
    if snapshot.changed():  # the verify commands ran the PR's tools too
        snapshot.restore()
        reason = (
            "The verify commands changed git's configuration, which could make git run programs while the "
            "change is committed and pushed; the change was set aside and the configuration restored."
        )
        return _replace(base, why_not=reason, refused=True)
    learned = None
    if fix_file is not None and agent is not None and verification.passed:
        command = learned_command(
            checkout.repo,
            sha=ctx.head_sha,
            fix_file=fix_file,
            diff=diff,
            env=tool_env(ctx),
            setup=setup_commands(config, ctx.checks),
            work_dir=ctx.temp_dir / "ci-healer" / f"learn-{ctx.run_id}",
            isolated=user is not None,
            timeout=FIX_TIMEOUT,
            say=say,
        )
        learned = (agents[0].check, command)
    delivery = hand(checkout, diff, verification, _replace(base, verification=verification))
    return _replace(base, delivered=True, verification=verification, delivery=delivery, learned=learned)


def agent_limits(ctx: HealContext) -> Limits:
    """The budgets of this heal's agent (the pull request's own counts what its earlier attempts spent)."""
    config = ctx.config
    return Limits(
        tokens=config.agent_token_budget,
        requests=config.agent_request_budget,
        pr_tokens=config.max_agent_tokens_per_pr,
        pr_spent=ctx.agent_tokens_spent,
    )


def run_agent(
    ctx: HealContext, frame: str, env: dict[str, str], where: Path, user: ThrowawayUser | None
) -> tuple[ProcessResult | None, Spend | None]:
    """Run the agent command with its model behind the proxy: the proxy holds the keys for as long as the
    command runs (every process it started included), and the agent gets the proxy's address and the heal's
    token. Without a model key there is nothing to hold: the command runs as it is. Returns the command's
    result (None when a budget was spent before it could start) and what it spent."""
    config = ctx.config
    keys = model_keys(ctx)
    timeout = config.agent_timeout_minutes * 60
    if not keys:
        return run(
            config.agent_command, cwd=where, env=env, timeout=timeout, stdin=frame, isolation=user
        ), None
    limits = agent_limits(ctx)
    before = Meter(limits)
    if before.admit():
        return None, before.spend()  # e.g. the pull request's earlier attempts spent its budget
    home = prepare_agent_home(user, ctx.temp_dir / "ci-healer" / f"agent-{ctx.run_id}")
    with model_proxy(keys, limits, config.model_api_url) as proxy:
        agent = run(
            config.agent_command,
            cwd=where,
            env={**env, **home, **proxy.agent_variables(keys.names)},
            timeout=timeout,
            stdin=frame,
            isolation=user,
        )
        ended = time.monotonic()
    return agent, proxy.spend(ended)


def _tampered(result: HealResult, snapshot: ConfigSnapshot, who: str) -> HealResult:
    """Refuse the change of a checkout whose git configuration was rewritten, and restore it."""
    where = ", ".join(code(p.name) for p in snapshot.changed())
    snapshot.restore()
    reason = (
        f"{who} changed git's configuration ({where}), which could make git run programs while the change "
        "is committed and pushed; the change was set aside and the configuration restored."
    )
    return _replace(result, why_not=reason, refused=True)


def _replace(result: HealResult, **changes: object) -> HealResult:
    return replace(result, **changes)  # type: ignore[arg-type]
