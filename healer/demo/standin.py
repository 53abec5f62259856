"""A stateful, local stand-in for GitHub's REST API (standard library only).

It serves the operations the healer uses — repositories, contents, pull requests, workflow runs and jobs,
job logs (through a redirect to a signed URL, as GitHub does), re-runs, check runs and annotations, issue
comments, labels, reviews and collaborator permissions — with GitHub's object shapes
(:mod:`healer.demo.shapes`), on ``127.0.0.1`` and a free port. It enforces what bites on the real service: a
token on API paths, 422 for a duplicate pull request, ``head=owner:branch`` filtering, ``commits/{sha}/pulls``
answering ``[]`` for a fork's commit, comment length limits, review comments only on lines of the PR's diff
(computed with git, a fork's objects included), and short-lived signed log URLs. Faults can be
injected per operation, and every request is recorded (without the token) so that tests can check it
against GitHub's OpenAPI description.

``healer demo`` and the end-to-end tests both run against it. Seeding and what happens on GitHub after it
are in :mod:`healer.demo.seeding`; the HTTP side in :mod:`healer.demo.server`.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import secrets
import threading
import time
from collections.abc import Iterable
from http.server import ThreadingHTTPServer
from typing import Any

from healer.demo.commandops import Reaction
from healer.demo.seeding import Seeding, StandInError
from healer.demo.server import make_handler
from healer.demo.state import Comment, Fault, Issue, Job, Pull, RecordedRequest, Repo, Rerun, Review, Run

__all__ = ["StandIn", "StandInError"]


class StandIn(Seeding):
    """A GitHub stand-in for one test session or one demo.

    Use it as a context manager (or call :meth:`start` and :meth:`stop`). Seed it with
    :meth:`add_repository`, :meth:`add_pull`, :meth:`add_run`, :meth:`add_job`, :meth:`add_comment`; inject
    faults with :meth:`fail`; read back :attr:`requests`, :meth:`comments`, :meth:`pulls`, :attr:`reruns`,
    :attr:`reviews`.
    """

    def __init__(
        self,
        *,
        token: str,
        api_prefix: str = "",
        bot_login: str = "github-actions[bot]",
        log_url_ttl: float = 60.0,
    ) -> None:
        self.token = token
        self.api_prefix = "/" + api_prefix.strip("/") if api_prefix.strip("/") else ""
        self.bot_login = bot_login
        # the login that comments made through the API are attributed to (tests may impersonate someone else)
        self.comment_author = bot_login
        self.log_url_ttl = self._initial_ttl = log_url_ttl
        # GitHub's blob storage (Azure) answers ``bytes=a-`` and ``bytes=a-b`` ranges but not the suffix form;
        # tests turn ranges off entirely (a server that ignores Range) to see the client cope
        self.range_support = True
        # how many coming requests to signed log URLs find them expired (a URL that outlived its minute)
        self.expire_signed_logs = 0
        self.requests: list[RecordedRequest] = []
        self.reruns: list[Rerun] = []
        self.reviews: list[Review] = []
        self.reactions: list[Reaction] = []
        self.dispatched: list[Run] = []  # runs started by `workflow_dispatch`, in order
        self.readied: list[int] = []  # pull requests marked ready for review (GraphQL), in order
        self.repos: dict[str, Repo] = {}
        self.pulls_by_repo: dict[str, dict[int, Pull]] = {}
        self.runs: dict[int, Run] = {}
        self.jobs: dict[int, Job] = {}
        self.comment_store: dict[int, Comment] = {}
        self.issue_store: dict[tuple[str, int], Issue] = {}  # (repository, number), issues only
        self.permissions: dict[tuple[str, str], str] = {}
        self.files: dict[tuple[str, str | None, str], bytes] = {}
        self._faults: dict[str, list[Fault]] = {}
        self._ids = itertools.count(1001)
        self._clock = itertools.count(1)
        self._secret = secrets.token_bytes(16)
        self._lock = threading.RLock()
        self._in_flight = 0
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.port = 0

    # -- lifecycle -------------------------------------------------------------------------------------------
    def start(self) -> StandIn:
        """Listen on 127.0.0.1 (a free port) in a background thread."""
        handler = make_handler(self)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(
            target=self._server.serve_forever,
            kwargs={"poll_interval": 0.05},
            name="github-standin",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()
            self._server = None

    def __enter__(self) -> StandIn:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def server_url(self) -> str:
        """The web address (``GITHUB_SERVER_URL``)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_url(self) -> str:
        """The API base (``GITHUB_API_URL``), with the GHES-style prefix when one was given."""
        return self.server_url + self.api_prefix

    def reset(self) -> None:
        """Forget all state, faults and recorded requests (the server keeps running)."""
        with self._lock:
            self.requests.clear()
            self.reruns.clear()
            self.reviews.clear()
            self.reactions.clear()
            self.dispatched.clear()
            self.readied.clear()
            self.repos.clear()
            self.pulls_by_repo.clear()
            self.runs.clear()
            self.jobs.clear()
            self.comment_store.clear()
            self.issue_store.clear()
            self.permissions.clear()
            self.files.clear()
            self._faults.clear()
            self.comment_author = self.bot_login
            self.range_support = True
            self.expire_signed_logs = 0
            self.log_url_ttl = self._initial_ttl

    # -- faults ----------------------------------------------------------------------------------------------
    def fail(
        self,
        operation: str,
        status: int,
        *,
        times: int = 1,
        message: str | None = None,
        headers: Iterable[tuple[str, str]] = (),
        body: Any = None,
    ) -> None:
        """Answer the next ``times`` calls of ``operation`` (an operation id such as ``"actions/list-jobs-for-
        workflow-run"``, or ``"*"`` for any API call) with ``status`` instead of serving them."""
        fault = Fault(status, message or _DEFAULT_MESSAGES.get(status, "Server Error"), tuple(headers), body)
        with self._lock:
            self._faults.setdefault(operation, []).extend([fault] * times)

    def rate_limit(self, operation: str = "*", *, times: int = 1, retry_after: int = 1) -> None:
        """A secondary rate limit: 403 with ``retry-after``, as GitHub answers content-creation bursts."""
        self.fail(
            operation,
            403,
            times=times,
            headers=[("retry-after", str(retry_after))],
            message=(
                "You have exceeded a secondary rate limit. Please wait a few minutes before you try again."
            ),
        )

    # -- reading back ----------------------------------------------------------------------------------------
    def comments(self, repo: str, number: int) -> list[Comment]:
        """The live comments on ``number``, oldest first."""
        with self._lock:
            name = self._repo(repo).full_name
            return [
                c
                for c in self.comment_store.values()
                if c.repo == name and c.number == number and not c.deleted
            ]

    def issues(self, repo: str) -> list[Issue]:
        """The issues (not pull requests) of ``repo``, by number."""
        with self._lock:
            name = self._repo(repo).full_name
            return sorted((i for i in self.issue_store.values() if i.repo == name), key=lambda i: i.number)

    def pulls(self, repo: str) -> list[Pull]:
        with self._lock:
            return sorted(
                self.pulls_by_repo[self._repo(repo).full_name.lower()].values(), key=lambda p: p.number
            )

    def created_pulls(self, repo: str) -> list[Pull]:
        """Pull requests opened through the API (the fix PRs)."""
        return [p for p in self.pulls(repo) if p.created_via_api]

    def writes(self) -> list[RecordedRequest]:
        """Recorded requests that change state (POST, PATCH, PUT, DELETE)."""
        return [r for r in self.requests if r.is_write]

    def clear_faults(self) -> None:
        """Serve every call again (faults set with :meth:`fail` and not yet answered are dropped)."""
        with self._lock:
            self._faults.clear()

    def api_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.operation != "signed-log"]

    # -- internals -------------------------------------------------------------------------------------------
    def _take_fault(self, operation: str) -> Fault | None:
        with self._lock:
            for key in (operation, "*"):
                queue = self._faults.get(key)
                if queue:
                    return queue.pop(0)
        return None

    def sign(self, job_id: int, expires: int) -> str:
        return hmac.new(self._secret, f"{job_id}:{expires}".encode(), hashlib.sha256).hexdigest()

    def record(self, request: RecordedRequest) -> int:
        with self._lock:
            self.requests.append(request)
            return len(self.requests) - 1

    def amend(self, index: int, request: RecordedRequest) -> None:
        with self._lock:
            if index < len(self.requests):
                self.requests[index] = request

    def idle(self, timeout: float = 5.0) -> bool:
        """Wait until no request is being answered (a cut-off download amends its record); False: timeout."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self._lock:
                if self._in_flight == 0:
                    return True
            time.sleep(0.01)
        return False


_DEFAULT_MESSAGES = {
    401: "Bad credentials",
    403: "Resource not accessible by integration",
    404: "Not Found",
    409: "Conflict",
    422: "Validation Failed",
    500: "Server Error",
    502: "Server Error",
    503: "Service Unavailable",
}
