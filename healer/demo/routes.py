"""The stand-in's HTTP vocabulary: answers, GitHub's error bodies, the route table, pages and ranges."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any
from urllib.parse import unquote, urlencode

from healer.demo import shapes

# GitHub redirects a log download to its blob storage; the stand-in serves those URLs under this path
SIGNED_LOG_PREFIX = "/_signed/logs/"


class Reply:
    """An HTTP answer: status, headers, and a JSON value or raw bytes."""

    def __init__(
        self,
        status: int,
        body: Any = None,
        *,
        headers: Iterable[tuple[str, str]] = (),
        raw: bytes | None = None,
        content_type: str = "application/json; charset=utf-8",
    ) -> None:
        self.status = status
        self.body = body
        self.headers = list(headers)
        self.raw = raw
        self.content_type = content_type

    def payload(self) -> bytes:
        if self.raw is not None:
            return self.raw
        if self.body is None:
            return b""
        return json.dumps(self.body).encode()


def error(status: int, message: str, **extra: Any) -> Reply:
    return Reply(status, shapes.error(message, status, **extra))


# -- the route table -----------------------------------------------------------------------------------------

_SEG = r"(?P<{}>[^/]+)"
_ROUTES: list[tuple[str, re.Pattern[str], str]] = []


def _route(method: str, template: str, operation: str) -> None:
    regex = re.sub(
        r"\{(\w+)\}",
        lambda m: rf"(?P<{m.group(1)}>.+)" if m.group(1) in ("path", "ref") else _SEG.format(m.group(1)),
        template,
    )
    _ROUTES.append((method, re.compile("^" + regex + "$"), operation))


_R = "/repos/{owner}/{repo}"
for _method, _template, _operation in (
    ("GET", _R, "repos/get"),
    ("GET", _R + "/contents/{path}", "repos/get-content"),
    ("GET", _R + "/collaborators/{username}/permission", "repos/get-collaborator-permission-level"),
    ("GET", _R + "/pulls", "pulls/list"),
    ("POST", _R + "/pulls", "pulls/create"),
    ("GET", _R + "/pulls/{number}", "pulls/get"),
    ("PATCH", _R + "/pulls/{number}", "pulls/update"),
    ("GET", _R + "/pulls/{number}/files", "pulls/list-files"),
    ("POST", _R + "/pulls/{number}/reviews", "pulls/create-review"),
    ("POST", _R + "/pulls/{number}/requested_reviewers", "pulls/request-reviewers"),
    ("GET", _R + "/commits/{sha}/pulls", "repos/list-pull-requests-associated-with-commit"),
    ("GET", _R + "/commits/{sha}/check-runs", "checks/list-for-ref"),
    ("GET", _R + "/check-runs/{job_id}/annotations", "checks/list-annotations"),
    ("GET", _R + "/actions/runs/{run_id}", "actions/get-workflow-run"),
    ("GET", _R + "/actions/runs/{run_id}/jobs", "actions/list-jobs-for-workflow-run"),
    (
        "GET",
        _R + "/actions/runs/{run_id}/attempts/{attempt}/jobs",
        "actions/list-jobs-for-workflow-run-attempt",
    ),
    ("POST", _R + "/actions/runs/{run_id}/rerun-failed-jobs", "actions/re-run-workflow-failed-jobs"),
    ("GET", _R + "/actions/jobs/{job_id}", "actions/get-job-for-workflow-run"),
    ("GET", _R + "/actions/jobs/{job_id}/logs", "actions/download-job-logs-for-workflow-run"),
    ("POST", _R + "/actions/jobs/{job_id}/rerun", "actions/re-run-job-for-workflow-run"),
    ("GET", _R + "/actions/workflows/{workflow_id}/runs", "actions/list-workflow-runs"),
    ("POST", _R + "/actions/workflows/{workflow_id}/dispatches", "actions/create-workflow-dispatch"),
    ("GET", _R + "/issues", "issues/list-for-repo"),
    ("POST", _R + "/issues", "issues/create"),
    ("PATCH", _R + "/issues/{number}", "issues/update"),
    ("GET", _R + "/issues/comments", "issues/list-comments-for-repo"),
    ("GET", _R + "/issues/{number}", "issues/get"),  # after /issues/comments, which it would match too
    ("GET", _R + "/issues/{number}/comments", "issues/list-comments"),
    ("POST", _R + "/issues/{number}/comments", "issues/create-comment"),
    ("PATCH", _R + "/issues/comments/{comment_id}", "issues/update-comment"),
    ("DELETE", _R + "/issues/comments/{comment_id}", "issues/delete-comment"),
    ("POST", _R + "/issues/{number}/labels", "issues/add-labels"),
    ("DELETE", _R + "/git/refs/{ref}", "git/delete-ref"),
    ("DELETE", _R + "/issues/{number}/labels/{name}", "issues/remove-label"),
    ("POST", _R + "/issues/comments/{comment_id}/reactions", "reactions/create-for-issue-comment"),
):
    _route(_method, _template, _operation)


def match_route(method: str, path: str) -> tuple[str, dict[str, str]] | None:
    """The operation id and path parameters of an API path (without prefix)."""
    for route_method, pattern, operation in _ROUTES:
        found = pattern.match(path)
        if found and route_method == method:
            return operation, {k: unquote(v) for k, v in found.groupdict().items()}
    return None


def page_links(url_base: str, query: dict[str, str], page: int, last: int) -> str:
    """GitHub's ``Link`` header for page ``page`` of ``last``."""

    def link(number: int, rel: str) -> str:
        params = dict(query)
        params["page"] = str(number)
        return f'<{url_base}?{urlencode(params)}>; rel="{rel}"'

    parts = []
    if page < last:
        parts += [link(page + 1, "next"), link(last, "last")]
    if page > 1:
        parts += [link(1, "first"), link(page - 1, "prev")]
    return ", ".join(parts)


def paginate(
    items: list[Any], query: dict[str, str], url_base: str
) -> tuple[list[Any], list[tuple[str, str]]]:
    """One page of ``items`` per ``per_page``/``page`` (GitHub's default 30, at most 100), and its Link."""
    per_page = max(1, min(100, int(query.get("per_page") or 30)))
    page = max(1, int(query.get("page") or 1))
    last = max(1, -(-len(items) // per_page))
    chunk = items[(page - 1) * per_page : page * per_page]
    header = page_links(url_base, {k: v for k, v in query.items() if k != "page"}, page, last)
    return chunk, [("Link", header)] if header else []


def parse_range(header: str, size: int) -> tuple[int, int] | str:
    """A ``Range`` header as Azure Blob Storage answers it (the blob behind GitHub's log URLs).

    ``bytes=<start>-`` and ``bytes=<start>-<end>`` are served (inclusive offsets, the end clamped to the
    blob); a start at or past the end is ``"unsatisfiable"`` (416). Anything else, the suffix form
    ``bytes=-<n>`` included, is ``"whole"``: Azure supports only the start-end forms and sends the whole blob
    with 200 ("Specifying the range header for Blob service operations", Azure Storage REST documentation).
    """
    unit, _, spec = header.partition("=")
    found = re.fullmatch(r"\s*(\d+)-(\d*)\s*", spec) if unit.strip() == "bytes" else None
    if found is None:
        return "whole"
    start = int(found.group(1))
    end = min(int(found.group(2)), size - 1) if found.group(2) else size - 1
    if start >= size:
        return "unsatisfiable"
    return (start, end) if start <= end else "whole"
