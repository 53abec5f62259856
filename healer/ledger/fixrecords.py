"""The ledger's second source: the records at the top of the healer's own fix pull requests' bodies.

A heal claims its commit quietly (:mod:`healer.change.claim`) and a fix that waits for its CI asks nothing
of anyone yet, so such a run creates no comment on the pull request: its markers (the attempt, the commit
it pushed, the account for the next attempt's memory) go at the top of the fix pull request's body, which
is created anyway. The ledger reads them with the comments, as *fix records*: a :class:`Comment` whose id
is the fix pull request's number negated (never an id of a comment, so never edited as one), whose author is
the fix pull request's and whose time is its creation.

Trust is the comments': only a fix pull request the bot login opened, from a branch of this repository named
``ci-healer/<pr>-<sha7>`` for this pull request, into its head branch, and only its marker block (signed
with ``ledger-key`` for this pull request where one is set). A person with write access may edit that body
as they may edit the bot's comments; a signed ledger does not trust what they add.

Order: the ledger reads records in the order they were written; comments by id, and fix records among them
by creation time (``ledger_order``), so that a reset recorded after a fix opened ends that fix's attempt.
"""

from __future__ import annotations

from collections.abc import Sequence

from healer.model import Comment, PullRequest, fix_branch_target


def fix_records(pulls: Sequence[PullRequest], pr: PullRequest, bot_login: str) -> list[Comment]:
    """The healer's fix pull requests of ``pr`` among ``pulls`` (any state), as records the ledger reads."""
    login = bot_login.strip().casefold()
    found: list[Comment] = []
    for pull in pulls:
        if (
            not login
            or pull.author.casefold() != login
            or fix_branch_target(pull.head_ref) != pr.number
            or pull.is_fork
            or pull.base_ref != pr.head_ref
            or pull.number <= 0
        ):
            continue
        found.append(as_record(pull))
    return found


def as_record(pull: PullRequest, issue: int = 0) -> Comment:
    """A fix pull request the caller trusts as the healer's (see :func:`fix_records`) as a fix record;
    ``issue``: the pull request it fixes (for repository-wide figures), else the fix's own number."""
    return Comment(
        id=-pull.number,
        author=pull.author,
        body=pull.body,
        created_at=pull.created_at,
        updated_at=pull.updated_at,
        html_url=pull.html_url,
        issue=issue or pull.number,
    )


def repository_records(pulls: Sequence[PullRequest], bot_login: str) -> list[Comment]:
    """The fix records among a repository's pull requests (``healer report``), each under the pull request
    it fixes. A fix's base is not checked here (the listing does not say which branch each pull request's
    head is); its author and branch name are."""
    login = bot_login.strip().casefold()
    found = []
    for pull in pulls:
        target = fix_branch_target(pull.head_ref)
        if login and target is not None and pull.author.casefold() == login and not pull.is_fork:
            found.append(as_record(pull, target))
    return found


def is_fix_record(comment: Comment) -> bool:
    """Whether ``comment`` stands for a fix pull request's body (edit it with ``update_pull``)."""
    return comment.id < 0


def fix_number(comment: Comment) -> int:
    """The fix pull request a fix record stands for."""
    return -comment.id


def ledger_order(comments: Sequence[Comment]) -> list[Comment]:
    """``comments`` (fix records included) in the order they were written: by creation time when every one
    says it (GitHub's clock, then id for one second), else by id with fix records last."""
    if comments and all(c.created_at for c in comments):
        return sorted(comments, key=lambda c: (c.created_at, c.id))
    return sorted(comments, key=lambda c: (c.id < 0, c.id))


def read_records(gh: object, pr: PullRequest, bot_login: str) -> list[Comment]:
    """The fix records of ``pr``: one request listing the pull requests into its head branch (none for a
    fork, into whose branch no fix pull request can go)."""
    if pr.is_fork or not pr.head_ref:
        return []
    pulls = gh.list_pulls(base=pr.head_ref, state="all")  # type: ignore[attr-defined]
    return fix_records(pulls, pr, bot_login)
