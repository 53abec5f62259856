"""The only client of GitHub's REST API.

Every call goes through PyGithub's requester (authentication, the base URL of GitHub Enterprise Server, JSON,
error classes) to one REST operation of the subset the healer is allowed to use; this module adds what a
run needs on top: pagination with ``per_page=100`` and a page bound, bounded retries of 5xx answers and rate
limits (honouring ``retry-after`` and ``x-ratelimit-reset``), error messages that name the missing
permission, a request counter, and the log download, which PyGithub cannot do safely (see
:meth:`GitHub.download_log_tail`).

The token lives only inside PyGithub's ``Auth.Token`` and the log session's header; no message, ``repr`` or
exception of this module contains it.
"""

from __future__ import annotations

import base64
import ipaddress
import re
import time
from collections.abc import Callable, Collection, Iterator, Mapping, Sequence
from typing import Any
from urllib.parse import quote, urljoin, urlsplit

import requests
from github import Auth, Github, GithubException

from healer.logs import TailBuffer, decode_log
from healer.model import (
    Annotation,
    Comment,
    Job,
    LogTail,
    PullRequest,
    Repository,
    RunEvent,
    Step,
)

PER_PAGE = 100
MAX_RETRIES = 3  # a request is tried at most 1 + MAX_RETRIES times (backoff 1, 2, 4 s)
MAX_WAIT_SECONDS = 60.0  # total sleep across the retries of one request
LOG_READ_LIMIT = 32 * 1024 * 1024  # at most this many log bytes are read from the network
LOG_KEEP_LIMIT = 256 * 1024  # and at most this many kept, whatever keep_bytes asks
COMMENT_LIMIT = 65536  # GitHub refuses longer comment and PR bodies
LOG_CUT_PREFIX = "[ci-healer] log cut:"
USER_AGENT = "ci-healer"  # GitHub refuses requests without a User-Agent

_RETRIABLE_STATUS = frozenset({500, 502, 503, 504})


class GitHubError(Exception):
    """A GitHub API call failed; the message says what is missing and what to do. Never holds the token."""

    def __init__(self, message: str, *, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


def is_stale(pr: PullRequest, event: RunEvent) -> bool:
    """Whether the PR has moved on since the run: its head is no longer the commit the run tested."""
    return pr.head_sha != event.head_sha


def is_loopback_http(url: str) -> bool:
    """Whether ``url`` is plain http on a loopback address (a local stand-in for GitHub)."""
    parts = urlsplit(url)
    if parts.scheme != "http" or not parts.hostname:
        return False
    if parts.hostname == "localhost":
        return True
    try:
        return ipaddress.ip_address(parts.hostname).is_loopback
    except ValueError:
        return False


class GitHub:
    """Speaks to one repository (``owner/name``) through the REST operations in rest-subset.openapi.json.

    ``sleep`` and ``clock`` are injectable so that tests of the retry policy do not wait.
    """

    def __init__(
        self,
        token: str,
        repository: str,
        *,
        api_url: str = "https://api.github.com",
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        max_retries: int = MAX_RETRIES,
        max_wait: float = MAX_WAIT_SECONDS,
        timeout: int = 30,
    ) -> None:
        owner, _, name = repository.partition("/")
        if not owner or not name or "/" in name:
            raise GitHubError(f"the repository must be given as owner/name, not {repository!r}")
        api_url = api_url.rstrip("/")
        if urlsplit(api_url).scheme != "https" and not is_loopback_http(api_url):
            raise GitHubError(
                f"the API URL {api_url!r} must use https (plain http is accepted only on a loopback address)"
            )
        self.repository = repository
        self.api_url = api_url
        self._secret = token
        self._sleep = sleep
        self._clock = clock
        self._max_retries = max_retries
        self._max_wait = max_wait
        self._timeout = timeout
        self._count = 0
        self._repo_path = f"/repos/{quote(owner, safe='')}/{quote(name, safe='')}"
        # PyGithub's own retries and request spacing are off: they sleep with time.sleep and their requests
        # would not be counted; this class retries (bounded, honouring GitHub's headers) instead.
        self._github = Github(
            auth=Auth.Token(token),
            base_url=api_url,
            per_page=PER_PAGE,
            retry=None,
            timeout=timeout,
            seconds_between_requests=None,
            seconds_between_writes=None,
            user_agent=USER_AGENT,
        )
        self._requester = self._github.requester
        # The log download speaks HTTP itself (see download_log_tail); the API hop carries the token, the
        # signed URL gets a session that never does.
        self._api_session = requests.Session()
        self._api_session.headers.update(
            {
                "Authorization": f"token {token}",
                "Accept": "application/vnd.github+json",
                "User-Agent": USER_AGENT,
            }
        )
        self._api_session.auth = _no_auth  # no fallback to ~/.netrc credentials
        self._log_session = requests.Session()
        self._log_session.auth = _no_auth
        self._log_session.headers["User-Agent"] = USER_AGENT

    @classmethod
    def from_env(cls, token: str, repository: str, env: Mapping[str, str], **kwargs: Any) -> GitHub:
        """A client for the API in ``GITHUB_API_URL`` (GitHub Enterprise Server), else api.github.com."""
        api_url = env.get("GITHUB_API_URL", "").strip() or "https://api.github.com"
        return cls(token, repository, api_url=api_url, **kwargs)

    def __repr__(self) -> str:
        return f"GitHub(repository={self.repository!r}, api_url={self.api_url!r})"

    def close(self) -> None:
        """Release the HTTP connections."""
        self._github.close()
        self._api_session.close()
        self._log_session.close()

    @property
    def request_count(self) -> int:
        """How many HTTP requests this client has made (for the job summary and the benchmarks).

        Every attempt counts, retries included, and both hops of a log download.
        """
        return self._count

    # -- reads ---------------------------------------------------------------------------------------------
    def get_repository(self) -> Repository:
        """The repository's name, default branch and visibility."""
        data = self._call("GET", "", what="read the repository", need="metadata: read")
        return Repository(data["full_name"], data["default_branch"], bool(data.get("private", False)))

    def get_pull(self, number: int) -> PullRequest:
        data = self._call("GET", f"/pulls/{number}", what=f"read pull request #{number}", need=_PR_READ)
        return _pull(data)

    def find_pull_request(self, event: RunEvent) -> PullRequest | None:
        """The PR the run belongs to: payload PRs, then commits/{sha}/pulls, then open PRs by head (forks).

        The PR is returned even when its head has moved past the run's commit; check :func:`is_stale`.
        """
        if event.pull_requests:
            listed = []
            for number in event.pull_requests:
                pr = self.get_pull(number)
                if pr.state == "open":
                    if not is_stale(pr, event):
                        return pr
                    listed.append(pr)
            # every listed PR moved on (or closed): the first open one lets the caller say why it skips
            return listed[0] if listed else None
        if not event.is_fork:
            # GitHub answers [] here for a fork's head commit (it lives in the fork), so forks skip this read
            found = self._paginate(
                "GET",
                f"/commits/{event.head_sha}/pulls",
                what=f"list the pull requests of commit {event.head_sha[:12]}",
                need=_PR_READ,
                max_pages=1,
            )
            mine = [
                _pull(item)
                for item in found
                if item.get("state") == "open"
                and str(item.get("base", {}).get("repo", {}).get("full_name", "")).lower()
                == self.repository.lower()
            ]
            if mine:
                return _prefer_head(mine, event)
        owner = event.head_owner or event.head_repository.partition("/")[0]
        if not owner or not event.head_branch:
            return None
        candidates = [
            pr
            for pr in self.list_pulls(head=f"{owner}:{event.head_branch}", state="open")
            if pr.head_repository.lower() == event.head_repository.lower() or not event.head_repository
        ]
        return _prefer_head(candidates, event) if candidates else None

    def list_pulls(
        self, *, head: str | None = None, base: str | None = None, state: str = "open"
    ) -> list[PullRequest]:
        """Pull requests of the repository; ``head`` is ``owner:branch``."""
        params: dict[str, Any] = {"state": state}
        if head is not None:
            params["head"] = head
        if base is not None:
            params["base"] = base
        found = self._paginate("GET", "/pulls", params, what="list pull requests", need=_PR_READ, max_pages=5)
        return [_pull(item) for item in found]

    def list_jobs(self, run_id: int, attempt: int) -> list[Job]:
        """The jobs of one attempt of a workflow run."""
        found = self._paginate(
            "GET",
            f"/actions/runs/{run_id}/attempts/{attempt}/jobs",
            what=f"list the jobs of run {run_id} (attempt {attempt})",
            need="actions: read",
            key="jobs",
            max_pages=10,
        )
        return [_job(item) for item in found]

    def list_annotations(self, job_id: int) -> list[Annotation]:
        """The check annotations of a job (a job's id is its check-run id)."""
        found = self._paginate(
            "GET",
            f"/check-runs/{job_id}/annotations",
            what=f"list the annotations of job {job_id}",
            need="checks: read",
            max_pages=3,
        )
        return [_annotation(item) for item in found]

    def list_comments(self, number: int, *, authors: Collection[str] | None = None) -> list[Comment]:
        """The conversation comments of a PR, oldest first.

        With ``authors``, only comments by those logins are kept while the pages stream in, so that a PR with
        thousands of comments costs the memory of the healer's own comments only.
        """
        return list(self.iter_comments(number, authors=authors))

    def iter_comments(self, number: int, *, authors: Collection[str] | None = None) -> Iterator[Comment]:
        """Like :meth:`list_comments`, one page in memory at a time."""
        wanted = None if authors is None else {login.lower() for login in authors}
        for item in self._paginate(
            "GET",
            f"/issues/{number}/comments",
            what=f"list the comments of pull request #{number}",
            need=_PR_READ,
            max_pages=50,
        ):
            comment = _comment(item)
            if wanted is None or comment.author.lower() in wanted:
                yield comment

    def get_file(self, path: str, ref: str) -> str | None:
        """A text file's content at ``ref``; None when it does not exist."""
        try:
            data = self._call(
                "GET",
                f"/contents/{quote(path.lstrip('/'), safe='/')}",
                {"ref": ref},
                what=f"read {path} at {ref}",
                need="contents: read",
            )
        except GitHubError as exc:
            if exc.status == 404:
                return None
            raise
        if not isinstance(data, Mapping) or data.get("type") != "file":
            kind = "a directory" if isinstance(data, list) else f"a {data.get('type', 'non-file')}"
            raise GitHubError(f"{path} at {ref} is {kind}, not a file")
        if data.get("encoding") != "base64":
            raise GitHubError(f"{path} at {ref} is too large to read through the contents API (over 1 MB)")
        raw = base64.b64decode(data.get("content", ""))
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise GitHubError(f"{path} at {ref} is not UTF-8 text") from None

    def download_log_tail(self, job_id: int, *, keep_bytes: int = LOG_KEEP_LIMIT) -> LogTail:
        """The tail of a job's log, at most ``keep_bytes`` (capped at 256 KiB) of it.

        ``GET /actions/jobs/{id}/logs`` answers with a redirect to a short-lived signed URL. PyGithub would
        follow it with its own rules, so both hops are made here: the redirect is not followed
        automatically; its target must be https (plain http only when the API itself is plain http on a
        loopback address) and is fetched *without* the Authorization header, asking only for the tail
        (``Range: bytes=-N``). When the server sends the whole log anyway it is streamed: at most 32 MiB are
        read and the last ``keep_bytes`` kept. A cut is said in the first line of the text.
        """
        keep = max(1, min(keep_bytes, LOG_KEEP_LIMIT))
        what = f"download the log of job {job_id}"
        url = f"{self.api_url}{self._repo_path}/actions/jobs/{job_id}/logs"
        response = self._send_raw(self._api_session, url, {}, what=what, need="actions: read")
        with response:
            if response.status_code == 200:
                # Some servers (proxies in front of GitHub Enterprise Server, stand-ins) send the log itself
                # instead of a redirect: it comes from the API host, so it is read like a whole-body answer.
                return _read_tail(response, keep)
            if response.status_code not in (301, 302, 303, 307, 308):
                raise GitHubError(
                    f"GitHub answered {response.status_code} instead of a redirect to the log of job {job_id}"
                )
            location = response.headers.get("Location", "")
        target = urljoin(url, location)
        self._check_log_url(target, job_id)
        # The signed URL is a short-lived credential of its own: it is fetched once and never shown.
        response = self._send_raw(
            self._log_session,
            target,
            {"Range": f"bytes=-{keep}", "Accept-Encoding": "identity"},
            what=what,
            need="actions: read",
            signed=True,
        )
        with response:
            if response.status_code == 416:  # an empty log has no suffix to give
                return LogTail(text="", bytes_read=0, truncated=False)
            if response.status_code not in (200, 206):
                raise GitHubError(
                    f"the signed URL of job {job_id}'s log answered {response.status_code}; the download "
                    "failed, try re-running the healer",
                    status=response.status_code,
                )
            return _read_tail(response, keep)

    # -- writes --------------------------------------------------------------------------------------------
    def create_comment(self, number: int, body: str) -> Comment:
        _check_body_length(body, "comment")
        data = self._call(
            "POST",
            f"/issues/{number}/comments",
            body={"body": body},
            what=f"comment on pull request #{number}",
            need=_PR_WRITE,
            # a 5xx after POST may still have created the comment: retrying could post it twice
            idempotent=False,
        )
        return _comment(data)

    def update_comment(self, comment_id: int, body: str) -> Comment:
        _check_body_length(body, "comment")
        data = self._call(
            "PATCH",
            f"/issues/comments/{comment_id}",
            body={"body": body},
            what=f"edit comment {comment_id}",
            need=_PR_WRITE,
        )
        return _comment(data)

    def delete_comment(self, comment_id: int) -> None:
        self._call(
            "DELETE", f"/issues/comments/{comment_id}", what=f"delete comment {comment_id}", need=_PR_WRITE
        )

    def add_labels(self, number: int, labels: Sequence[str]) -> None:
        if not labels:
            return
        self._call(
            "POST",
            f"/issues/{number}/labels",
            body={"labels": list(labels)},
            what=f"label pull request #{number}",
            need="issues: write",
        )

    def rerun_failed_jobs(self, run_id: int) -> None:
        self._call(
            "POST",
            f"/actions/runs/{run_id}/rerun-failed-jobs",
            what=f"re-run the failed jobs of run {run_id}",
            need="actions: write",
        )

    def create_pull(self, *, head: str, base: str, title: str, body: str, draft: bool = False) -> PullRequest:
        """Open a PR; when one from ``head`` into ``base`` already exists, update and return it."""
        _check_body_length(body, "pull request body")
        try:
            data = self._call(
                "POST",
                "/pulls",
                body={"title": title, "head": head, "base": base, "body": body, "draft": draft},
                what=f"open a pull request from {head} into {base}",
                need=_PR_WRITE,
            )
        except GitHubError as exc:
            if exc.status != 422 or "already exists" not in str(exc):
                raise
            # idempotent delivery: a previous run (or a retried request) already opened it
            owner = self.repository.partition("/")[0]
            qualified = head if ":" in head else f"{owner}:{head}"
            existing = self.list_pulls(head=qualified, base=base, state="open")
            if not existing:
                raise
            return self.update_pull(existing[0].number, title=title, body=body)
        return _pull(data)

    def update_pull(
        self, number: int, *, title: str | None = None, body: str | None = None, state: str | None = None
    ) -> PullRequest:
        changes = {k: v for k, v in (("title", title), ("body", body), ("state", state)) if v is not None}
        if body is not None:
            _check_body_length(body, "pull request body")
        data = self._call(
            "PATCH", f"/pulls/{number}", body=changes, what=f"update pull request #{number}", need=_PR_WRITE
        )
        return _pull(data)

    # -- plumbing ------------------------------------------------------------------------------------------
    def _call(
        self,
        verb: str,
        path: str,
        params: Mapping[str, Any] | None = None,
        *,
        body: Mapping[str, Any] | None = None,
        what: str,
        need: str,
        idempotent: bool = True,
    ) -> Any:
        """One REST call through PyGithub's requester, retried; returns the decoded JSON."""
        return self._call_with_headers(
            verb, path, params, body=body, what=what, need=need, idempotent=idempotent
        )[1]

    def _call_with_headers(
        self,
        verb: str,
        path: str,
        params: Mapping[str, Any] | None = None,
        *,
        body: Mapping[str, Any] | None = None,
        what: str,
        need: str,
        idempotent: bool = True,
    ) -> tuple[Mapping[str, Any], Any]:
        waited = 0.0
        for attempt in range(self._max_retries + 1):
            self._count += 1
            try:
                headers, data = self._requester.requestJsonAndCheck(
                    verb, self._repo_path + path, parameters=dict(params or {}), input=body
                )
                return headers, data
            except GithubException as exc:
                status, headers, message = exc.status, exc.headers or {}, _message(exc.data)
            except requests.RequestException as exc:
                status, headers, message = None, {}, type(exc).__name__
            except ValueError:
                raise GitHubError(f"GitHub sent a malformed answer when asked to {what}") from None
            delay = self._retry_delay(status, headers, message, idempotent, attempt)
            last = attempt == self._max_retries
            if delay is None or last or waited + delay > self._max_wait:
                raise self._error(status, headers, message, what=what, need=need, gave_up=delay is not None)
            self._sleep(delay)
            waited += delay
        raise AssertionError("unreachable")  # pragma: no cover

    def _paginate(
        self,
        verb: str,
        path: str,
        params: Mapping[str, Any] | None = None,
        *,
        what: str,
        need: str,
        key: str | None = None,
        max_pages: int,
    ) -> Iterator[Mapping[str, Any]]:
        """Items of a listing, page by page (``per_page=100``), at most ``max_pages`` pages.

        The next page is asked for by number, not by the ``Link`` header's URL: GitHub's links may use
        ``/repositories/{id}/…`` paths, which are outside the operations the healer uses.
        """
        seen = 0
        for page in range(1, max_pages + 1):
            query = {**(params or {}), "per_page": PER_PAGE, "page": page}
            headers, data = self._call_with_headers(verb, path, query, what=what, need=need)
            items = data.get(key, []) if key is not None and isinstance(data, Mapping) else data
            if not isinstance(items, list):
                raise GitHubError(f"GitHub sent a malformed listing when asked to {what}")
            yield from items
            seen += len(items)
            link = str(headers.get("link", ""))
            total = data.get("total_count") if isinstance(data, Mapping) else None
            if isinstance(total, int) and seen >= total:
                return
            if link:
                if 'rel="next"' not in link:
                    return
            elif len(items) < PER_PAGE:
                return

    def _send_raw(
        self,
        session: requests.Session,
        url: str,
        headers: Mapping[str, str],
        *,
        what: str,
        need: str,
        signed: bool = False,
    ) -> requests.Response:
        """A streamed GET for the log download, retried like API calls; redirects are not followed."""
        waited = 0.0
        for attempt in range(self._max_retries + 1):
            self._count += 1
            try:
                response = session.get(
                    url,
                    headers=dict(headers),
                    stream=True,
                    allow_redirects=False,
                    timeout=(10, self._timeout),
                )
            except requests.RequestException as exc:
                status, response_headers, message = None, {}, type(exc).__name__
            else:
                if signed and response.status_code in (403, 404, 410):
                    response.close()
                    raise GitHubError(
                        f"the signed URL of the log answered {response.status_code}: it expired (they live "
                        f"about a minute) or was refused; {what} again by re-running the healer",
                        status=response.status_code,
                    )
                if response.status_code < 400 or response.status_code == 416:
                    return response
                status = response.status_code
                response_headers = {k.lower(): v for k, v in response.headers.items()}
                message = ""
                if not signed:
                    try:
                        message = _message(response.json())
                    except ValueError:
                        message = ""
                response.close()
            delay = self._retry_delay(status, response_headers, message, True, attempt)
            if delay is None or attempt == self._max_retries or waited + delay > self._max_wait:
                raise self._error(
                    status, response_headers, message, what=what, need=need, gave_up=delay is not None
                )
            self._sleep(delay)
            waited += delay
        raise AssertionError("unreachable")  # pragma: no cover

    def _retry_delay(
        self, status: int | None, headers: Mapping[str, Any], message: str, idempotent: bool, attempt: int
    ) -> float | None:
        """Seconds to wait before trying again, or None when the failure is final."""
        if status in (403, 429):
            retry_after = _number(headers.get("retry-after"))
            if retry_after is not None:
                return max(retry_after, 0.0)
            if str(headers.get("x-ratelimit-remaining", "")) == "0":
                reset = _number(headers.get("x-ratelimit-reset"))
                if reset is not None:
                    return max(reset - self._clock(), 0.0) + 1.0
            if status == 429 or "secondary rate limit" in message.lower():
                # GitHub's guidance without headers: wait at least a minute
                return 60.0
            return None
        if (status is None or status in _RETRIABLE_STATUS) and idempotent:
            return 2.0 ** min(attempt, 3)  # 1, 2, 4 s (MAX_RETRIES bounds it)
        return None

    def _error(
        self,
        status: int | None,
        headers: Mapping[str, Any],
        message: str,
        *,
        what: str,
        need: str,
        gave_up: bool,
    ) -> GitHubError:
        detail = f" ({message})" if message else ""
        code = f"{status}: {message}" if message else f"{status}"
        if status is None:
            text = f"could not reach GitHub at {self.api_url} to {what}{detail}"
            if gave_up:
                text += f" after {self._max_retries + 1} tries"
        elif status == 401:
            text = (
                f"GitHub rejected the token ({code}) when asked to {what}: it is invalid or expired; "
                "pass a valid `github-token`"
            )
        elif status in (403, 429) and gave_up:
            reset = _number(headers.get("x-ratelimit-reset"))
            when = f"; it resets at {time.strftime('%H:%M:%S UTC', time.gmtime(reset))}" if reset else ""
            text = (
                f"GitHub's rate limit stopped the healer when asked to {what}{detail}{when}; waiting longer "
                f"than {self._max_wait:.0f} s is not worth a runner's time, the next run will try again"
            )
        elif status == 403 and "not permitted to create or approve pull requests" in message.lower():
            # A repository (or organization) setting, off by default since 2022, that no `permissions:`
            # entry overrides for the workflow's GITHUB_TOKEN.
            text = (
                f"GitHub refused to {what} ({code}): turn on 'Allow GitHub Actions to create and approve "
                "pull requests' in the repository's Settings → Actions → General → Workflow permissions "
                "(and the organization's, if it is off there), or pass a GitHub App token as `github-token`"
            )
        elif status == 403:
            text = (
                f"GitHub refused to {what} ({code}): the token lacks the `{need}` permission; grant it "
                "in the workflow's `permissions:` block (or the GitHub App's permissions)"
            )
        elif status == 404:
            text = (
                f"GitHub found nothing when asked to {what} ({code}): it does not exist, or the token "
                f"cannot see it (GitHub answers 404 when the `{need}` permission is missing)"
            )
        elif status == 422:
            text = f"GitHub refused the input when asked to {what} ({code})"
        elif gave_up:
            text = f"GitHub kept failing (HTTP {code}) when asked to {what}; gave up after retrying"
        else:
            text = f"GitHub answered HTTP {code} when asked to {what}"
        return GitHubError(self._scrub(text), status=status)

    def _scrub(self, text: str) -> str:
        return text.replace(self._secret, "***") if self._secret else text

    def _check_log_url(self, target: str, job_id: int) -> None:
        parts = urlsplit(target)
        if parts.scheme == "https" and parts.hostname:
            return
        if parts.scheme == "http" and is_loopback_http(self.api_url) and is_loopback_http(target):
            return
        # the host is named, the signed query string (a credential) is not
        raise GitHubError(
            f"the log of job {job_id} redirects to {parts.scheme or 'a relative'} URL on {parts.hostname!r}, "
            "not https; the healer refuses to fetch logs over an insecure connection"
        )


_PR_READ = "pull-requests: read"
_PR_WRITE = "pull-requests: write"


def _no_auth(request: Any) -> Any:
    """A requests auth hook that adds nothing; setting one stops requests from reading ~/.netrc."""
    return request


def _number(value: Any) -> float | None:
    try:
        return float(value)
    except (TypeError, ValueError):
        return None


def _message(data: Any) -> str:
    if isinstance(data, Mapping):
        message = str(data.get("message", ""))
        errors = data.get("errors")
        if isinstance(errors, list):
            details = [
                str(e.get("message") or e.get("code") or "") if isinstance(e, Mapping) else str(e)
                for e in errors
            ]
            details = [d for d in details if d]
            if details:
                message = f"{message}: {'; '.join(details)}" if message else "; ".join(details)
        return message[:500]
    return ""


def _check_body_length(body: str, kind: str) -> None:
    if len(body) > COMMENT_LIMIT:
        raise GitHubError(f"the {kind} is {len(body):,} characters; GitHub accepts at most {COMMENT_LIMIT:,}")


def _prefer_head(prs: Sequence[PullRequest], event: RunEvent) -> PullRequest:
    """The PR whose head is the run's commit, else the first (the caller then sees it is stale)."""
    return next((pr for pr in prs if not is_stale(pr, event)), prs[0])


def _read_tail(response: requests.Response, keep: int) -> LogTail:
    """Stream a log answer, reading at most LOG_READ_LIMIT bytes and keeping the last ``keep``."""
    total: int | None = None
    start = 0
    if response.status_code == 206:
        # Content-Range: bytes 12345-67890/67891
        found = re.fullmatch(r"bytes (\d+)-(\d+)/(\d+|\*)", response.headers.get("Content-Range", "").strip())
        if found:
            start = int(found.group(1))
            total = int(found.group(3)) if found.group(3) != "*" else None
    else:
        length = _number(response.headers.get("Content-Length"))
        total = int(length) if length is not None else None
    tail = TailBuffer(keep)
    stopped = False
    for chunk in response.iter_content(chunk_size=64 * 1024):
        tail.feed(chunk)
        if tail.total_bytes >= LOG_READ_LIMIT:
            stopped = True
            break
    read = tail.total_bytes
    window = tail.window()
    kept_from = start + read - len(window)
    if total is None and not stopped:
        total = start + read
    truncated = kept_from > 0 or stopped
    # the first kept line is probably partial: decode_log drops it (or keeps the end of a huge one)
    text = decode_log(window, truncated=truncated)
    if not truncated:
        return LogTail(text=text, bytes_read=read, truncated=False)
    kept = len(text.encode("utf-8", errors="replace"))
    of = f"{total:,}" if total is not None else "an unknown number of"
    note = f"{LOG_CUT_PREFIX} kept the last {kept:,} bytes of {of}"
    if stopped:
        note = (
            f"{LOG_CUT_PREFIX} kept {kept:,} bytes ending at byte {start + read:,} of {of}: the server sent "
            f"the whole log and reading stopped at {LOG_READ_LIMIT // 2**20} MiB, so its end is missing"
        )
    return LogTail(text=f"{note}\n{text}", bytes_read=read, truncated=True)


def _pull(data: Mapping[str, Any]) -> PullRequest:
    head, base = data.get("head") or {}, data.get("base") or {}
    head_repo, base_repo = head.get("repo") or {}, base.get("repo") or {}
    return PullRequest(
        number=int(data["number"]),
        state=str(data.get("state", "")),
        title=str(data.get("title") or ""),
        author=str((data.get("user") or {}).get("login", "")),
        head_sha=str(head.get("sha", "")),
        head_ref=str(head.get("ref", "")),
        head_repository=str(head_repo.get("full_name", "")),
        base_ref=str(base.get("ref", "")),
        base_repository=str(base_repo.get("full_name", "")),
        labels=tuple(str(label.get("name", "")) for label in data.get("labels") or ()),
        draft=bool(data.get("draft", False)),
        html_url=str(data.get("html_url") or ""),
        body=str(data.get("body") or ""),
    )


def _job(data: Mapping[str, Any]) -> Job:
    return Job(
        id=int(data["id"]),
        name=str(data.get("name", "")),
        status=str(data.get("status", "")),
        conclusion=data.get("conclusion"),
        run_attempt=int(data.get("run_attempt") or 1),
        steps=tuple(
            Step(
                int(s.get("number", 0)), str(s.get("name", "")), str(s.get("status", "")), s.get("conclusion")
            )
            for s in data.get("steps") or ()
        ),
        html_url=str(data.get("html_url") or ""),
        started_at=str(data.get("started_at") or ""),
        completed_at=str(data.get("completed_at") or ""),
    )


def _annotation(data: Mapping[str, Any]) -> Annotation:
    return Annotation(
        path=str(data.get("path") or ""),
        start_line=int(data.get("start_line") or 0),
        level=str(data.get("annotation_level") or ""),
        message=str(data.get("message") or ""),
        title=str(data.get("title") or ""),
    )


def _comment(data: Mapping[str, Any]) -> Comment:
    return Comment(
        id=int(data["id"]),
        author=str((data.get("user") or {}).get("login", "")),
        body=str(data.get("body") or ""),
        created_at=str(data.get("created_at") or ""),
        updated_at=str(data.get("updated_at") or ""),
        html_url=str(data.get("html_url") or ""),
    )
