"""GitHub's REST object shapes of workflow runs, jobs and their steps, check runs and annotations. Pure
functions."""

from __future__ import annotations

from typing import Any

from healer.demo.reposhapes import EPOCH, node_id, user


def step(number: int, name: str, conclusion: str | None) -> dict[str, Any]:
    return {
        "name": name,
        "status": "completed" if conclusion else "in_progress",
        "conclusion": conclusion,
        "number": number,
        "started_at": EPOCH,
        "completed_at": EPOCH if conclusion else None,
    }


def job(
    *,
    job_id: int,
    run_id: int,
    run_attempt: int,
    name: str,
    status: str,
    conclusion: str | None,
    steps: list[dict[str, Any]],
    head_sha: str,
    head_branch: str,
    workflow_name: str,
    repo: str,
    api: str,
    web: str,
) -> dict[str, Any]:
    """A ``job`` of a workflow run (its id is also its check-run id)."""
    return {
        "id": job_id,
        "run_id": run_id,
        "run_url": f"{api}/repos/{repo}/actions/runs/{run_id}",
        "run_attempt": run_attempt,
        "node_id": node_id("CR", job_id),
        "head_sha": head_sha,
        "url": f"{api}/repos/{repo}/actions/jobs/{job_id}",
        "html_url": f"{web}/{repo}/actions/runs/{run_id}/job/{job_id}",
        "status": status,
        "conclusion": conclusion,
        "created_at": EPOCH,
        "started_at": EPOCH,
        "completed_at": EPOCH if status == "completed" else None,
        "name": name,
        "steps": steps,
        "check_run_url": f"{api}/repos/{repo}/check-runs/{job_id}",
        "labels": ["ubuntu-latest"],
        "runner_id": 1,
        "runner_name": "GitHub Actions 1",
        "runner_group_id": 1,
        "runner_group_name": "GitHub Actions",
        "workflow_name": workflow_name,
        "head_branch": head_branch,
    }


def head_commit(sha: str, message: str) -> dict[str, Any]:
    person = {"name": "Mona Lisa", "email": "mona@example.com"}
    return {
        "id": sha,
        "tree_id": sha,
        "message": message,
        "timestamp": EPOCH,
        "author": person,
        "committer": person,
    }


def workflow_run(
    *,
    run_id: int,
    run_attempt: int,
    name: str,
    path: str,
    event: str,
    status: str,
    conclusion: str | None,
    head_sha: str,
    head_branch: str,
    actor: dict[str, Any],
    head_repository: dict[str, Any],
    repository: dict[str, Any],
    pull_requests: list[dict[str, Any]],
    repo: str,
    api: str,
    web: str,
    display_title: str = "",
) -> dict[str, Any]:
    """A ``workflow-run`` (REST); the webhook's ``workflow_run`` is the same object minus REST-only keys."""
    url = f"{api}/repos/{repo}/actions/runs/{run_id}"
    suite = run_id + 7_000_000
    return {
        "id": run_id,
        "name": name,
        "node_id": node_id("WFR", run_id),
        "check_suite_id": suite,
        "check_suite_node_id": node_id("CS", suite),
        "head_branch": head_branch,
        "head_sha": head_sha,
        "path": path,
        "run_number": run_id % 1000,
        "run_attempt": run_attempt,
        "event": event,
        "display_title": display_title or name,
        "status": status,
        "conclusion": conclusion,
        "workflow_id": 161335,
        "url": url,
        "html_url": f"{web}/{repo}/actions/runs/{run_id}",
        "pull_requests": pull_requests,
        "created_at": EPOCH,
        "updated_at": EPOCH,
        "run_started_at": EPOCH,
        "actor": actor,
        "triggering_actor": actor,
        "jobs_url": f"{url}/jobs",
        "logs_url": f"{url}/logs",
        "check_suite_url": f"{api}/repos/{repo}/check-suites/{suite}",
        "artifacts_url": f"{url}/artifacts",
        "cancel_url": f"{url}/cancel",
        "rerun_url": f"{url}/rerun",
        "previous_attempt_url": f"{url}/attempts/{run_attempt - 1}" if run_attempt > 1 else None,
        "workflow_url": f"{api}/repos/{repo}/actions/workflows/161335",
        "head_commit": head_commit(head_sha, f"Commit {head_sha[:7]}"),
        "repository": repository,
        "head_repository": head_repository,
    }


def check_run(
    job_shape: dict[str, Any], *, annotations: int, pull_requests: list[dict[str, Any]], api: str, web: str
) -> dict[str, Any]:
    """The ``check-run`` GitHub Actions creates for a job (same id, same name)."""
    job_id = job_shape["id"]
    repo = job_shape["url"].split("/repos/", 1)[1].split("/actions/", 1)[0]
    return {
        "id": job_id,
        "head_sha": job_shape["head_sha"],
        "node_id": job_shape["node_id"],
        "external_id": None,
        "url": f"{api}/repos/{repo}/check-runs/{job_id}",
        "html_url": job_shape["html_url"],
        "details_url": job_shape["html_url"],
        "status": job_shape["status"],
        "conclusion": job_shape["conclusion"],
        "started_at": job_shape["started_at"],
        "completed_at": job_shape["completed_at"],
        "output": {
            "title": None,
            "summary": None,
            "text": None,
            "annotations_count": annotations,
            "annotations_url": f"{api}/repos/{repo}/check-runs/{job_id}/annotations",
        },
        "name": job_shape["name"],
        "check_suite": {"id": job_shape["run_id"] + 7_000_000},
        "app": {
            "id": 15368,
            "slug": "github-actions",
            "node_id": node_id("A", 15368),
            "owner": user("github", api, web),
            "name": "GitHub Actions",
            "description": "Automate your workflow from idea to production",
            "external_url": "https://help.github.com/en/actions",
            "html_url": f"{web}/apps/github-actions",
            "created_at": EPOCH,
            "updated_at": EPOCH,
            "permissions": {"actions": "write", "checks": "write"},
            "events": ["check_run"],
        },
        "pull_requests": pull_requests,
    }


def annotation(
    *, path: str, line: int, level: str, message: str, title: str, blob_href: str
) -> dict[str, Any]:
    return {
        "path": path,
        "blob_href": blob_href,
        "start_line": line,
        "end_line": line,
        "start_column": None,
        "end_column": None,
        "annotation_level": level,
        "title": title,
        "message": message,
        "raw_details": None,
    }
