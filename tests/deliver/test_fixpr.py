"""Delivery: a fix PR (superseding older ones), a push onto the PR branch, or a patch — against a real origin
and a small fake of the GitHub client."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import pytest
from gitrepos import git, seeded_origin

from healer.change.workspace import Checkout, Repo, identity_for
from healer.deliver.fixpr import (
    DeliveryError,
    ask_review,
    deliver_comment,
    deliver_pull_request,
    deliver_push,
    fix_title,
)
from healer.github import GitHub, GitHubError
from healer.model import Comment, PullRequest, fix_branch, fix_branch_target, is_fix_branch

REPO = "octo/repo"


class FakeGitHub(GitHub):
    """Only what delivery calls."""

    def __init__(self, pulls: Sequence[PullRequest] = (), fail: Sequence[str] = ()) -> None:
        self.pulls = {p.number: p for p in pulls}
        self.comments: list[tuple[int, str]] = []
        self.fail = set(fail)
        self.deleted: list[str] = []
        self.reviewers: list[tuple[int, list[str]]] = []

    def request_reviewers(self, number: int, logins: Sequence[str]) -> None:
        if "collaborators" in self.fail:
            raise GitHubError(
                "GitHub refused the input when asked to request a review of pull request "
                f"#{number} (422: Reviews may only be requested from collaborators.)",
                status=422,
            )
        if "reviewers" in self.fail:
            raise GitHubError("could not request a review (403)", status=403)
        self.reviewers.append((number, list(logins)))

    def delete_branch(self, branch: str) -> bool:
        self.deleted.append(branch)
        return True

    def create_pull(self, *, head: str, base: str, title: str, body: str, draft: bool = False) -> PullRequest:
        if "create_pull" in self.fail:
            raise GitHubError("could not open a pull request (403): grant `pull-requests: write`", status=403)
        if draft and "drafts" in self.fail:
            raise GitHubError(
                "GitHub refused the input when asked to open a pull request (422: Validation Failed: "
                "Draft pull requests are not supported in this repository.)",
                status=422,
            )
        number = max(self.pulls, default=100) + 1
        pr = PullRequest(
            number,
            "open",
            title,
            "bot",
            "",
            head,
            REPO,
            base,
            REPO,
            draft=draft,
            html_url=f"https://github.com/{REPO}/pull/{number}",
            body=body,
        )
        self.pulls[number] = pr
        return pr

    def get_pull(self, number: int) -> PullRequest:
        if "get_pull" in self.fail:
            raise GitHubError("boom", status=500)
        return self.pulls[number]

    def create_comment(self, number: int, body: str) -> Comment:
        self.comments.append((number, body))
        return Comment(len(self.comments), "bot", body)

    def update_pull(
        self, number: int, *, title: str | None = None, body: str | None = None, state: str | None = None
    ) -> PullRequest:
        current = self.pulls[number]
        self.pulls[number] = replace(
            current, state=state or current.state, body=current.body if body is None else body
        )
        return self.pulls[number]


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Checkout, PullRequest]:
    origin, seed = seeded_origin(tmp_path, {"a.py": "import os\n"}, branch="feature", message="pr")
    sha = git(seed, "rev-parse", "HEAD")
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", str(origin), str(work))
    repo = Repo(work)
    repo.fetch_branch("feature", sha)
    checkout = repo.add_worktree(tmp_path / "wt", sha)
    (checkout.path / "a.py").write_text("")
    checkout.stage()
    pr = PullRequest(7, "open", "t", "alice", sha, "feature", REPO, "main", REPO)
    return origin, checkout, pr


def test_fix_branch_and_title() -> None:
    assert fix_branch(7, "abcdef0123") == "ci-healer/7-abcdef0"
    assert is_fix_branch("ci-healer/7-abcdef0") and not is_fix_branch("feature/ci-healer")
    assert fix_branch_target("ci-healer/7-abcdef0") == 7
    # a rule branch, a short sha, a leading zero and a person's branch name no pull request
    for ref in ("ci-healer/rule-abc1234", "ci-healer/7-abc", "ci-healer/07-abcdef0", "feature/7-abcdef0"):
        assert fix_branch_target(ref) is None
    pr = PullRequest(7, "open", "t", "a", "s", "f", REPO, "main", REPO)
    assert fix_title(pr, ["lint\nnext", "test"]) == "ci-healer: fix lint next, test for #7"
    assert fix_title(pr, ["lint\x00next\x1b[31m", "test"]) == "ci-healer: fix lint next [31m, test for #7"
    assert len(fix_title(pr, ["x" * 500])) == 200


def test_fix_pr_into_the_pr_branch_superseding_open_fix_prs(
    setup: tuple[Path, Checkout, PullRequest],
) -> None:
    origin, checkout, pr = setup
    old = [
        PullRequest(50, "open", "old", "bot", "", "ci-healer/7-1111111", REPO, "feature", REPO),
        PullRequest(51, "closed", "merged", "bot", "", "ci-healer/7-2222222", REPO, "feature", REPO),
        PullRequest(52, "open", "a person's PR", "bob", "", "bob/idea", REPO, "feature", REPO),
    ]
    gh = FakeGitHub(old)
    delivery = deliver_pull_request(
        gh,
        checkout,
        pr=pr,
        head_sha=pr.head_sha,
        checks=["lint"],
        attempt=2,
        max_attempts=3,
        body="BODY",
        draft=True,
        identity=identity_for("github-actions[bot]"),
        token="",
        server_url="https://github.com",
        previous_fix_prs=(50, 51, 52),
    )
    assert delivery.pull is not None
    assert (delivery.pull.head_ref, delivery.pull.base_ref) == (fix_branch(7, pr.head_sha), "feature")
    assert delivery.pull.draft and delivery.pull.body == "BODY" and delivery.draft
    assert git(origin, "rev-parse", f"refs/heads/{delivery.branch}") == delivery.commit
    assert "Heal attempt 2 of 3" in git(origin, "log", "-1", "--format=%B", delivery.branch)
    assert delivery.superseded == (50,)
    assert gh.pulls[50].state == "closed" and gh.pulls[52].state == "open"
    closed = (
        f"> :no_entry_sign: **Closed by ci-healer:** Superseded by #{delivery.pull.number}, a newer attempt"
    )
    assert gh.pulls[50].body.startswith(closed)
    assert gh.comments == []  # closing says it in the body: no comment, no notification
    # the news reaches the author as a notification: a review request on the fix pull request
    assert gh.reviewers == [(delivery.pull.number, ["alice"])] and delivery.asked == "review"


def test_tidying_up_never_fails_the_delivery(setup: tuple[Path, Checkout, PullRequest]) -> None:
    _, checkout, pr = setup
    gh = FakeGitHub(
        [PullRequest(50, "open", "old", "bot", "", "ci-healer/7-1", REPO, "feature", REPO)], fail=["get_pull"]
    )
    delivery = deliver_pull_request(
        gh,
        checkout,
        pr=pr,
        head_sha=pr.head_sha,
        checks=["lint"],
        attempt=1,
        max_attempts=3,
        body="b",
        draft=False,
        identity=identity_for("x[bot]"),
        token="",
        server_url="https://github.com",
        previous_fix_prs=(50,),
    )
    assert delivery.superseded == ()


def test_a_refused_pull_request_says_so_and_deletes_the_branch(
    setup: tuple[Path, Checkout, PullRequest],
) -> None:
    origin, checkout, pr = setup
    gh = FakeGitHub(fail=["create_pull"])
    with pytest.raises(
        DeliveryError, match=r"pushed ci-healer/7-\w{7} but could not open.*pull-requests: write.*deleted"
    ):
        deliver_pull_request(
            gh,
            checkout,
            pr=pr,
            head_sha=pr.head_sha,
            checks=["lint"],
            attempt=1,
            max_attempts=3,
            body="b",
            draft=False,
            identity=identity_for("x[bot]"),
            token="",
            server_url="https://github.com",
        )

    # deleted by a git push, as it was pushed: no API request
    assert gh.deleted == []
    assert git(origin, "branch", "--list", "ci-healer/*") == ""


def test_a_refused_draft_is_opened_ready_and_marked_unverified(
    setup: tuple[Path, Checkout, PullRequest],
) -> None:
    _, checkout, pr = setup
    gh = FakeGitHub(fail=["drafts"])
    delivery = deliver_pull_request(
        gh,
        checkout,
        pr=pr,
        head_sha=pr.head_sha,
        checks=["lint"],
        attempt=1,
        max_attempts=3,
        body="the body",
        draft=True,
        identity=identity_for("x[bot]"),
        token="",
        server_url="https://github.com",
    )
    assert delivery.pull is not None and not delivery.pull.draft and not delivery.draft
    assert delivery.pull.title == "ci-healer (unverified): fix lint for #7 (attempt 1/3)"
    assert "**Opened unverified.**" in delivery.pull.body and delivery.pull.body.endswith("the body")
    assert gh.deleted == []


def test_push_commits_onto_the_pr_branch(setup: tuple[Path, Checkout, PullRequest]) -> None:
    origin, checkout, pr = setup
    delivery = deliver_push(
        checkout,
        pr=pr,
        head_sha=pr.head_sha,
        checks=["lint"],
        attempt=1,
        max_attempts=3,
        identity=identity_for("x[bot]"),
        token="",
        server_url="https://github.com",
    )
    assert git(origin, "rev-parse", "refs/heads/feature") == delivery.commit
    assert git(origin, "rev-parse", f"{delivery.commit}^") == pr.head_sha


def test_push_never_pushes_to_the_default_branch(setup: tuple[Path, Checkout, PullRequest]) -> None:
    # A release PR (head `main`) gets the default branch's failures attached; a push would land there.
    origin, checkout, pr = setup
    before = git(origin, "for-each-ref")
    with pytest.raises(DeliveryError, match="never pushes to the default branch"):
        deliver_push(
            checkout,
            pr=replace(pr, head_ref="main", default_branch="main"),
            head_sha=pr.head_sha,
            checks=["lint"],
            attempt=1,
            max_attempts=3,
            identity=identity_for("x"),
            token="",
            server_url="",
        )
    assert git(origin, "for-each-ref") == before


def test_push_refuses_a_fork(setup: tuple[Path, Checkout, PullRequest]) -> None:
    _, checkout, pr = setup
    with pytest.raises(DeliveryError, match="cannot push to a fork"):
        deliver_push(
            checkout,
            pr=replace(pr, head_repository="alice/repo"),
            head_sha=pr.head_sha,
            checks=[],
            attempt=1,
            max_attempts=3,
            identity=identity_for("x"),
            token="",
            server_url="",
        )


def test_comment_delivery_carries_the_patch() -> None:
    assert deliver_comment("diff --git a/x b/x\n").patch == "diff --git a/x b/x\n"


@pytest.mark.parametrize(
    ("author", "fail", "asked", "reviewers", "comments"),
    [
        pytest.param("alice", (), "review", [(101, ["alice"])], 0, id="a collaborator: a review request"),
        pytest.param("alice", ("collaborators",), "mention", [], 1, id="refused (422): a mention instead"),
        pytest.param("alice", ("reviewers",), "", [], 0, id="another error: the fix PR stands"),
        pytest.param("dependabot[bot]", (), "", [], 0, id="a bot: nobody to ask"),
        pytest.param("@all -->", (), "", [], 0, id="not a login: nobody mentioned"),
    ],
)
def test_the_author_is_asked_to_review_the_fix_pull_request(
    author: str, fail: tuple[str, ...], asked: str, reviewers: list[tuple[int, list[str]]], comments: int
) -> None:
    gh = FakeGitHub(fail=fail)
    fix = PullRequest(101, "open", "fix", "bot", "", "ci-healer/7-abcdef0", REPO, "feature", REPO)
    pr = PullRequest(7, "open", "t", author, "s", "feature", REPO, "main", REPO)
    assert ask_review(gh, fix, pr, ["lint", "te`st\n@x"]) == asked
    assert gh.reviewers == reviewers
    assert len(gh.comments) == comments
    for number, body in gh.comments:
        # on the fix pull request (the PR's own conversation keeps its one comment per run), news first
        assert number == 101
        assert body.startswith("@alice: this pull request fixes `lint`, `te'st @x` of #7 on your branch.")
