"""The stand-in's side of fix pull requests that prove themselves: ``workflow_dispatch`` and the one GraphQL
mutation the healer sends (marking a draft pull request ready for review), as GitHub answers them.

GitHub's rules modelled here (docs.github.com, "Events that trigger workflows" → ``workflow_dispatch``, and
"REST API endpoints for workflows" → "Create a workflow dispatch event"): the workflow is named by its file
(or id) and must exist on the default branch (else 404); the ref must exist (else 422 "No ref found for");
the copy of the workflow at the ref must declare ``workflow_dispatch`` (else 422 "Workflow does not have
'workflow_dispatch' trigger"); a token without ``actions: write`` gets 403. The accepted dispatch answers 204
with no body and queues a run with ``event: workflow_dispatch`` on the ref's head commit, whose
``pull_requests`` is empty (the unkind form of BEHAVIOUR.md). GraphQL answers 200 with ``errors`` for what it
refuses, as GitHub does, never an HTTP error status.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import yaml

from healer.demo.reposhapes import node_id
from healer.demo.routes import Reply, error
from healer.demo.state import Repo, Run
from healer.demo.views import Views

_WORKFLOWS = ".github/workflows/"


def _triggers(text: bytes) -> tuple[str, set[str]]:
    """A workflow file's name and the events under its ``on:`` (YAML 1.1 reads a bare ``on`` as True)."""
    try:
        data = yaml.safe_load(text.decode("utf-8", "replace"))
    except yaml.YAMLError:
        return "", set()
    if not isinstance(data, dict):
        return "", set()
    on = data.get("on", data.get(True))
    if isinstance(on, str):
        events = {on}
    elif isinstance(on, (list, dict)):
        events = {str(e) for e in on}
    else:
        events = set()
    return str(data.get("name") or ""), events


class ProofOps(Views):
    """Mixed into :class:`healer.demo.api.Api`."""

    def op_actions_create_workflow_dispatch(
        self, repo: Repo, params: dict[str, str], query: dict[str, str], body: Any, headers: Mapping[str, str]
    ) -> Reply:
        workflow = params["workflow_id"]
        path = workflow if workflow.startswith(_WORKFLOWS) else _WORKFLOWS + workflow
        if repo.show(repo.default_branch, path) is None:
            return error(404, "Not Found")
        ref = body.get("ref") if isinstance(body, dict) else None
        if not isinstance(ref, str) or not ref:
            return error(422, "Invalid request.\n\nFor 'properties/ref', nil is not a string.")
        branch = ref.removeprefix("refs/heads/")
        sha = repo.resolve(f"refs/heads/{branch}")
        if sha is None:
            return error(422, f"No ref found for: {ref}")
        found = repo.show(sha, path)
        name, events = _triggers(found[0]) if found else ("", set())
        if "workflow_dispatch" not in events:
            return error(422, "Workflow does not have 'workflow_dispatch' trigger")
        run = Run(
            self.s.next_id() * 1000,
            repo.full_name,
            sha,
            branch,
            repo.full_name,
            name or path,
            path,
            "workflow_dispatch",
            "queued",
            None,
            1,
            (),
            self.s.bot_login,
        )
        self.s.runs[run.id] = run
        self.s.dispatched.append(run)
        return Reply(204)

    def graphql(self, body: Any, auth: str | None) -> Reply:
        """``POST /graphql``: only ``markPullRequestReadyForReview`` is served."""
        if not auth:
            return error(401, "This endpoint requires you to be authenticated.")
        refused = self._authorize(auth)  # a wrong token: 401 "Bad credentials", as on the REST paths
        if refused is not None:
            return refused
        read_only = self._read_only(auth)
        query = body.get("query") if isinstance(body, dict) else None
        variables = body.get("variables") if isinstance(body, dict) else None
        if not isinstance(query, str) or "markPullRequestReadyForReview" not in query:
            return _errors("Only markPullRequestReadyForReview is served by this stand-in.", "UNSUPPORTED")
        node = (variables or {}).get("id") if isinstance(variables, dict) else None
        with self.s._lock:
            pull = next(
                (
                    p
                    for pulls in self.s.pulls_by_repo.values()
                    for p in pulls.values()
                    if node_id("PR", p.id) == node
                ),
                None,
            )
            if pull is None:
                return _errors(f"Could not resolve to a node with the global id of '{node}'", "NOT_FOUND")
            repo = self.s.repos.get(pull.repo.lower())
            if read_only or (repo is not None and repo.ready_refused):
                return _errors("Resource not accessible by integration", "FORBIDDEN")
            pull.draft = False
            self.s.readied.append(pull.number)
            data = {"pullRequest": {"number": pull.number, "isDraft": False}}
        return Reply(200, {"data": {"markPullRequestReadyForReview": data}})


def _errors(message: str, kind: str) -> Reply:
    return Reply(
        200,
        {
            "data": {"markPullRequestReadyForReview": None},
            "errors": [{"type": kind, "path": ["markPullRequestReadyForReview"], "message": message}],
        },
    )
