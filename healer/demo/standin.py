"""A stateful, local stand-in for GitHub's REST API (standard library only).

It serves the operations the healer uses — repositories, contents, pull requests, workflow runs and jobs,
job logs (through a redirect to a signed URL, as GitHub does), re-runs, check runs and annotations, issue
comments, labels, reviews and collaborator permissions — with GitHub's object shapes
(:mod:`healer.demo.shapes`), on ``127.0.0.1`` and a free port. It enforces what bites on the real service: a
token on API paths, 422 for a duplicate pull request, ``head=owner:branch`` filtering, ``commits/{sha}/pulls``
answering ``[]`` for a fork's commit, comment length limits, and short-lived signed log URLs. Faults can be
injected per operation, and every request is recorded (without the token) so that tests can check it
against GitHub's OpenAPI description.

``healer demo`` and the end-to-end tests both run against it.
"""

from __future__ import annotations

import hashlib
import hmac
import itertools
import json
import secrets
import subprocess
import threading
import time
from collections.abc import Iterable
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, urlsplit

from healer.demo.api import Api
from healer.demo.commandops import Reaction
from healer.demo.routes import SIGNED_LOG_PREFIX, Reply
from healer.demo.state import Comment, Fault, Job, Pull, RecordedRequest, Repo, Rerun, Review, Run

_CHUNK = 64 * 1024


class StandInError(Exception):
    """The stand-in was seeded or used wrongly (a missing repository, a duplicate number)."""


class StandIn:
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
        self.repos: dict[str, Repo] = {}
        self.pulls_by_repo: dict[str, dict[int, Pull]] = {}
        self.runs: dict[int, Run] = {}
        self.jobs: dict[int, Job] = {}
        self.comment_store: dict[int, Comment] = {}
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
        handler = _make_handler(self)
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
            self.repos.clear()
            self.pulls_by_repo.clear()
            self.runs.clear()
            self.jobs.clear()
            self.comment_store.clear()
            self.permissions.clear()
            self.files.clear()
            self._faults.clear()
            self.comment_author = self.bot_login
            self.range_support = True
            self.expire_signed_logs = 0
            self.log_url_ttl = self._initial_ttl

    # -- seeding ---------------------------------------------------------------------------------------------
    def _now(self) -> str:
        moment = datetime(2026, 1, 1, tzinfo=timezone.utc) + timedelta(seconds=next(self._clock))
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ")

    def next_id(self) -> int:
        return next(self._ids)

    def add_repository(
        self,
        full_name: str,
        *,
        default_branch: str = "main",
        git_dir: Path | None = None,
        clone_url: str = "",
        fork: bool = False,
        private: bool = False,
        drafts: bool = True,
    ) -> Repo:
        """A repository; ``git_dir`` (a bare repository) backs the contents API and fix-PR head resolution."""
        with self._lock:
            repo = Repo(
                full_name,
                self.next_id(),
                default_branch,
                clone_url or (str(git_dir) if git_dir else ""),
                git_dir,
                fork,
                private,
                drafts,
            )
            self.repos[full_name.lower()] = repo
            self.pulls_by_repo.setdefault(full_name.lower(), {})
            return repo

    def add_pull(
        self,
        repo: str,
        *,
        head_ref: str,
        head_sha: str,
        base_ref: str | None = None,
        base_sha: str = "",
        head_repo: str | None = None,
        number: int | None = None,
        title: str = "Add a feature",
        body: str | None = "",
        author: str = "mona",
        labels: Iterable[str] = (),
        draft: bool = False,
        state: str = "open",
    ) -> Pull:
        """A pull request; ``head_repo`` other than ``repo`` makes it a fork PR ("" for a deleted fork)."""
        with self._lock:
            base = self._repo(repo)
            pulls = self.pulls_by_repo[base.full_name.lower()]
            number = number if number is not None else max(pulls, default=0) + 1
            if number in pulls:
                raise StandInError(f"pull request #{number} already exists in {repo}")
            now = self._now()
            pull = Pull(
                number,
                self.next_id(),
                base.full_name,
                title,
                body,
                author,
                base.full_name if head_repo is None else head_repo,
                head_ref,
                head_sha,
                base_ref or base.default_branch,
                base_sha or (base.resolve(base_ref or base.default_branch) or "0" * 40),
                state,
                draft,
                False,
                list(labels),
                now,
                now,
            )
            pulls[number] = pull
            return pull

    def add_run(
        self,
        repo: str,
        *,
        head_sha: str,
        head_branch: str,
        head_repo: str | None = None,
        pull_requests: Iterable[int] = (),
        conclusion: str | None = "failure",
        event: str = "pull_request",
        name: str = "CI",
        run_id: int | None = None,
        run_attempt: int = 1,
        path: str = ".github/workflows/ci.yml",
        actor: str = "mona",
    ) -> Run:
        """A completed workflow run (add its jobs with :meth:`add_job`)."""
        with self._lock:
            base = self._repo(repo)
            run = Run(
                run_id if run_id is not None else self.next_id() * 1000,
                base.full_name,
                head_sha,
                head_branch,
                base.full_name if head_repo is None else head_repo,
                name,
                path,
                event,
                "completed",
                conclusion,
                run_attempt,
                tuple(pull_requests),
                actor,
            )
            self.runs[run.id] = run
            return run

    def add_job(
        self,
        run: Run,
        name: str,
        *,
        conclusion: str | None = "failure",
        log: str | bytes = b"",
        steps: Iterable[tuple[str, str | None]] = (),
        annotations: Iterable[dict[str, Any]] = (),
        run_attempt: int | None = None,
        job_id: int | None = None,
    ) -> Job:
        """A job of ``run`` (of its current attempt unless given) with its log and check-run annotations.

        Each annotation is ``{"path", "line", "level", "message", "title"}``.
        """
        with self._lock:
            job = Job(
                job_id if job_id is not None else self.next_id() * 10 + 7,
                run.id,
                run_attempt or run.run_attempt,
                name,
                conclusion,
                "completed",
                log.encode() if isinstance(log, str) else log,
                tuple(steps),
                tuple(annotations),
            )
            self.jobs[job.id] = job
            return job

    def time_out(
        self, run: Run, name: str, *, log: str | bytes = b"", minutes: int = 10, step: str = "Run tests"
    ) -> Job:
        """A job stopped by its ``timeout-minutes``, as GitHub ends one: conclusion ``cancelled`` (not
        ``timed_out``), and so is the run's; the runner's line at the end of the log and in the check run's
        annotations, followed by "The operation was canceled." (BEHAVIOUR.md, "Events and runs")."""
        line = (
            f"##[error]The job running on runner GitHub Actions 7 has exceeded the maximum execution time of "
            f"{minutes} minutes."
        )
        text = log.decode() if isinstance(log, bytes) else log
        with self._lock:
            run.conclusion = "cancelled"
        return self.add_job(
            run,
            name,
            conclusion="cancelled",
            log=f"{text.rstrip()}\n{line}\n##[error]The operation was canceled.\n",
            steps=[("Run actions/checkout@v5", "success"), (step, "cancelled")],
            annotations=[
                {"path": ".github", "line": 1, "level": "failure", "message": line.removeprefix("##[error]")},
                {"path": ".github", "line": 1, "level": "failure", "message": "The operation was canceled."},
            ],
        )

    def cancel(self, run: Run, *, group: str = "", started: bool = True) -> None:
        """Cancel ``run`` as a person or a concurrency group does: its unfinished jobs end ``cancelled``;
        their log and annotations say "The operation was canceled." and, for a group, "Canceling since a
        higher priority waiting request for '<group>' exists" (BEHAVIOUR.md). A pending run's jobs never ran
        a step."""
        annotations: list[dict[str, Any]] = []
        if group:
            message = f"Canceling since a higher priority waiting request for '{group}' exists"
            annotations.append({"path": ".github", "line": 1, "level": "failure", "message": message})
        annotations.append(
            {"path": ".github", "line": 1, "level": "failure", "message": "The operation was canceled."}
        )
        with self._lock:
            run.conclusion = "cancelled"
            for job in self.jobs.values():
                if job.run_id != run.id or job.run_attempt != run.run_attempt:
                    continue
                if started and job.conclusion == "success":
                    continue  # a job that had finished keeps its conclusion
                job.conclusion = "cancelled"
                if started:
                    job.log += b"##[error]The operation was canceled.\n"
                    job.steps = tuple((n, "cancelled" if c == "failure" else c) for n, c in job.steps)
                    job.annotations = tuple(annotations)
                else:
                    job.log, job.steps, job.annotations = b"", (), ()

    def merge_pull(self, pull: Pull, *, delete_branch: bool = True) -> None:
        """Merge ``pull`` (its base branch moves to its head) and, as "Automatically delete head branches"
        does, delete its head branch: open PRs based on it are retargeted to ``pull``'s base."""
        repo = self._repo(pull.repo)
        with self._lock:
            pull.state, pull.merged = "closed", True
            pull.updated_at = self._now()
        if repo.git_dir is not None and not pull.is_fork:
            _git_ok(repo.git_dir, "update-ref", f"refs/heads/{pull.base_ref}", pull.head_sha)
            if delete_branch:
                _git_ok(repo.git_dir, "update-ref", "-d", f"refs/heads/{pull.head_ref}")
        if delete_branch and not pull.is_fork:
            self.branch_deleted(repo, pull.head_ref)

    def close_pull(self, pull: Pull) -> None:
        """Close ``pull`` without merging it."""
        with self._lock:
            pull.state = "closed"
            pull.updated_at = self._now()

    def branch_deleted(self, repo: Repo, branch: str) -> None:
        """What GitHub does to open PRs when a branch of ``repo`` is deleted: a PR from it is closed; a PR
        into it is retargeted to the base of the merged PR whose head it was, as GitHub does after a merge
        (BEHAVIOUR.md, "Pull requests, branches and comments"), and closed otherwise."""
        with self._lock:
            pulls = self.pulls_by_repo[repo.full_name.lower()].values()
            merged = next((p for p in pulls if p.merged and p.head_ref == branch and not p.is_fork), None)
            for pull in pulls:
                if pull.state != "open":
                    continue
                if pull.head_ref == branch and pull.head_repo.lower() == repo.full_name.lower():
                    pull.state = "closed"
                elif pull.base_ref == branch:
                    if merged is not None:
                        pull.base_ref = merged.base_ref
                    else:
                        pull.state = "closed"
                else:
                    continue
                pull.updated_at = self._now()

    def add_run_attempt(self, run: Run, *, conclusion: str | None = "failure") -> Run:
        """Start the next attempt of ``run`` (as a re-run does); add its jobs with :meth:`add_job`."""
        with self._lock:
            run.run_attempt += 1
            run.conclusion = conclusion
            run.status = "completed"
            return run

    def add_comment(self, repo: str, number: int, body: str, *, author: str) -> Comment:
        """A comment on issue/PR ``number`` by anyone (e.g. a forged marker by a stranger)."""
        with self._lock:
            base = self._repo(repo)
            now = self._now()
            comment = Comment(self.next_id() * 100 + 3, base.full_name, number, body, author, now, now)
            self.comment_store[comment.id] = comment
            return comment

    def set_file(self, repo: str, path: str, content: str | bytes, *, ref: str | None = None) -> None:
        """Serve ``path`` from the contents API (at ``ref``, or any ref when None), over the git backing."""
        with self._lock:
            data = content.encode() if isinstance(content, str) else content
            self.files[(self._repo(repo).full_name.lower(), ref, path)] = data

    def set_permission(self, repo: str, login: str, level: str) -> None:
        with self._lock:
            self.permissions[(self._repo(repo).full_name.lower(), login.lower())] = level

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

    def api_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.operation != "signed-log"]

    # -- internals -------------------------------------------------------------------------------------------
    def _repo(self, full_name: str) -> Repo:
        try:
            return self.repos[full_name.lower()]
        except KeyError:
            raise StandInError(f"no repository {full_name!r} was added to the stand-in") from None

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


def _git_ok(git_dir: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=git_dir, capture_output=True, check=True)


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


# -- the HTTP side -------------------------------------------------------------------------------------------


def _make_handler(standin: StandIn) -> type[BaseHTTPRequestHandler]:
    api = Api(standin)

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "GitHub.com"
        # headers and body go out in separate writes: without TCP_NODELAY, Nagle's algorithm and delayed ACKs
        # add 40 ms to every keep-alive request
        disable_nagle_algorithm = True

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base class's name
            return

        def do_GET(self) -> None:  # noqa: N802 - the base class's naming
            self._serve()

        def do_POST(self) -> None:  # noqa: N802
            self._serve()

        def do_PATCH(self) -> None:  # noqa: N802
            self._serve()

        def do_PUT(self) -> None:  # noqa: N802
            self._serve()

        def do_DELETE(self) -> None:  # noqa: N802
            self._serve()

        def _serve(self) -> None:
            with standin._lock:
                standin._in_flight += 1
            try:
                self._answer()
            finally:
                with standin._lock:
                    standin._in_flight -= 1

        def _answer(self) -> None:
            split = urlsplit(self.path)
            path, query = split.path, parse_qsl(split.query, keep_blank_values=True)
            length = int(self.headers.get("Content-Length") or 0)
            raw_body = self.rfile.read(length) if length else b""
            body: Any = None
            if raw_body:
                try:
                    body = json.loads(raw_body)
                except ValueError:
                    body = raw_body.decode("utf-8", "replace")
            auth = self.headers.get("Authorization")
            if path.startswith(SIGNED_LOG_PREFIX):
                operation = "signed-log"
                reply = api.signed_log(path[len(SIGNED_LOG_PREFIX) :], dict(query), self.headers.get("Range"))
            else:
                lowered = {k.lower(): v for k, v in self.headers.items()}
                operation, reply = api.dispatch(self.command, path, query, body, auth, lowered)
            payload = reply.payload()
            headers = tuple(
                (k, "<redacted>" if k.lower() == "authorization" else v) for k, v in self.headers.items()
            )
            # recorded before the answer leaves, so a client never sees an answer the record lacks
            record = RecordedRequest(
                self.command,
                path,
                tuple(query),
                headers,
                body,
                reply.status,
                len(payload),
                operation,
                auth is not None,
                standin.server_url + self.path,
                reply.body if reply.raw is None else None,
            )
            index = standin.record(record)
            sent = self._send(reply, payload)
            if sent != len(payload):
                standin.amend(index, replace(record, bytes_sent=sent))

        def _send(self, reply: Reply, payload: bytes) -> int:
            sent = 0
            try:
                self.send_response(reply.status)
                self.send_header("Content-Type", reply.content_type)
                self.send_header("Content-Length", str(len(payload)))
                self.send_header("X-GitHub-Request-Id", secrets.token_hex(8).upper())
                for key, value in reply.headers:
                    self.send_header(key, value)
                self.end_headers()
                for start in range(0, len(payload), _CHUNK):
                    chunk = payload[start : start + _CHUNK]
                    self.wfile.write(chunk)
                    sent += len(chunk)
            except (BrokenPipeError, ConnectionResetError):
                # the client stopped reading (a bounded log download does exactly that)
                self.close_connection = True
            return sent

    return Handler
