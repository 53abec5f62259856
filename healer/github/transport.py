"""How the client speaks HTTP: one REST call, pagination, bounded retries, request counting, raw GETs.

Every REST call goes through PyGithub (authentication, the base URL of GitHub Enterprise Server, JSON, error
classes, typed objects) to one operation of the subset the healer is allowed to use. On top of it this module
adds pagination with ``per_page=100`` and a page bound, bounded retries of 5xx answers and rate limits
(honouring ``retry-after`` and ``x-ratelimit-reset``), error messages that name the missing permission, and
a request counter. The token lives only inside PyGithub's ``Auth.Token`` and the API session's header; no
message, ``repr`` or exception of this module contains it.
"""

from __future__ import annotations

import ipaddress
import re
import time
from collections.abc import Callable, Iterator, Mapping
from typing import Any, TypeVar
from urllib.parse import quote, urlsplit

import requests
from github import Auth, Github, GithubException

from healer.github.errors import GitHubError, describe, message_of, number, refused_rerun

PER_PAGE = 100
MAX_RETRIES = 3  # a request is tried at most 1 + MAX_RETRIES times (backoff 1, 2, 4 s)
MAX_WAIT_SECONDS = 60.0  # total sleep across the retries of one request
USER_AGENT = "ci-healer"  # GitHub refuses requests without a User-Agent

_RETRIABLE_STATUS = frozenset({500, 502, 503, 504})
_T = TypeVar("_T", bound="Transport")
_R = TypeVar("_R")


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


def last_page(link: str) -> int | None:
    """The page number of ``rel="last"`` in a ``Link`` header; None when there is none (a single page, or the
    last page itself, which links only backwards)."""
    for part in link.split(","):
        if 'rel="last"' in part:
            found = re.search(r"[?&]page=(\d+)", part)
            return int(found.group(1)) if found else None
    return None


class Transport:
    """The HTTP side of :class:`healer.github.GitHub` for one repository (``owner/name``).

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
        self.repo_path = f"/repos/{quote(owner, safe='')}/{quote(name, safe='')}"
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
            # objects are made without a request; each method call is then exactly one request
            lazy=True,
        )
        self._requester = self._github.requester
        self._repo = self._github.get_repo(repository)
        # The log download speaks HTTP itself (see download_log_tail); the API hop carries the token, the
        # signed URL gets a session that never does.
        self.api_session = requests.Session()
        self.api_session.headers.update(
            {
                "Authorization": f"token {token}",
                "Accept": "application/vnd.github+json",
                "User-Agent": USER_AGENT,
            }
        )
        self.api_session.auth = _no_auth  # no fallback to ~/.netrc credentials
        self.log_session = requests.Session()
        self.log_session.auth = _no_auth
        self.log_session.headers["User-Agent"] = USER_AGENT

    @classmethod
    def from_env(cls: type[_T], token: str, repository: str, env: Mapping[str, str], **kwargs: Any) -> _T:
        """A client for the API in ``GITHUB_API_URL`` (GitHub Enterprise Server), else api.github.com."""
        api_url = env.get("GITHUB_API_URL", "").strip() or "https://api.github.com"
        return cls(token, repository, api_url=api_url, **kwargs)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(repository={self.repository!r}, api_url={self.api_url!r})"

    def close(self) -> None:
        """Release the HTTP connections."""
        self._github.close()
        self.api_session.close()
        self.log_session.close()

    @property
    def request_count(self) -> int:
        """How many HTTP requests this client has made (for the job summary and the benchmarks).

        Every attempt counts, retries included, and both hops of a log download.
        """
        return self._count

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
        return self._retrying(
            lambda: self._requester.requestJsonAndCheck(
                verb, self.repo_path + path, parameters=dict(params or {}), input=body
            ),
            what=what,
            need=need,
            idempotent=idempotent,
        )

    def _retrying(self, request: Callable[[], _R], *, what: str, need: str, idempotent: bool = True) -> _R:
        """Run ``request`` (one HTTP request through PyGithub), retried under this module's policy.

        ``request`` must make exactly one request (a method of a lazy PyGithub object, or the requester
        itself): each try counts as one. PyGithub's own ``GithubRetry`` is not used: it sleeps inside urllib3
        with ``time.sleep`` (so its waits cannot be bounded per request or injected in tests), waits for a
        primary rate limit's reset however far away it is, and its retries are invisible to the counter.
        """
        waited = 0.0
        for attempt in range(self._max_retries + 1):
            self._count += 1
            try:
                return request()
            except GithubException as exc:
                status, headers, message = exc.status, exc.headers or {}, message_of(exc.data)
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

    def send_raw(
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
                        message = message_of(response.json())
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
            retry_after = number(headers.get("retry-after"))
            if retry_after is not None:
                return max(retry_after, 0.0)
            if str(headers.get("x-ratelimit-remaining", "")) == "0":
                reset = number(headers.get("x-ratelimit-reset"))
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
        text = describe(
            status,
            headers,
            message,
            what=what,
            need=need,
            gave_up=gave_up,
            api_url=self.api_url,
            tries=self._max_retries + 1,
            max_wait=self._max_wait,
        )
        refused = refused_rerun(status, message, what) and not gave_up
        return GitHubError(self._scrub(text), status=status, refused=refused)

    def _scrub(self, text: str) -> str:
        return text.replace(self._secret, "***") if self._secret else text


def _no_auth(request: Any) -> Any:
    """A requests auth hook that adds nothing; setting one stops requests from reading ~/.netrc."""
    return request
