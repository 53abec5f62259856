"""Delivery: turn a staged change in the PR-head checkout into a fix pull request, a push, or a patch.

It composes the two doors it needs, git (:mod:`healer.change.workspace`) and GitHub
(:class:`healer.github.GitHub`),
and decides nothing: what to deliver, and whether it was verified, is settled by the caller.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping, Sequence

from healer.change.claim import BranchLock
from healer.change.context import Delivery
from healer.change.workspace import Checkout, Identity
from healer.deliver.proof import StartedCi
from healer.github import GitHub, GitHubError
from healer.model import PullRequest, fix_branch, fix_branch_target, is_fix_branch
from healer.text.fixstate import closed_body
from healer.text.head import under_head
from healer.text.proof import TITLE_LIMIT, unverified_title, with_ci_line

_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


class DeliveryError(Exception):
    """The change could not be delivered; the message says what failed and what to check."""


def fix_title(pr: PullRequest, checks: Sequence[str], attempt: int = 0, max_attempts: int = 0) -> str:
    """The fix PR's title (and commit subject): plain text, one line, bounded; it names the attempt
    (``attempt 2/3``), so that successive fix PRs can be told apart in a list."""
    # str.split() leaves NUL and other control characters in place; a NUL cannot even pass to `git commit`
    names = ", ".join(" ".join(_CONTROL.sub(" ", c).split()) for c in checks) or "CI"
    suffix = f" (attempt {attempt}/{max_attempts})" if attempt else ""
    title = f"ci-healer: fix {names} for #{pr.number}"
    if len(title) + len(suffix) > TITLE_LIMIT:
        title = title[: TITLE_LIMIT - len(suffix) - 1] + "…"
    return title + suffix


def commit_message(
    pr: PullRequest, head_sha: str, checks: Sequence[str], attempt: int, max_attempts: int
) -> str:
    return (
        f"{fix_title(pr, checks, attempt, max_attempts)}\n\n"
        f"Heal attempt {attempt} of {max_attempts} for the failure at {head_sha[:7]}.\n"
        "Made by ci-healer; review it like any other change."
    )


def deliver_pull_request(
    gh: GitHub,
    checkout: Checkout,
    *,
    pr: PullRequest,
    head_sha: str,
    checks: Sequence[str],
    attempt: int,
    max_attempts: int,
    body: str,
    draft: bool,
    identity: Identity,
    token: str,
    server_url: str,
    previous_fix_prs: Sequence[int] = (),
    start_ci: Callable[[str], StartedCi] | None = None,
    lease: str = "",
) -> Delivery:
    """Commit, push ``ci-healer/<pr>-<sha7>`` and open (or update) a PR into the PR's head branch.

    With ``start_ci`` (a token whose pushes start no workflow), the branch's CI is started once it is pushed;
    the body says so, and the PR waits for the verdict as a draft (:mod:`healer.run.proving` marks it ready).
    Earlier fix PRs of the same checks that are still open are closed as superseded by this one."""
    branch = fix_branch(pr.number, head_sha)
    commit = checkout.commit(commit_message(pr, head_sha, checks, attempt, max_attempts), identity)
    # The branch is the healer's own: with ``lease`` (this run's claim on it, healer.change.claim) the fix
    # replaces the claim only while it is there; without, a leftover of an interrupted run is overwritten.
    checkout.push(branch, token=token, server_url=server_url, force=True, lease=lease)
    title = fix_title(pr, checks, attempt, max_attempts)
    # branches the healer deletes go by git, as they were pushed (no API request)
    lock = BranchLock(checkout.repo, token=token, server_url=server_url, identity=identity)
    unverified = draft
    ci = start_ci(branch) if start_ci is not None else None
    if ci is not None:
        # waiting for CI is the fix's state: its first line (a verdict replaces it there)
        body = with_ci_line(body, ci.line, first=ci.pending)
        draft = draft or ci.pending
    try:
        try:
            pull = gh.create_pull(head=branch, base=pr.head_ref, title=title, body=body, draft=draft)
        except GitHubError as exc:
            if not (draft and exc.status == 422 and DRAFTS_REFUSED in str(exc)):
                raise
            # Private repositories on the Free and Pro plans refuse drafts (BEHAVIOUR.md): open it ready for
            # review, and say plainly in its title and body when the change is unverified. One retry.
            draft = False
            if ci is not None:
                body = with_ci_line(body, ci.line_when_not_draft(), first=ci.pending)
            pull = gh.create_pull(
                head=branch,
                base=pr.head_ref,
                title=unverified_title(title) if unverified else title,
                body=UNVERIFIED_NOTE + body if unverified else body,
                draft=False,
            )
    except GitHubError as exc:
        # A fix branch without its pull request would be an orphan nobody reviews: delete it.
        deleted = delete_fix_branch(gh, branch, lock)
        left = "the branch was deleted again" if deleted else f"delete the branch {branch} by hand"
        message = f"pushed {branch} but could not open the fix pull request: {exc}; {left}"
        raise DeliveryError(message) from None
    superseded = close_superseded(gh, previous_fix_prs, keep=pull.number, by=pull, lock=lock)
    # Asked once, when the fix is ready: now, unless its CI is running (the verdict asks then), and never
    # again for a fix pull request reused by a later attempt on the same commit (`/ci-healer retry`).
    waiting = ci is not None and ci.pending
    reused = pull.number in previous_fix_prs
    asked = "" if reused else "waiting" if waiting else ask_review(gh, pull, pr, checks, draft=draft)
    return Delivery(
        "pull-request", branch, commit, pull, draft, superseded, ci=ci.state if ci else "", asked=asked
    )


_LOGIN = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})")


def ask_review(
    gh: GitHub, pull: PullRequest, pr: PullRequest, checks: Sequence[str], *, draft: bool = False
) -> str:
    """Ask the author of ``pr`` to review the fix pull request ``pull``, so that the news arrives as a
    notification (opening a pull request notifies the repository's watchers, not the author, and the
    run's comment on ``pr`` was created before the fix existed). Returns what was done, for the run's
    comment: ``review`` (a review request), ``mention`` (GitHub refused the request, 422: the author is not
    a collaborator; a comment on the fix pull request mentions them instead) or "" (a bot, or the request
    failed otherwise: the fix pull request stands, linked from the run's comment). ``draft``: the fix is a
    draft, which GitHub does not merge, so the mention says to mark it ready first if it still is (a person
    may have since). Never raises."""
    author = pr.author
    if not _LOGIN.fullmatch(author or ""):
        return ""  # a bot (`dependabot[bot]`) reads no notifications and cannot be asked for a review
    try:
        gh.request_reviewers(pull.number, [author])
    except GitHubError as exc:
        if exc.status != 422:
            return ""
    else:
        return "review"
    names = ", ".join(f"`{' '.join(_CONTROL.sub(' ', c).split()).replace('`', chr(39))}`" for c in checks)
    text = (
        f"@{author}: this pull request fixes {names or 'the failing checks'} of #{pr.number} on your branch. "
        "GitHub would not request your review here (it asks collaborators only), so this comment does: "
        + (
            "if it is right, merge it into your branch (if it is a draft, press *Ready for review* first); "
            "otherwise close it."
            if draft
            else "merge it into your branch if it is right, or close it."
        )
    )
    try:
        gh.create_comment(pull.number, text)
    except GitHubError:
        return ""
    return "mention"


DRAFTS_REFUSED = "Draft pull requests are not supported in this repository"
UNVERIFIED_NOTE = (
    "> [!WARNING]\n"
    "> **Opened unverified.** This repository does not accept draft pull requests, so this fix was opened "
    "for review before anything verified it. Read and test it before merging.\n\n"
)


def delete_fix_branch(gh: GitHub, branch: str, lock: BranchLock | None = None) -> bool:
    """Delete one of the healer's own branches; True when it is gone. Never raises (tidying up). With
    ``lock`` (the workflow's checkout and the token), by a git push, which costs no API request; the REST
    API's ``DELETE …/git/refs`` when that cannot."""
    if not is_fix_branch(branch):
        return False
    if lock is not None and lock.delete(branch):
        return True
    try:
        gh.delete_branch(branch)
    except GitHubError:
        return False
    return True


def close_superseded(
    gh: GitHub, numbers: Sequence[int], *, keep: int, by: PullRequest, lock: BranchLock | None = None
) -> tuple[int, ...]:
    """Close the still-open fix PRs among ``numbers`` with a note naming the one that replaces them, and
    delete their branches (and those of earlier fix PRs that were merged or closed)."""
    owner = fix_branch_target(by.head_ref)
    return retire_fix_pulls(
        gh,
        [n for n in numbers if n != keep],
        owner=-1 if owner is None else owner,
        why=f"Superseded by #{by.number}, a newer attempt on a newer commit.",
        lock=lock,
    )


def retire_fix_pulls(
    gh: GitHub,
    numbers: Iterable[int],
    *,
    owner: int,
    why: str,
    known: Mapping[int, PullRequest] | None = None,
    lock: BranchLock | None = None,
) -> tuple[int, ...]:
    """A fix PR never outlives its reason: close the open ones among ``numbers`` with ``why`` (one sentence)
    first in the body (a CI line still waiting for a verdict goes: :func:`healer.text.proof.closed_body`), and
    delete the ``ci-healer/<owner>-…`` branch of every one, merged ones included.

    Only fix PRs of pull request ``owner`` (head ``ci-healer/<owner>-…`` in this repository) are touched;
    branches go by ``lock`` when given (:func:`delete_fix_branch`). Returns the numbers closed. Never
    raises: tidying up must not fail what already happened.
    """
    closed: list[int] = []
    for number in dict.fromkeys(numbers):
        try:
            fix = (known or {}).get(number) or gh.get_pull(number)
            if fix.is_fork or fix_branch_target(fix.head_ref) != owner:
                continue  # not one of this pull request's fix PRs
            if fix.state == "open":
                # one request, no notification: the note goes at the top of the body as the PR is closed
                body = under_head(fix.body, lambda text: closed_body(why, text))  # its records stay first
                gh.update_pull(number, state="closed", body=body[:60_000])
                closed.append(number)
        except GitHubError:
            continue
        # GitHub retargets PRs based on a deleted branch, never a fix PR based on this one: it has no PRs
        delete_fix_branch(gh, fix.head_ref, lock)
    return tuple(closed)


def deliver_push(
    checkout: Checkout,
    *,
    pr: PullRequest,
    head_sha: str,
    checks: Sequence[str],
    attempt: int,
    max_attempts: int,
    identity: Identity,
    token: str,
    server_url: str,
) -> Delivery:
    """Commit onto the PR branch itself (same-repository PRs only; never forced: a moved branch fails)."""
    if pr.is_fork:
        raise DeliveryError(
            "`delivery: push` cannot push to a fork's branch; use `pull-request` or `comment`"
        )
    if pr.default_branch and pr.head_ref == pr.default_branch:
        # A release PR's head is the default branch: a commit there would skip every review.
        raise DeliveryError(
            f"`delivery: push` never pushes to the default branch (`{pr.default_branch}`); "
            "use `pull-request` or `comment`"
        )
    commit = checkout.commit(commit_message(pr, head_sha, checks, attempt, max_attempts), identity)
    checkout.push(pr.head_ref, token=token, server_url=server_url, force=False)
    return Delivery("push", pr.head_ref, commit)


def deliver_comment(diff: str) -> Delivery:
    """The patch itself, for the run's comment (nothing is pushed)."""
    return Delivery("comment", patch=diff)
