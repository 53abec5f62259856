"""Sample material: a small Python project, runner-shaped job logs, and ``workflow_run`` payloads.

``healer demo`` and the end-to-end tests build their repositories and events from these, so what the demo
shows is what the tests prove.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from datetime import datetime, timedelta, timezone
from typing import Any

from healer.demo import shapes

# A project that passes its checks on the default branch.
BASE_FILES: Mapping[str, str] = {
    "README.md": "# widgets\n\nSmall helpers for counting widgets.\n",
    "pyproject.toml": (
        '[project]\nname = "widgets"\nversion = "0.1.0"\nrequires-python = ">=3.10"\n\n'
        '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n'
    ),
    "widgets/__init__.py": '"""Small helpers for counting widgets."""\n',
    "widgets/calc.py": (
        '"""Arithmetic on widget counts."""\n\n\ndef add(a: int, b: int) -> int:\n    return a + b\n'
    ),
    "tests/test_calc.py": ("from widgets.calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n"),
    ".github/workflows/ci.yml": (
        "name: CI\non: [pull_request]\npermissions:\n  contents: read\njobs:\n"
        "  lint:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v5\n"
        "      - run: ruff check .\n"
        "  test:\n    runs-on: ubuntu-latest\n    steps:\n      - uses: actions/checkout@v5\n"
        "      - run: python -m pytest -q\n"
    ),
}

# A pull request that adds a function and leaves an unused import behind: a lint failure.
LINT_PR_FILES: Mapping[str, str] = {
    "widgets/calc.py": (
        '"""Arithmetic on widget counts."""\n\nimport os\n\n\ndef add(a: int, b: int) -> int:\n'
        "    return a + b\n\n\ndef double(a: int) -> int:\n    return 2 * a\n"
    ),
}

# What the sample agent (or a person) would commit to fix it.
LINT_FIXED_CALC = (
    '"""Arithmetic on widget counts."""\n\n\ndef add(a: int, b: int) -> int:\n'
    "    return a + b\n\n\ndef double(a: int) -> int:\n    return 2 * a\n"
)

_START = datetime(2026, 1, 1, 12, 0, tzinfo=timezone.utc)


def job_log(job: str, command: str, output: Iterable[str], *, exit_code: int = 1) -> str:
    """A job log laid out as the Actions runner writes it: set-up, the failing ``run:`` step, its output, the
    runner's ``##[error]Process completed with exit code N.`` line, and the post-job cleanup."""
    clock = itertools.count()

    def stamp() -> str:
        return (_START + timedelta(milliseconds=37 * next(clock))).strftime("%Y-%m-%dT%H:%M:%S.%f0Z")

    lines = [
        "Current runner version: '2.328.0'",
        "##[group]Operating System",
        "Ubuntu",
        "24.04.3",
        "LTS",
        "##[endgroup]",
        "##[group]GITHUB_TOKEN Permissions",
        "Contents: read",
        "Metadata: read",
        "##[endgroup]",
        "Secret source: Actions",
        "Prepare workflow directory",
        "Prepare all required actions",
        "Getting action download info",
        f"Complete job name: {job}",
        "##[group]Run actions/checkout@v5",
        "with:",
        "  token: ***",
        "  fetch-depth: 1",
        "##[endgroup]",
        "HEAD is now at 5f1c2a9 Merge into main",
        f"##[group]Run {command}",
        f"\x1b[36;1m{command}\x1b[0m",
        "shell: /usr/bin/bash -e {0}",
        "##[endgroup]",
        *output,
    ]
    if exit_code:
        lines.append(f"##[error]Process completed with exit code {exit_code}.")
    lines += ["Post job cleanup.", "Cleaning up orphan processes"]
    return "".join(f"{stamp()} {line}\n" for line in lines)


def workflow_run_event(
    run_shape: Mapping[str, Any],
    repository: Mapping[str, Any],
    *,
    api: str,
    web: str,
    action: str = "completed",
) -> dict[str, Any]:
    """A ``workflow_run`` webhook payload (what ``$GITHUB_EVENT_PATH`` holds) for a run as the REST API shows
    it.

    The webhook's ``workflow_run`` is the REST object without REST-only keys; its ``repository`` is the full
    repository with the webhook's extra keys (the field sets of GitHub's webhook schemas).
    """
    run = dict(run_shape)
    repo = {
        k: v for k, v in repository.items() if k not in ("network_count", "subscribers_count", "permissions")
    }
    repo.update({"web_commit_signoff_required": False, "custom_properties": {}})
    workflow_url = run["workflow_url"]
    workflow = {
        "badge_url": f"{web}/{repository['full_name']}/workflows/{run['name']}/badge.svg",
        "created_at": shapes.EPOCH,
        "html_url": f"{web}/{repository['full_name']}/blob/{repository['default_branch']}/{run['path']}",
        "id": run["workflow_id"],
        "name": run["name"],
        "node_id": shapes.node_id("W", run["workflow_id"]),
        "path": run["path"],
        "state": "active",
        "updated_at": shapes.EPOCH,
        "url": workflow_url,
    }
    return {
        "action": action,
        "repository": repo,
        "sender": run["triggering_actor"],
        "workflow": workflow,
        "workflow_run": run,
    }
