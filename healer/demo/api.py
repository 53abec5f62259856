"""The stand-in's REST operations: one method per operation id, state in, :class:`Reply` out.

:class:`Api` checks the token, injects faults, adds rate-limit headers and calls the operation; the operations
live with their resource: :mod:`healer.demo.pullops` (pull requests, branches), :mod:`healer.demo.runops`
(runs, jobs, logs, checks), :mod:`healer.demo.proofops` (dispatching a workflow, GraphQL's ready for
review), :mod:`healer.demo.issueops` (comments, labels), :mod:`healer.demo.commandops` (reactions, removing
a label), and the repository's own below. :mod:`healer.demo.views` gives them GitHub's
shapes of the state.
"""

from __future__ import annotations

import hmac
import time
from collections.abc import Mapping
from typing import Any

from healer.demo import shapes
from healer.demo.commandops import CommandOps
from healer.demo.historyops import HistoryOps
from healer.demo.issueops import MAX_COMMENT, IssueOps
from healer.demo.proofops import ProofOps
from healer.demo.pullops import PullOps
from healer.demo.routes import Reply, error, match_route
from healer.demo.runops import RunOps
from healer.demo.state import Repo

__all__ = ["MAX_COMMENT", "Api"]


class Api(HistoryOps, CommandOps, ProofOps, PullOps, RunOps, IssueOps):
    """Serves one :class:`StandIn`'s state."""

    # -- dispatch --------------------------------------------------------------------------------------------
    def dispatch(
        self,
        method: str,
        path: str,
        query: list[tuple[str, str]],
        body: Any,
        auth: str | None,
        headers: Mapping[str, str],
    ) -> tuple[str, Reply]:
        if method == "POST" and path == self.graphql_path():
            return "graphql", self.graphql(body, auth)
        inner = self.api_path(path)
        found = match_route(method, inner) if inner is not None else None
        if found is None:
            return "unknown", error(404, "Not Found")
        operation, params = found
        reply = self._authorize(auth, method)
        if reply is not None:
            return operation, reply
        fault = self.s._take_fault(operation)
        if fault is not None:
            fault_body = fault.body if fault.body is not None else shapes.error(fault.message, fault.status)
            # a fault's own rate-limit headers stand alone: GitHub never sends one of them twice
            given = {name.lower() for name, _ in fault.headers}
            rate = [h for h in self._rate_headers() if h[0] not in given]
            return operation, Reply(fault.status, fault_body, headers=[*fault.headers, *rate])
        with self.s._lock:
            repo = self.s.repos.get(f"{params['owner']}/{params['repo']}".lower())
            if repo is None:
                return operation, error(404, "Not Found")
            handler = getattr(self, "op_" + operation.replace("/", "_").replace("-", "_"))
            reply = handler(repo, params, dict(query), body, headers)
        reply.headers.extend(self._rate_headers())
        return operation, reply

    def _authorize(self, auth: str | None, method: str = "GET") -> Reply | None:
        if not auth:
            return error(401, "Requires authentication")
        scheme, _, value = auth.partition(" ")
        read_only = self._read_only(auth)
        if scheme.lower() not in ("token", "bearer") or not (
            hmac.compare_digest(value.strip(), self.s.token) or read_only
        ):
            return error(401, "Bad credentials")
        if read_only and method not in ("GET", "HEAD"):
            # a job's GITHUB_TOKEN granted only `read` permissions: GitHub's answer to any write
            return error(403, "Resource not accessible by integration")
        return None

    def _read_only(self, auth: str) -> bool:
        """Whether ``auth`` carries one of the read-only tokens (a job's GITHUB_TOKEN granted only `read`)."""
        given = auth.partition(" ")[2].strip()
        return any(hmac.compare_digest(given, t) for t in getattr(self.s, "read_tokens", ()))

    def _rate_headers(self) -> list[tuple[str, str]]:
        used = len(self.s.requests) + 1
        return [
            ("x-ratelimit-limit", "1000"),
            ("x-ratelimit-remaining", str(max(0, 1000 - used))),
            ("x-ratelimit-used", str(used)),
            ("x-ratelimit-reset", str(int(time.time()) + 3600)),
            ("x-ratelimit-resource", "core"),
        ]

    def graphql_path(self) -> str:
        """Where GraphQL is served: ``/graphql`` beside the REST root (``/api/graphql`` for ``/api/v3``)."""
        return self.s.api_prefix.removesuffix("/v3") + "/graphql"

    def api_path(self, path: str) -> str | None:
        """``path`` without the API prefix, or None when it is outside the API."""
        if self.s.api_prefix:
            if not path.startswith(self.s.api_prefix + "/"):
                return None
            return path[len(self.s.api_prefix) :]
        return path

    # -- repositories ----------------------------------------------------------------------------------------
    def op_repos_get(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        return Reply(200, self.repo_shape(repo))

    def op_repos_get_content(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        path, ref = params["path"], query.get("ref") or repo.default_branch
        data = self.s.files.get(
            (repo.full_name.lower(), ref, path), self.s.files.get((repo.full_name.lower(), None, path))
        )
        sha = ""
        if data is None:
            shown = repo.show(ref, path)
            if shown is None:
                return error(404, "Not Found")
            data, sha = shown
        if "raw" in (headers.get("accept") or ""):  # header names arrive lower-cased
            return Reply(200, raw=data, content_type="application/vnd.github.raw; charset=utf-8")
        sha = sha or shapes.node_id("B", len(data)).lower()
        return Reply(
            200,
            shapes.content_file(
                path=path, text=data, sha=sha, ref=ref, repo=repo.full_name, api=self.api, web=self.web
            ),
        )

    def op_repos_get_collaborator_permission_level(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        login = params["username"]
        if login.lower().endswith("[bot]"):
            # an App's bot account is no user to this endpoint (GitHub answers 404 "<login> is not a user")
            return error(404, f"{login} is not a user")
        level = self.s.permissions.get(
            (repo.full_name.lower(), login.lower()),
            "admin" if login.lower() == repo.owner.lower() else "read",
        )
        if level == "none":
            # not a collaborator of a private repository: GitHub answers 404 (the operation's 404 response)
            return error(404, "Not Found")
        return Reply(200, shapes.permission(login, level, self.api, self.web))
