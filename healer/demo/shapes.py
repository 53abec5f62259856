"""GitHub's REST object shapes, built from the stand-in's state.

The field sets follow the response schemas of GitHub's OpenAPI description (``simple-user``,
``full-repository``, ``pull-request``, ``workflow-run``, ``job``, ``issue-comment``, ``check-run``…), with
every required field present, so that PyGithub and a schema validator read them as they read GitHub's own
answers. Pure functions: values in, dicts out.

The shapes live by resource — :mod:`healer.demo.reposhapes` (users, repositories, labels, contents,
permissions, errors), :mod:`healer.demo.pullshapes` (pull requests, reviews, comments) and
:mod:`healer.demo.runshapes` (runs, jobs, check runs) — and are all importable from here.
"""

from __future__ import annotations

from healer.demo.pullshapes import diff_entry, issue_comment, pull_ref, pull_request, pull_summary, review
from healer.demo.reposhapes import (
    EPOCH,
    content_file,
    error,
    label,
    node_id,
    permission,
    repository,
    repository_lite,
    user,
    user_id,
)
from healer.demo.runshapes import annotation, check_run, head_commit, job, step, workflow_run

__all__ = [
    "EPOCH",
    "annotation",
    "check_run",
    "content_file",
    "diff_entry",
    "error",
    "head_commit",
    "issue_comment",
    "job",
    "label",
    "node_id",
    "permission",
    "pull_ref",
    "pull_request",
    "pull_summary",
    "repository",
    "repository_lite",
    "review",
    "step",
    "user",
    "user_id",
    "workflow_run",
]
