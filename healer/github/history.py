"""The REST operations that look beyond one pull request: the base branch's latest run (broken trunk), and the
repository-wide listings behind ``healer report`` (every issue comment since a date, pull requests, the
dashboard issue)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from healer.github.convert import check_body_length, comment_from, pull_from
from healer.github.errors import GitHubError
from healer.github.transport import Transport
from healer.model import BranchRun, Comment, PullRequest

# A mixin, like healer.github.commands: GitHub brings the transport; the type checker reads it as a Transport.
if TYPE_CHECKING:
    _Calls = Transport
else:
    _Calls = object

REPORT_COMMENT_PAGES = 30  # a report reads at most 3,000 comments (30 requests)
REPORT_PULL_PAGES = 5  # and the 500 most recently updated pull requests
_LABELLED_PAGES = 3  # issues and PRs with the dashboard's label (one page: only the dashboard has it)
# the bot's issues and PRs updated since the dashboard: a bound far beyond a busy year of fix PRs, there so
# that a listing cannot run away; a listing it cuts opens no second dashboard
BOT_ISSUE_PAGES = 100


@dataclass(frozen=True)
class Listing:
    """Items of a bounded listing; ``complete`` is False when the bound stopped it before the end."""

    items: tuple[Any, ...]
    complete: bool = True


@dataclass(frozen=True)
class Issue:
    """An issue (not a pull request) as the dashboard needs it."""

    number: int
    title: str
    body: str
    author: str
    state: str
    html_url: str = ""
    labels: tuple[str, ...] = ()


@dataclass(frozen=True)
class IssueSearch:
    """What :meth:`HistoryCalls.find_issue` found: the issue, or None; ``complete`` is False when a bound
    stopped the listing before its end (then an issue not found may still exist)."""

    issue: Issue | None
    complete: bool = True


def issue_from(data: Mapping[str, Any]) -> Issue:
    return Issue(
        number=int(data["number"]),
        title=str(data.get("title") or ""),
        body=str(data.get("body") or ""),
        author=str((data.get("user") or {}).get("login", "")),
        state=str(data.get("state") or ""),
        html_url=str(data.get("html_url") or ""),
        labels=tuple(
            str(label.get("name", "")) if isinstance(label, Mapping) else str(label)
            for label in data.get("labels") or ()
        ),
    )


def _issue_number(data: Mapping[str, Any]) -> int:
    """The issue or PR number of a repository-wide comment, from its ``issue_url`` (``…/issues/12``)."""
    tail = str(data.get("issue_url") or "").rstrip("/").rpartition("/")[2]
    return int(tail) if tail.isdigit() else 0


class HistoryCalls(_Calls):
    """Mixed into :class:`healer.github.GitHub`."""

    def latest_branch_run(self, workflow: str, branch: str, *, event: str = "push") -> BranchRun | None:
        """The newest completed run of ``workflow`` (its id or file name) for ``event`` on ``branch``.

        One request (``actions/list-workflow-runs`` with ``per_page=1``). ``event=push`` keeps out the
        ``pull_request`` runs of a fork whose head branch has the same name (a fork's ``main``).
        """
        params = {
            "branch": branch,
            "event": event,
            "status": "completed",
            "exclude_pull_requests": "true",
            "per_page": 1,
        }
        data = self._call(
            "GET",
            f"/actions/workflows/{quote(workflow, safe='')}/runs",
            params,
            what=f"list the runs of {workflow} on {branch}",
            need="actions: read",
        )
        runs = data.get("workflow_runs") if isinstance(data, Mapping) else None
        if not isinstance(runs, list):
            raise GitHubError(f"GitHub sent a malformed listing when asked to list the runs of {workflow}")
        if not runs:
            return None
        run = runs[0]
        return BranchRun(
            id=int(run["id"]),
            run_attempt=int(run.get("run_attempt") or 1),
            head_sha=str(run.get("head_sha") or ""),
            head_branch=str(run.get("head_branch") or branch),
            conclusion=run.get("conclusion"),
            html_url=str(run.get("html_url") or ""),
            created_at=str(run.get("created_at") or ""),
        )

    def list_repository_comments(
        self, since: str, *, authors: Sequence[str] = (), max_pages: int = REPORT_COMMENT_PAGES
    ) -> Listing:
        """Every issue and PR comment of the repository updated since ``since`` (ISO 8601), newest first, at
        most ``max_pages`` pages of 100 (a cut listing misses the oldest); with ``authors``, only theirs
        (``Comment.issue`` is the issue or PR number)."""
        wanted = {login.casefold() for login in authors}
        params = {"since": since, "sort": "created", "direction": "desc"}
        found: list[Comment] = []
        seen = 0
        for item in self._paginate(
            "GET",
            "/issues/comments",
            params,
            what="list the repository's comments",
            need="issues: read",
            max_pages=max_pages,
        ):
            seen += 1
            comment = replace(comment_from(item), issue=_issue_number(item))
            if not wanted or comment.author.casefold() in wanted:
                found.append(comment)
        # a listing that filled every page it may read was probably cut by the bound
        return Listing(tuple(found), complete=seen < max_pages * 100)

    def list_recent_pulls(self, since: str, *, max_pages: int = REPORT_PULL_PAGES) -> Listing:
        """Pull requests of every state, most recently updated first, until one older than ``since``."""
        items = self._paginate(
            "GET",
            "/pulls",
            {"state": "all", "sort": "updated", "direction": "desc"},
            what="list pull requests",
            need="pull-requests: read",
            max_pages=max_pages,
        )
        found: list[PullRequest] = []
        for item in items:
            if str(item.get("updated_at") or "") < since:
                return Listing(tuple(found))  # older ones follow: the window is complete
            found.append(pull_from(item))
        return Listing(tuple(found), complete=len(found) < max_pages * 100)

    def find_issue(self, marker: str, *, creator: str, label: str = "") -> IssueSearch:
        """The issue by ``creator`` whose body starts with ``marker``, however many issues and PRs the bot
        has: by ``label`` first (one request while it has the label), then among the creator's issues and
        PRs of every state, most recently updated first, page after page until it is found or the listing
        ends (at most :data:`BOT_ISSUE_PAGES` pages).

        Most recently updated first, not oldest first: each report edits the issue when its figures change,
        and removing its label updates it too, so it comes before the older fix PRs that once hid it past
        the third page. A person's copy of the marker is not the bot's issue (``creator``)."""
        queries: list[tuple[dict[str, Any], int]] = []
        if label:
            queries.append(
                ({"labels": label, "state": "all", "sort": "created", "direction": "asc"}, _LABELLED_PAGES)
            )
        queries.append(
            ({"creator": creator, "state": "all", "sort": "updated", "direction": "desc"}, BOT_ISSUE_PAGES)
        )
        seen = 0
        for query, pages in queries:
            seen = 0
            for item in self._paginate(
                "GET",
                "/issues",
                query,
                what="list the repository's issues",
                need="issues: read",
                max_pages=pages,
            ):
                seen += 1
                if "pull_request" in item:  # the issues listing holds pull requests too
                    continue
                issue = issue_from(item)
                if issue.author.casefold() == creator.casefold() and issue.body.lstrip().startswith(marker):
                    return IssueSearch(issue)
        return IssueSearch(None, complete=seen < BOT_ISSUE_PAGES * 100)

    def create_issue(self, title: str, body: str, labels: Sequence[str] = ()) -> Issue:
        check_body_length(body, "issue body")
        payload: dict[str, Any] = {"title": title, "body": body}
        if labels:
            payload["labels"] = list(labels)
        data = self._call(
            "POST",
            "/issues",
            body=payload,
            what="open the dashboard issue",
            need="issues: write",
            idempotent=False,  # a 5xx after POST may have opened it: a retry could open a second one
        )
        return issue_from(data)

    def get_issue(self, number: int) -> Issue:
        """One issue as it is now (the dashboard's body before the healer unticks a box in it)."""
        data = self._call("GET", f"/issues/{number}", what=f"read issue #{number}", need="issues: read")
        return issue_from(data)

    def update_issue(self, number: int, *, body: str) -> Issue:
        check_body_length(body, "issue body")
        data = self._call(
            "PATCH",
            f"/issues/{number}",
            body={"body": body},
            what=f"edit issue #{number}",
            need="issues: write",
        )
        return issue_from(data)
