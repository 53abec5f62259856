"""The fix pull request's body (``prompts/fix-pr.md.j2``): the news on its first line, then the diagnosis, the
change and its verification; the log excerpt, how to merge and the commands folded away."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from healer.model import CheckPlan, PullRequest
from healer.text.frames import Frames, check_view, clip_lines, fit_comment

# The excerpt of each failed check in a fix PR body: enough to recognise the failure, folded anyway.
EXCERPT_LINES, EXCERPT_CHARS = 15, 2048
_BUDGETS = {
    "agent-request-budget": ("model request", "in this heal"),
    "agent-token-budget": ("model token", "in this heal"),
    "max-agent-tokens-per-pr": ("model token", "for this pull request"),
}


# What the heal job (two jobs) says its own check did, as its word is quoted (here and by
# healer.deliver.frombundle, in the delivered change's verification)
HEAL_WORDS = {"passed": "passed", "failed": "failed", "timed-out": "did not finish in time"}


def budget_stop(spend: Any) -> str:
    """What a model budget that refused the agent's requests means for the change (healer-written text), or
    "" when no budget stopped it. ``spend``: a :class:`healer.change.outcomes.Spend`, or None."""
    stopped = getattr(spend, "stopped", "") if spend is not None else ""
    if not stopped:
        return ""
    limit = int(getattr(spend, "limit", 0) or 0)
    unit, scope = _BUDGETS.get(stopped, ("model request", "in this heal"))
    return (
        f"the agent reached `{stopped}` ({limit:,} {unit}{'s' if limit != 1 else ''} {scope}), so its "
        "further model requests were refused and it stopped before it finished; review what it changed as an "
        "unfinished fix"
    )


def render_fix_pr_body(
    frames: Frames,
    *,
    pr: PullRequest,
    head_sha: str,
    run_url: str,
    checks: Sequence[CheckPlan],
    fix_commands: Sequence[str],
    agent_ran: bool,
    agent_exit: int | None,
    verification: Any,
    diffstat: str,
    superseded: Sequence[int] = (),
    notes: str = "",
    setup: Any = None,
    files: Sequence[str] = (),
    more_files: int = 0,
    attempt: int = 0,
    max_attempts: int = 0,
    allowed: Sequence[str] = (),
    budget_stop: str = "",
    heal_word: Any = None,
) -> str:
    """The body of a fix pull request: what it fixes and how sure that is (first line), the diagnosis, the
    change, what ran and what verification established (nothing more); the excerpt, how to merge and the
    commands in ``<details>``.

    ``allowed``: changed paths the guard let through only because the repository allows them (``guard:
    allow``), named so that a reviewer looks at them. ``budget_stop``: :func:`budget_stop` of the agent's
    spend. The line on CI of the fix branch goes under the first paragraph later
    (:func:`healer.text.proof.with_ci_line`). ``heal_word``: the verification the heal job reports (two jobs),
    quoted fenced as its word; it decides nothing."""

    def render(lines: int) -> str:
        excerpt_lines = min(lines, EXCERPT_LINES)
        return frames.render(
            "fix-pr.md.j2",
            {
                "pr": pr,
                "head_sha": head_sha,
                "run_url": run_url,
                "checks": [check_view(p, max_lines=excerpt_lines, max_chars=EXCERPT_CHARS) for p in checks],
                "fix_commands": tuple(fix_commands),
                "agent_ran": agent_ran,
                "agent_exit": agent_exit,
                "verification": verification,
                "diffstat": diffstat,
                "superseded": tuple(superseded),
                "allowed": tuple(allowed),
                "notes": clip_lines(notes.splitlines(), lines, 16 * 1024) if notes else "",
                "setup": setup,
                "files": tuple(files),
                "more_files": more_files,
                "attempt": attempt or max((p.attempt for p in checks), default=1),
                "max_attempts": max_attempts or max((p.max_attempts for p in checks), default=1),
                "budget_stop": budget_stop,
                "heal_word": heal_word,
                "heal_said": HEAL_WORDS.get(heal_word.state, "did not run") if heal_word else "",
            },
        )

    return fit_comment(render, "")
