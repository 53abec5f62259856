"""A fork's change, delivered where its author can take it.

No token of this repository (``GITHUB_TOKEN``, an App's) can push to a fork's branch, so a fork's change goes
to the pull request itself: a review of **suggested changes**, one per change on lines the pull request's
diff shows (GitHub lets a review comment sit only there; each applies with "Commit suggestion"), and the
whole patch in the run's comment with the command that applies it. A change outside the pull request's diff
is only in the patch. When GitHub refuses the review (422: a line it does not show after all), the patch
alone is delivered and the run says so. With `delivery: push` and a person's token, where the fork's author
allows edits by maintainers, the change is pushed onto the fork's branch instead (:func:`push_to_fork`), and
suggested when the push is refused.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from healer.change.context import Delivery, HealContext, HealResult
from healer.change.outcomes import Verification
from healer.change.workspace import Checkout, GitError, Repo, StaleHeadError, identity_for
from healer.deliver.fixpr import commit_message
from healer.deliver.suggestions import suggest
from healer.github import GitHub, GitHubError
from healer.text.spans import code


def pull_diff(checkout: Checkout, repo: Repo, ctx: HealContext) -> str:
    """The pull request's diff as GitHub shows it: from the merge base of its base branch and its head, three
    lines of context, no renames. A shallow clone is deepened (100, then 1,000 commits) until the merge base
    is in it. "" when it cannot be found (then every change is left to the patch)."""
    pr, token, server = ctx.pr, ctx.config.github_token, ctx.server_url
    try:
        base = repo.fetch_tip(pr.base_ref, token=token, server_url=server)
        start = _merge_base(checkout, base)
        for commits in (100, 1000):
            if start:
                break
            refs = [f"refs/heads/{pr.base_ref}", f"refs/pull/{pr.number}/head"]
            repo.deepen(commits, refs, token=token, server_url=server)
            start = _merge_base(checkout, base)
        if not start:
            return ""
        return checkout.git("diff", "-U3", "--no-color", "--no-ext-diff", "--no-renames", start, "HEAD")
    except GitError:
        return ""


def _merge_base(checkout: Checkout, base: str) -> str:
    try:
        return checkout.git("merge-base", base, "HEAD").strip()
    except GitError:
        return ""


def review_body(ctx: HealContext, verification: Verification, suggested: int, left_out: int) -> str:
    """The review's own text: what it suggests, for which checks, how it was verified."""
    checks = ", ".join(code(c.check) for c in ctx.checks)
    attempt = max(c.attempt for c in ctx.checks)
    counted = f"{suggested} suggested change{'s' if suggested != 1 else ''}"
    rest = (
        f"; {left_out} more {'are' if left_out != 1 else 'is'} only in the patch of the run's comment"
        if left_out
        else ""
    )
    return (
        f"**ci-healer**: a fix for {checks} (attempt {attempt} of {ctx.config.max_attempts}, "
        f"{verification.describe()}), as {counted}{rest}. Each applies with *Commit suggestion*; "
        "the whole patch is in the run's comment."
    )


def can_push(ctx: HealContext) -> bool:
    """Whether to try a push onto the fork's branch: `delivery: push`, a token that is not the workflow's
    (``GITHUB_TOKEN`` and an App's reach no fork: a person's token with push access here may, where the
    author allows edits by maintainers), and the pull request says the author does."""
    pr = ctx.pr
    return (
        ctx.config.delivery == "push"
        and not ctx.workflow_token
        and pr.maintainer_can_modify
        and bool(pr.head_clone_url and pr.head_ref)
    )


def push_to_fork(checkout: Checkout, ctx: HealContext) -> Delivery:
    """Commit the change onto the fork's branch, as `delivery: push` does for the repository's own branches
    (never forced: a branch that moved refuses it). The token is sent only to this GitHub's server."""
    pr, config = ctx.pr, ctx.config
    attempt = max(c.attempt for c in ctx.checks)
    checks = [c.check for c in ctx.checks]
    message = commit_message(pr, ctx.head_sha, checks, attempt, config.max_attempts)
    commit = checkout.commit(message, identity_for(config.bot_login))
    checkout.push(pr.head_ref, token=config.github_token, server_url=ctx.server_url, remote=pr.head_clone_url)
    return Delivery("push", pr.head_ref, commit)


def hand_to_fork(
    gh: GitHub, ctx: HealContext, repo: Repo, say: Callable[[str], None]
) -> Callable[..., Delivery]:
    """The hand-over for a fork's change (see the module doc)."""

    def hand(checkout: Checkout, patch: str, verification: Verification, result: HealResult) -> Delivery:
        if can_push(ctx):
            try:
                return push_to_fork(checkout, ctx)
            except (GitError, StaleHeadError) as exc:
                say(f"the push to the fork's branch was refused, so the change is suggested instead: {exc}")
        shown = pull_diff(checkout, repo, ctx)
        changes = suggest(patch, shown)
        suggested, left_out = len(changes.suggestions), len(changes.left_out)
        say(f"a fork's change: {suggested} suggested, {left_out} only in the patch")
        if not shown:
            say("the pull request's diff could not be read (no merge base): the patch alone is delivered")
        review = ""
        if changes.suggestions:
            body = review_body(ctx, verification, suggested, left_out)
            try:
                review_id: Any = gh.create_review(
                    ctx.pr.number, commit_id=ctx.head_sha, body=body, comments=changes.suggestions
                )
                review = f"{ctx.pr.html_url}#pullrequestreview-{review_id}"
            except GitHubError as exc:
                say(f"GitHub refused the review of suggested changes, so the patch alone is delivered: {exc}")
                suggested, left_out = 0, suggested + left_out
        return Delivery("suggestions", patch=patch, review=review, suggested=suggested, left_out=left_out)

    return hand
