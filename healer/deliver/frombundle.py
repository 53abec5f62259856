"""The deliver stage's heal: the change of a heal bundle, checked again and delivered, with no code of the
pull request run.

The bundle comes from the heal job, a machine where the pull request's code ran (a fork's, under
`fork-policy: rules` or `heal`), so nothing in it is believed beyond what is checked here: the run names the
bundle it accepts (:func:`healer.change.bundle.check_identity`: this repository, pull request, run, head and
checks), its diff is refused before git sees it when it names a path outside the tree, a symlink, a submodule,
a rename or binary content (:func:`healer.change.bundle.diff_problems`), ``git apply`` applies it to a fresh
worktree of the head that the deliver job fetched itself, and the guard judges the staged result again as the
heal stage did.
Then it is delivered as one job would: a fix pull request, a push or a patch; for a fork, whose branch no bot
token can push, a review of suggested changes and the patch in a comment (:mod:`healer.deliver.forks`).

The heal job's *record* is its word, not a fact (under ``isolation: none`` the pull request's code could have
written it): what it says decides nothing here. The change delivered is unverified as far as this job knows,
so a fix pull request opens as a draft and the ledger records ``unverified``; the heal job's own verification
is quoted, fenced, as what the heal job reports (``HealResult.heal_word``); CI on the fix branch is what marks
it ready (:mod:`healer.run.proving`). What was learned is re-derived from this job's own plan and the files
of the diff it applied, never from the record's ``learned`` command or the agent's notes. The one thing a
record may do is make delivery more careful: a verification it reports as failed keeps ``delivery: push``
from pushing (the change goes out as a patch), as in one job.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from healer.change.bundle import HealBundle, diff_problems
from healer.change.bundling import is_ready, result_of
from healer.change.context import Delivery, HealContext, HealResult
from healer.change.judge import judge_staged
from healer.change.outcomes import Verification
from healer.change.workspace import GitError, Repo
from healer.deliver.handover import hand_over
from healer.github import GitHub
from healer.model import HealMode
from healer.text.fixpr import HEAL_WORDS
from healer.text.spans import code
from healer.text.tokens import contains

UNVERIFIED = Verification("unverified", reason="the heal stage sent no verification")


def not_checked_here(word: Verification) -> Verification:
    """What this job itself knows of a change it applied: nothing, as it runs none of the pull request's
    code; the heal job's own report is named as that job's word (its command in a code span)."""
    said = HEAL_WORDS.get(word.state)
    report = (
        f"the heal job reports that {code(word.command, 200)} {said}, which is its word"
        if said and word.command
        else "the heal job's report is its word"
    )
    return Verification("unverified", reason=f"this job ran none of the pull request's code; {report}")


def learned_here(ctx: HealContext) -> tuple[str, str] | None:
    """What a delivered change may teach, from this job's own plan: one check handed to the agent (as in one
    job), with no command (only the heal job ran one, so only its word says it reproduces the change). The
    lesson is then made of this job's diagnosis and the files of the diff it applied; the rule waits for a
    person to merge the fix (:func:`healer.run.learning.propose_rule`)."""
    config = ctx.config
    agents = [p for p in ctx.checks if p.mode is HealMode.AGENT]
    if not (config.learn and config.agent_command and len(agents) == 1):
        return None
    return (agents[0].check, "")


def deliver_bundle(
    gh: GitHub,
    repo: Repo,
    ctx: HealContext,
    bundle: HealBundle,
    *,
    say: Callable[[str], None],
    hand_fork: Callable[..., Delivery],
) -> HealResult:
    """Deliver the change of ``bundle`` (already checked to be this run's) for ``ctx.checks``; the result
    says what the heal stage did and what was delivered here."""
    result = result_of(bundle.record)
    if not is_ready(bundle.record) or not bundle.diff.strip():
        return result  # the heal stage delivered nothing; its record says why
    problems = diff_problems(bundle.diff)
    if problems:
        shown = "; ".join(problems[:3]) + ("; …" if len(problems) > 3 else "")
        return replace(result, why_not=f"The heal bundle's change was refused: {shown}", refused=True)
    config = ctx.config
    repo.fetch_head(ctx.pr, ctx.head_sha, token=config.github_token, server_url=ctx.server_url)
    where = ctx.temp_dir / "ci-healer" / f"deliver-{ctx.run_id}"
    if where.exists():
        repo.remove_worktree(where)
        shutil.rmtree(where, ignore_errors=True)
    patch_file = ctx.temp_dir / "ci-healer" / f"bundle-{ctx.run_id}.patch"
    patch_file.parent.mkdir(parents=True, exist_ok=True)
    patch_file.write_text(bundle.diff, encoding="utf-8")
    checkout = repo.add_worktree(where, ctx.head_sha)
    try:
        try:
            diff = checkout.apply_patch(patch_file)
        except GitError as exc:
            return replace(
                result, why_not=f"The heal bundle's change does not apply: {code(exc, 300)}", refused=True
            )
        if contains(diff, config.github_token):
            reason = "The change contains the healer's token; it was set aside and nothing of it is shown."
            return replace(result, why_not=reason, refused=True)
        verdict = judge_staged(checkout, diff, config)
        if not verdict.ok:
            return replace(result, why_not=" ".join(verdict.reasons), refused=True)
        if verdict.allowed:
            say(f"guard: {', '.join(map(code, verdict.allowed))} changed, allowed by `guard: allow`")
        files = tuple(checkout.git("diff", "--cached", "--name-status", "--no-renames").splitlines())
        word = result.verification or UNVERIFIED
        verification = not_checked_here(word)
        result = replace(
            result,
            diffstat=checkout.diffstat(),
            files=files,
            diff=diff[:8192],
            verification=verification,
            heal_word=word,
            learned=learned_here(ctx),
        )
        if ctx.pr.is_fork:
            delivery = hand_fork(checkout, bundle.diff, verification, result)
        else:
            delivery = hand_over(gh, checkout, diff, verification, result, ctx=ctx)
        return replace(result, delivered=True, delivery=delivery)
    finally:
        repo.remove_worktree(where)
        shutil.rmtree(where, ignore_errors=True)
        Path(patch_file).unlink(missing_ok=True)
