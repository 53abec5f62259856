"""End to end: a check that fails on the default branch the same way is not the pull request's fault.

The default branch breaks ``add()``; a pull request made from it changes only the README, and its test job
fails exactly as the default branch's push run did (other timestamps). The healer runs no agent, spends no
attempt and posts one notice; a second run edits nothing and adds nothing; once a push run on the default
branch passes, the next failure of the pull request is healed as usual and the notice says so.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from harness import (
    BRANCH,
    BROKEN_ADD,
    LINT_PASSED,
    PASSED,
    TOKEN,
    agent_reports,
    failing_test_log,
    heal,
    record_bodies,
    shell_env,
    write_agent,
)

from healer.demo.sample import BASE_FILES
from healer.demo.sandbox import Sandbox, _step_name
from healer.demo.state import RecordedRequest, Run
from healer.ledger.markers import Kind, decode_markers

FIX_ADD = (
    "report(ran=True)\n"
    "calc = pathlib.Path('widgets/calc.py')\n"
    "calc.write_text(calc.read_text().replace('a - b', 'a + b'))\n"
)


def push_run(box: Sandbox, sha: str, conclusion: str, log: str) -> Run:
    """A completed ``push`` run of CI on the default branch with one ``test (3.12)`` job."""
    run = box.standin.add_run(box.repo, head_sha=sha, head_branch="main", event="push", conclusion=conclusion)
    box.standin.add_job(
        run,
        "test (3.12)",
        conclusion=conclusion,
        log=log,
        steps=[("Run actions/checkout@v5", "success"), (_step_name(log), conclusion)],
    )
    box.standin.add_job(run, "lint", conclusion="success", log=LINT_PASSED, steps=[("Run ruff", "success")])
    return run


def later(log: str) -> str:
    """The same log as written by a run an hour and a bit later (other timestamps and durations)."""
    log = re.sub(r"T(\d\d):", lambda m: f"T{(int(m.group(1)) + 1) % 24:02d}:", log)
    return re.sub(r"in \d+\.\d+s", "in 0.42s", log)


def operations(requests: list[RecordedRequest]) -> list[str]:
    return [r.operation for r in requests]


def test_a_failure_the_default_branch_has_too_spends_nothing_and_is_healed_once_it_is_green(
    box: Sandbox, tmp_path: Path
) -> None:
    # the default branch breaks add(); its push run fails the tests
    main_sha = box.commit("main", {"widgets/calc.py": BROKEN_ADD}, "Simplify add()")
    main_log = failing_test_log(box)
    broken_run = push_run(box, main_sha, "failure", later(main_log))
    # a pull request made from it changes only the README: the same failure, not its fault
    sha = box.commit(BRANCH, {"README.md": "# widgets\n\nCounting widgets.\n"}, "Docs", base=main_sha)
    pull = box.open_pull(BRANCH, sha, title="Docs")
    run = box.add_run(pull, [("lint", "success", LINT_PASSED), ("test (3.12)", "failure", main_log)])
    agent = write_agent(tmp_path / "agent", FIX_ADD)

    first = heal(box, run, inputs={"agent-command": agent})

    assert first.outputs["decision"] == "skipped"
    assert first.outputs["attempt"] == ""
    assert agent_reports(tmp_path / "agent") == []  # no agent ran
    assert box.standin.created_pulls(box.repo) == []  # no fix
    [notice] = box.standin.comments(box.repo, pull.number)
    markers = decode_markers(notice.body)
    assert [(m.kind, m.check, m.run_id, m.result) for m in markers] == [
        (Kind.TRUNK, "test (3.12)", broken_run.id, "broken")
    ]
    assert f"/commit/{main_sha}" in notice.body and f"/actions/runs/{broken_run.id}" in notice.body
    assert "no attempt" in notice.body
    # what the check cost: the default branch's latest push run, its jobs, the failed job's log (API, blob)
    ops = operations(first.requests)
    trunk_ops = ops[ops.index("actions/list-workflow-runs") :][:4]
    assert trunk_ops == [
        "actions/list-workflow-runs",
        "actions/list-jobs-for-workflow-run-attempt",
        "actions/download-job-logs-for-workflow-run",
        "signed-log",
    ]
    listing = next(r for r in first.requests if r.operation == "actions/list-workflow-runs")
    assert dict(listing.query) == {
        "branch": "main",
        "event": "push",
        "status": "completed",
        "exclude_pull_requests": "true",
        "per_page": "1",
    }
    assert "broken-trunk" in first.stdout and "no attempt spent" in first.summary

    # the same run again: nothing new is written (the notice already says it)
    again = heal(box, run, inputs={"agent-command": agent})
    assert again.outputs["decision"] == "skipped"
    assert not [r for r in again.requests if r.is_write]
    assert box.standin.comments(box.repo, pull.number) == [notice]

    # the default branch is fixed (its push run passes); the PR, still on the broken base, fails again
    green_sha = box.commit(
        "main", {"widgets/calc.py": BASE_FILES["widgets/calc.py"]}, "Revert", base=main_sha
    )
    green = push_run(box, green_sha, "success", PASSED)
    sha2 = box.push_to_pull(pull, {"README.md": "# widgets\n\nCounting widgets, twice.\n"}, "Docs again")
    run2 = box.add_run(pull, [("lint", "success", LINT_PASSED), ("test (3.12)", "failure", main_log)])
    assert run2.head_sha == sha2

    healed = heal(box, run2, inputs={"agent-command": agent})

    assert (healed.outputs["decision"], healed.outputs["attempt"]) == ("healed", "1")
    assert len(agent_reports(tmp_path / "agent")) == 1
    [fix] = box.standin.created_pulls(box.repo)
    assert fix.base_ref == BRANCH
    # the green run cost one request; the notice is edited to say the check is healed again
    assert operations(healed.requests).count("actions/list-workflow-runs") == 1
    assert not [r for r in healed.requests if f"/actions/runs/{green.id}/" in r.path]
    comments = box.standin.comments(box.repo, pull.number)
    edited = next(c for c in comments if c.id == notice.id)
    # the lift keeps the run of the episode it ends (the report counts episodes by it)
    assert [(m.result, m.run_id) for m in decode_markers(edited.body) if m.kind is Kind.TRUNK] == [
        ("lifted", broken_run.id)
    ]
    assert "heals it here as usual" in edited.body
    # the attempt is the first: the broken-trunk episode spent none
    attempts = [
        m for body in record_bodies(box, pull.number) for m in decode_markers(body) if m.kind is Kind.ATTEMPT
    ]
    assert [(m.check, m.attempt) for m in attempts] == [("test (3.12)", 1)]


def test_without_an_agent_the_default_branchs_failure_gets_the_notice_not_an_escalation_on_every_pull(
    box: Sandbox,
) -> None:
    # no agent-command: a failing test would be escalated at once ("needs a person") on every open PR
    main_sha = box.commit("main", {"widgets/calc.py": BROKEN_ADD}, "Simplify add()")
    main_log = failing_test_log(box)
    broken_run = push_run(box, main_sha, "failure", later(main_log))
    pulls, runs = [], []
    for n, branch in enumerate(["docs-a", "docs-b"]):
        sha = box.commit(branch, {"README.md": f"# widgets\n\nDocs {n}.\n"}, f"Docs {n}", base=main_sha)
        pulls.append(box.open_pull(branch, sha, title=f"Docs {n}"))
        runs.append(
            box.add_run(pulls[-1], [("lint", "success", LINT_PASSED), ("test (3.12)", "failure", main_log)])
        )

    done = [heal(box, run) for run in runs]

    assert [d.outputs["decision"] for d in done] == ["skipped", "skipped"]
    for pull in pulls:
        [notice] = box.standin.comments(box.repo, pull.number)
        kinds = [(m.kind, m.result, m.run_id) for m in decode_markers(notice.body)]
        assert kinds == [(Kind.TRUNK, "broken", broken_run.id)]
        assert "needs a person" not in notice.body.lower() and "by hand" not in notice.body
    assert box.standin.created_pulls(box.repo) == []

    # the default branch is green again; the first PR fails again: now it is left to a person (no agent: the
    # short notice of a check with nothing to try), and its trunk notice says the check is the PR's own again
    green_sha = box.commit(
        "main", {"widgets/calc.py": BASE_FILES["widgets/calc.py"]}, "Revert", base=main_sha
    )
    push_run(box, green_sha, "success", PASSED)
    box.push_to_pull(pulls[0], {"README.md": "# widgets\n\nDocs, again.\n"}, "Docs again")
    again = box.add_run(pulls[0], [("lint", "success", LINT_PASSED), ("test (3.12)", "failure", main_log)])

    escalated = heal(box, again)

    assert escalated.outputs["decision"] == "escalated"
    markers = [m for c in box.standin.comments(box.repo, pulls[0].number) for m in decode_markers(c.body)]
    assert [(m.kind, m.result, m.run_id) for m in markers if m.kind is Kind.TRUNK] == [
        (Kind.TRUNK, "lifted", broken_run.id)
    ]
    assert [(m.kind, m.result) for m in markers if m.kind is Kind.ESCALATION] == [
        (Kind.ESCALATION, "untried")
    ]

    # healer report counts the episode, lifted, with the two pull requests it held
    figures = report_json(box)
    assert figures["broken_trunk"] == [
        {"check": "test (3.12)", "base_run": broken_run.id, "pull_requests": [p.number for p in pulls],
         "lifted": True}
    ]  # fmt: skip
    # nothing to try is no escalation waiting for a person; it is counted apart
    assert (figures["escalations"]["total"], figures["escalations"]["untried"]) == (0, 1)
    assert figures["attempts"]["total"] == 0
    assert figures["agent_tokens"] == {"total": 0, "attempts_with_tokens": 0, "attempts_unknown": 0}


def report_json(box: Sandbox) -> dict[str, Any]:
    """``healer report --format json`` from a shell, over the stand-in's whole history."""
    env = shell_env(box)
    argv = [sys.executable, "-m", "healer", "report", "--format", "json", "--since", "2025-12-01"]
    argv += ["--until", "2027-01-01"]
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode == 0, done.stderr
    assert TOKEN not in done.stdout
    return dict(json.loads(done.stdout))
