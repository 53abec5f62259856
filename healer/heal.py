"""One heal, in the PR-head checkout: fix commands, the agent, the guard, verification, delivery.

A run heals every check planned for healing in one go: the fix rules first, then one agent invocation whose
frame holds every check still failing, then one diff, one verification and one delivery. The result says what
ran and what was established, so the comment and the fix-PR body can say exactly that and no more.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from healer.agent import (
    ProcessError,
    ProcessResult,
    Verification,
    missing_tools,
    run,
    scrubbed_env,
    split_fix_command,
    step_verify_argv,
)
from healer.config import Config
from healer.deliver import Delivery, deliver_comment, deliver_pull_request, deliver_push
from healer.frames import OVERRIDE_DIR, Frames, HealNote, render_fix_pr_body, render_heal_frame
from healer.github import GitHub
from healer.guard import judge_diff
from healer.model import CheckPlan, HealMode, PullRequest
from healer.workspace import Checkout, Repo, identity_for

# Fix commands are formatters and fixers: quick. The agent gets `agent-timeout-minutes`.
FIX_TIMEOUT = 600.0
VERIFY_TIMEOUT = 900.0
_NOTES_LIMIT = 16 * 1024


@dataclass(frozen=True)
class HealContext:
    """Everything a heal needs besides the GitHub client and the repository."""

    repository: str
    pr: PullRequest
    head_sha: str
    run_id: int
    run_url: str
    server_url: str
    checks: tuple[CheckPlan, ...]
    config: Config
    frames: Frames
    temp_dir: Path
    base_env: Mapping[str, str]  # the runner's environment, before scrubbing
    # fix PRs recorded earlier for these checks (closed as superseded when a new one opens)
    previous_fix_prs: tuple[int, ...] = ()


@dataclass(frozen=True)
class HealResult:
    """What a heal did and established."""

    delivered: bool
    frame: str = ""
    frame_path: str = ""
    fix_commands: tuple[str, ...] = ()  # fix commands that ran
    fixed_checks: tuple[str, ...] = ()  # checks handed to fix commands
    agent_checks: tuple[str, ...] = ()  # checks handed to the agent
    agent: ProcessResult | None = None
    verification: Verification | None = None
    delivery: Delivery | None = None
    why_not: str = ""  # Markdown from the healer (guard reasons, missing tools)
    notes: str = ""  # untrusted output of the fix or agent
    diffstat: str = ""
    refused: bool = False  # set aside before the diff was even read (see ConfigSnapshot)
    log: tuple[str, ...] = field(default_factory=tuple)

    @property
    def result(self) -> str:
        """A one-word result for the ledger: verified, delivered, timed-out, refused, no-change, framed."""
        if self.frame_path and self.delivery is None and not self.agent and not self.fix_commands:
            return "framed"
        if self.delivered:
            return "verified" if self.verification and self.verification.passed else "delivered"
        if self.agent is not None and self.agent.timed_out:
            return "timed-out"  # whatever it left half-done was set aside, not judged
        return "refused" if self.diffstat or self.refused else "no-change"


def heal_note(result: HealResult, heals: Sequence[CheckPlan], config: Config) -> HealNote:
    """What the run's comment says about a heal: what ran, what was delivered or why nothing was."""
    how: list[str] = (
        [f"ran {', '.join(f'`{c}`' for c in result.fix_commands)}"] if result.fix_commands else []
    )
    if result.agent is not None:
        how.append("ran the agent command")
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
        draft=bool(delivery and delivery.draft),
        pushed=bool(delivery and delivery.mode == "push"),
        frame_path=result.frame_path if config.delivery == "none" else "",
        patch=delivery.patch if delivery else "",
        why_not=result.why_not,
        notes=result.notes if not result.delivered or result.agent is not None else "",
        agent_ran=result.agent is not None,
    )


def healer_protected_paths(config: Config) -> tuple[str, ...]:
    """The maintainer's protected paths plus the healer's own settings and templates: a fix that edits the
    healer's config would change how the next run treats the PR once merged, so a person must make it."""
    return (*config.protected_paths, config.config_file, f"{OVERRIDE_DIR}/**")


def frame_for(ctx: HealContext, checks: Sequence[CheckPlan]) -> str:
    """The heal frame for ``checks``."""
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
    )


def write_frame(ctx: HealContext, frame: str) -> Path:
    """Write the frame under ``RUNNER_TEMP`` (readable by later steps of the job: output ``frame-path``)."""
    directory = ctx.temp_dir / "ci-healer"
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"heal-frame-{ctx.pr.number}-{ctx.head_sha[:7]}-{ctx.run_id}.md"
    path.write_text(frame, encoding="utf-8")
    return path


def agent_env(ctx: HealContext, frame_path: Path, checks: Sequence[CheckPlan]) -> dict[str, str]:
    """The agent's environment: the runner's, without credentials (unless `agent-token`), plus the frame."""
    base = {k: v for k, v in ctx.base_env.items() if not k.startswith("HEALER_")}
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
    """Fix and verify commands never get a token."""
    base = {k: v for k, v in ctx.base_env.items() if not k.startswith("HEALER_")}
    return scrubbed_env(base, token=ctx.config.github_token)


def split_by_mode(checks: Sequence[CheckPlan], path: str | None) -> tuple[list[CheckPlan], list[CheckPlan]]:
    """(checks fix rules can fix, checks for the agent); a fix whose tool is missing goes to the agent."""
    fixes: list[CheckPlan] = []
    agents: list[CheckPlan] = []
    for plan in checks:
        commands = plan.diagnosis.fix_commands if plan.diagnosis else ()
        if plan.mode is HealMode.FIX and commands and not missing_tools(commands, path):
            fixes.append(plan)
        else:
            agents.append(plan)
    return fixes, agents


def verify(ctx: HealContext, checkout: Checkout, checks: Sequence[CheckPlan]) -> Verification:
    """Run `verify-command`, else each check's failing command when it is a known checker on PATH."""
    env = tool_env(ctx)
    commands: list[str | list[str]] = []
    unchecked: list[str] = []  # checks whose failing command cannot be re-run here
    if ctx.config.verify_command:
        commands.append(ctx.config.verify_command)  # the maintainer's own command: through the shell
    else:
        for plan in checks:
            argv = step_verify_argv(plan.diagnosis.command if plan.diagnosis else None, env.get("PATH"))
            if argv is None:
                unchecked.append(plan.check)
            elif argv not in commands:
                commands.append(argv)
    if not commands:
        return Verification(
            "unverified",
            reason="no `verify-command` is set and the failing command is not a known lint/format/typecheck "
            "tool on PATH",
        )
    shown: list[str] = []
    for command in commands:
        try:
            result = run(command, cwd=checkout.path, env=env, timeout=VERIFY_TIMEOUT)
        except ProcessError as exc:
            return Verification("unverified", reason=str(exc))
        shown.append(result.command)
        if result.timed_out:
            return Verification("timed-out", command=result.command, output=result.output[-4000:])
        if not result.ok:
            return Verification("failed", result.command, result.returncode, result.output[-4000:])
    if checkout.has_unstaged_changes():
        # A "check" that rewrote files proves nothing about the staged change.
        return Verification(
            "unverified", reason=f"`{'; '.join(shown)}` changed files instead of checking them"
        )
    if unchecked:
        # what ran passed, but not every check was re-run: the PR stays a draft and says which were not
        names = ", ".join(f"`{name}`" for name in unchecked)
        return Verification(
            "unverified",
            command=" && ".join(shown),
            exit_code=0,
            reason=f"`{' && '.join(shown)}` passed, but the failing command of {names} cannot be re-run here",
        )
    return Verification("passed", command=" && ".join(shown), exit_code=0)


def heal(gh: GitHub, repo: Repo, ctx: HealContext, *, say: Callable[[str], None]) -> HealResult:
    """Heal ``ctx.checks`` in a fresh worktree of the PR head and deliver the change (see the module doc)."""
    config = ctx.config
    if config.delivery == "none":
        frame = frame_for(ctx, ctx.checks)
        path = write_frame(ctx, frame)
        return HealResult(False, frame, str(path), agent_checks=tuple(p.check for p in ctx.checks))
    path_var = ctx.base_env.get("PATH")
    fixes, agents = split_by_mode(ctx.checks, path_var)
    if agents and not config.agent_command:
        missing = ", ".join(f"`{p.check}`" for p in agents)
        say(f"no agent command is configured for {missing}")
    repo.fetch_branch(ctx.pr.head_ref, ctx.head_sha, token=config.github_token, server_url=ctx.server_url)
    worktree = ctx.temp_dir / "ci-healer" / f"checkout-{ctx.run_id}"
    if worktree.exists():
        repo.remove_worktree(worktree)
        shutil.rmtree(worktree, ignore_errors=True)
    checkout = repo.add_worktree(worktree, ctx.head_sha)
    try:
        return _heal_in(gh, checkout, ctx, fixes, agents, say)
    finally:
        repo.remove_worktree(worktree)
        shutil.rmtree(worktree, ignore_errors=True)


def _heal_in(
    gh: GitHub,
    checkout: Checkout,
    ctx: HealContext,
    fixes: list[CheckPlan],
    agents: list[CheckPlan],
    say: Callable[[str], None],
) -> HealResult:
    config = ctx.config
    ran: list[str] = []
    notes: list[str] = []
    snapshot = checkout.snapshot_config()
    for plan in fixes:
        for command in plan.diagnosis.fix_commands if plan.diagnosis else ():
            if command in ran:
                continue
            result = run(
                split_fix_command(command), cwd=checkout.path, env=tool_env(ctx), timeout=FIX_TIMEOUT
            )
            ran.append(command)
            say(f"fix command `{command}` exited with {result.returncode}")
            if not result.ok and result.output:
                notes.append(f"$ {command}\n{result.output}")
    frame, frame_path, agent = "", "", None
    if agents and config.agent_command:
        frame = frame_for(ctx, agents)
        path = write_frame(ctx, frame)
        frame_path = str(path)
        agent = run(
            config.agent_command,
            cwd=checkout.path,
            env=agent_env(ctx, path, agents),
            timeout=config.agent_timeout_minutes * 60,
            stdin=frame,
        )
        state = "timed out" if agent.timed_out else f"exited with {agent.returncode}"
        say(f"agent command {state} after {agent.seconds:.0f} s")
        notes.append(agent.stdout.strip() or agent.stderr.strip())
    note_text = "\n\n".join(n for n in notes if n)[-_NOTES_LIMIT:]
    base = HealResult(
        False,
        frame=frame,
        frame_path=frame_path,
        fix_commands=tuple(ran),
        fixed_checks=tuple(p.check for p in fixes),
        agent_checks=tuple(p.check for p in agents) if config.agent_command else (),
        agent=agent,
        notes=note_text,
    )
    tampered = snapshot.changed()
    if tampered:
        # checked before git runs again in the checkout: the new configuration could run programs
        snapshot.restore()
        where = ", ".join(f"`{p.name}`" for p in tampered)
        reason = (
            f"The commands run in the checkout changed git's configuration ({where}), which could make git "
            "run programs while the change is committed and pushed; the change was set aside and the "
            "configuration restored."
        )
        return _replace(base, why_not=reason, refused=True)
    diff = checkout.stage()
    verdict = judge_diff(
        diff, protected_paths=healer_protected_paths(config), max_lines=config.max_diff_lines
    )
    diffstat = checkout.diffstat() if not verdict.empty else ""
    if agent is not None and agent.timed_out:
        minutes = config.agent_timeout_minutes
        reason = f"the agent command did not finish within {minutes} minute{'s' if minutes != 1 else ''}"
        return _replace(base, why_not=reason, diffstat=diffstat)
    if not verdict.ok:
        missing = [p.check for p in agents] if agents and not config.agent_command else []
        why = " ".join(verdict.reasons)
        if missing and verdict.empty:
            why = "no fix rule applies here and no `agent-command` is configured"
        return _replace(base, why_not=why, diffstat=diffstat)
    verification = verify(ctx, checkout, ctx.checks)
    say(f"verification: {verification.describe()}")
    if snapshot.changed():  # the verify commands ran the PR's tools too
        snapshot.restore()
        reason = (
            "The verify commands changed git's configuration, which could make git run programs while the "
            "change is committed and pushed; the change was set aside and the configuration restored."
        )
        return _replace(base, why_not=reason, refused=True, diffstat=diffstat)
    names = [p.check for p in ctx.checks]
    attempt = max(p.attempt for p in ctx.checks)
    identity = identity_for(config.bot_login)
    # A push lands on the PR branch with no review step, so only a change that did not fail verification is
    # pushed; one that fails is posted as a patch instead.
    failed = verification.state in ("failed", "timed-out")
    if config.delivery == "comment" or (config.delivery == "push" and failed):
        delivery = deliver_comment(diff)
    elif config.delivery == "push" and not ctx.pr.is_fork:
        delivery = deliver_push(
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
    else:
        body = render_fix_pr_body(
            ctx.frames,
            pr=ctx.pr,
            head_sha=ctx.head_sha,
            run_url=ctx.run_url,
            checks=ctx.checks,
            fix_commands=ran,
            agent_ran=agent is not None,
            agent_exit=agent.returncode if agent else None,
            verification=verification,
            diffstat=diffstat,
            notes=note_text,
        )
        delivery = deliver_pull_request(
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
        )
    return _replace(base, delivered=True, verification=verification, delivery=delivery, diffstat=diffstat)


def _replace(result: HealResult, **changes: object) -> HealResult:
    return replace(result, **changes)  # type: ignore[arg-type]
