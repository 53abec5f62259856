"""End to end: ``healer report`` over a stand-in repository with 50 pull requests the healer worked on.

The markers are the healer's own encoding (what ``healer run`` writes), in comments by the bot, with a few
forged ones by a stranger that must not count. The report reads them in one repository-wide listing, not a
call per pull request, and the dashboard issue is opened once and then edited in place.
"""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from harness import TOKEN, check_contract, shell_env

from healer.demo.sandbox import Sandbox
from healer.demo.state import Pull
from healer.ledger.markers import Kind, Marker, add_markers, comment_body
from healer.text.dashboard import DASHBOARD_MARKER

BOT = "github-actions[bot]"
WF = ".github/workflows/ci.yml"
SINCE = "2025-12-15"
UNTIL = "2026-02-01"
TOKENS = "tokens" in Marker.__dataclass_fields__  # the model proxy records agent tokens in attempt markers


def at(day: int, hour: int) -> str:
    return f"2026-01-{day:02d}T{hour:02d}:00:00Z"


def sha(n: int) -> str:
    return f"{n:07x}" + "a" * 33


def attempt(n: int, check: str, result: str, fix_pr: int | None, tokens: int = 0) -> Marker:
    extra = {"tokens": tokens} if TOKENS and tokens else {}
    return Marker(
        Kind.ATTEMPT, sha(n), check, attempt=1, run_id=n, run_attempt=1, category="test", mode="agent",
        fix_pr=fix_pr, result=result, workflow=WF, **extra,
    )  # fmt: skip


def seed(box: Sandbox) -> dict[str, Any]:
    """50 pull requests in five kinds of story; returns what the report must count."""
    standin, repo = box.standin, box.repo
    expected: dict[str, Any] = {
        "attempts": 0,
        "verified": 0,
        "merged": 0,
        "closed": 0,
        "open": 0,
        "reruns": 0,
    }
    expected |= {"escalations": 0, "trunk": []}
    for i in range(50):
        day = 2 + i % 25
        pull = standin.add_pull(repo, head_ref=f"feature/{i}", head_sha=sha(i), title=f"Feature {i} @here")
        kind = i % 5
        if kind in (0, 1):  # healed into a fix PR: merged (then green) or closed unmerged (then escalated)
            fix = standin.add_pull(
                repo, head_ref=f"ci-healer/{pull.number}-{sha(i)[:7]}", head_sha=sha(100 + i),
                base_ref=pull.head_ref, title=f"Fix test on #{pull.number}", author=BOT,
            )  # fmt: skip
            result = "verified" if kind == 0 else "verify-failed"
            body = comment_body(
                [attempt(i, "test (3.12)", result, fix.number, tokens=1000 + i)], "Heal attempt 1"
            )
            comment = standin.add_comment(repo, pull.number, body, author=BOT, at=at(day, 9))
            expected["attempts"] += 1
            expected["verified"] += kind == 0
            if kind == 0:
                _merge(fix)
                expected["merged"] += 1
                # the check passed: the reset goes into the healer's previous comment, edited two hours later
                comment.body = _reset_into(comment.body, i)
                comment.updated_at = at(day, 11)
            else:
                fix.state = "closed"
                expected["closed"] += 1
                escalation = Marker(
                    Kind.ESCALATION, sha(i), "test (3.12)", run_id=i, run_attempt=1, workflow=WF
                )
                standin.add_comment(
                    repo, pull.number, comment_body([escalation], "Escalated"), author=BOT, at=at(day, 15)
                )
                expected["escalations"] += 1
        elif kind == 2:  # a transient failure re-run, which then passed
            rerun = Marker(
                Kind.RERUN, sha(i), "lint", run_id=i, run_attempt=1, category="transient", workflow=WF
            )
            comment = standin.add_comment(
                repo, pull.number, comment_body([rerun], "Re-ran"), author=BOT, at=at(day, 9)
            )
            comment.body = _reset_into(comment.body, i, check="lint")
            comment.updated_at = at(day, 10)
            expected["reruns"] += 1
        elif kind == 3:  # known flaky tests re-run, passed on the same commit
            rerun = Marker(
                Kind.RERUN, sha(i), "test (3.12)", run_id=i, run_attempt=1, category="test", workflow=WF,
                tests=("tests/test_net.py::test_timeout",),
            )  # fmt: skip
            standin.add_comment(repo, pull.number, comment_body([rerun], "Re-ran"), author=BOT, at=at(day, 9))
            tests = ("tests/test_net.py::test_timeout", "tests/test_ui.py::test_`tick`")
            flaky = Marker(
                Kind.FLAKY, sha(i), "test (3.12)", run_id=i, run_attempt=2, tests=tests, workflow=WF
            )
            standin.add_comment(repo, pull.number, comment_body([flaky], "Flaky"), author=BOT, at=at(day, 10))
            expected["reruns"] += 1
        else:  # the base branch failed the same way (one base-branch run for all of them)
            notice = Marker(
                Kind.TRUNK, sha(i), "build", run_id=777, run_attempt=1, result="broken", workflow=WF
            )
            standin.add_comment(
                repo, pull.number, comment_body([notice], "Broken trunk"), author=BOT, at=at(day, 9)
            )
            expected["trunk"].append(pull.number)
        if i % 10 == 7:  # a stranger forges an attempt: never counted
            forged = comment_body([attempt(i, "forged", "verified", None)], "forged")
            standin.add_comment(repo, pull.number, forged, author="mallory", at=at(day, 12))
    # one fix PR still open, and the rule PRs learned
    open_fix = standin.add_pull(repo, head_ref="ci-healer/1-0000000", head_sha=sha(999), base_ref="feature/0",
                                title="Fix `lint` on #1 ![x](http://e/x.png)", author=BOT)  # fmt: skip
    expected["open"] += 1
    assert open_fix.state == "open"
    _merge(
        standin.add_pull(
            repo, head_ref="ci-healer/rule-3f2a", head_sha=sha(998), title="Learn a rule", author=BOT
        )
    )
    standin.add_pull(
        repo, head_ref="ci-healer/rule-9c1d", head_sha=sha(997), title="Learn another rule", author=BOT
    )
    return expected


def _merge(pull: Pull) -> None:
    pull.state, pull.merged = "closed", True


def _reset_into(body: str, i: int, check: str = "test (3.12)") -> str:
    """``body`` with a reset marker added to its marker block, as a green run edits the previous comment."""
    return add_markers(
        body, [Marker(Kind.RESET, sha(i), check, run_id=10_000 + i, run_attempt=1, workflow=WF)]
    )


def report(box: Sandbox, *args: str, actions: bool = False) -> subprocess.CompletedProcess[str]:
    """``healer report`` from a shell (``actions``: as a step of a workflow, where GITHUB_ACTIONS is set)."""
    env = shell_env(box, **({"GITHUB_ACTIONS": "true"} if actions else {}))
    argv = [sys.executable, "-m", "healer", "report", "--since", SINCE, "--until", UNTIL, *args]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, check=False)


def json_of(stdout: str) -> dict[str, object]:
    """The report's JSON: from a shell it is the whole of stdout (`healer report --format json > f.json`)."""
    return json.loads(stdout)


def test_from_a_shell_stdout_is_the_json_alone_and_inside_actions_the_token_is_masked(box: Sandbox) -> None:
    seed(box)

    shell = report(box, "--format", "json")
    step = report(box, "--format", "json", actions=True)

    assert shell.returncode == step.returncode == 0, shell.stderr + step.stderr
    assert json.loads(shell.stdout)["attempts"]["total"] == 20  # `| jq` and `> f.json` work
    assert TOKEN not in shell.stdout + shell.stderr and "::" not in shell.stdout.split("{", 1)[0]
    # in a workflow the runner masks the token (and its base64 forms) and reads the report with commands off
    lines = step.stdout.splitlines()
    assert lines[0] == f"::add-mask::{TOKEN}" and any(line.startswith("::stop-commands::") for line in lines)


def test_from_a_shell_an_error_is_one_plain_line_on_stderr(box: Sandbox) -> None:
    env = {"PATH": str(Path(sys.executable).parent), "GITHUB_TOKEN": TOKEN, "HOME": str(box.root)}
    argv = [sys.executable, "-m", "healer", "report", "--format", "json"]  # no repository named anywhere
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1 and done.stdout == ""
    assert "--repository owner/name" in done.stderr
    assert done.stderr.startswith("healer report: ") and "::error" not in done.stderr
    assert TOKEN not in done.stderr


def test_the_report_reads_fifty_pull_requests_in_a_few_requests(box: Sandbox) -> None:
    expected = seed(box)
    before = len(box.standin.requests)

    done = report(box, "--format", "json")

    assert done.returncode == 0, done.stderr
    requests = box.standin.requests[before:]
    check_contract(requests, box.standin.api_url)
    # 75 comments in the window (70 by the bot) are one page; the 53 pull requests another
    assert [r.operation for r in requests] == ["issues/list-comments-for-repo", "pulls/list"]
    data = json_of(done.stdout)
    assert data["requests"] == 2
    attempts = data["attempts"]
    assert (attempts["total"], attempts["verified"]) == (expected["attempts"], expected["verified"])
    assert data["fix_pull_requests"]["merged"] == expected["merged"]
    assert data["fix_pull_requests"]["closed"] == expected["closed"]
    assert data["fix_pull_requests"]["open"] == expected["open"]
    assert data["reruns"] == {
        "total": expected["reruns"],
        "passed": 10,
        "flaky": 10,
        "failed-again": 0,
        "pending": 0,
    }
    assert data["escalations"]["total"] == expected["escalations"]
    assert len(data["escalations"]["open"]) == expected["escalations"]
    assert data["hours_to_green"] == {"median": 1.5, "checks": 20}  # 2 h for the heals, 1 h for the re-runs
    assert data["flaky_tests"] == {"tests/test_net.py::test_timeout": 10, "tests/test_ui.py::test_`tick`": 10}
    assert data["rules"] == {"merged": 1, "pending": 1, "closed": 0}
    assert data["broken_trunk"] == [
        {"check": "build", "base_run": 777, "pull_requests": expected["trunk"], "lifted": False}
    ]
    assert data["agent_tokens"]["attempts_unknown"] == (0 if TOKENS else expected["attempts"])
    assert data["could_not_read"] == []
    assert "forged" not in done.stdout


def test_the_summary_has_a_chart_and_names_stay_defused(box: Sandbox) -> None:
    seed(box)
    done = report(box)
    assert done.returncode == 0, done.stderr
    assert "```mermaid\npie showData title Heal attempts" in done.stdout
    assert "| heal attempts | 20 |" in done.stdout
    assert "| `` tests/test_ui.py::test_`tick` `` | 10 |" in done.stdout


def test_a_listing_github_refuses_is_said_and_the_rest_is_still_reported(box: Sandbox) -> None:
    seed(box)
    box.standin.fail("pulls/list", 403, message="Resource not accessible by integration")
    done = report(box, "--format", "json")
    assert done.returncode == 0, done.stderr
    data = json_of(done.stdout)
    assert data["attempts"]["total"] == 20
    assert data["fix_pull_requests"]["unknown"] == 20
    [note] = data["could_not_read"]
    assert note.startswith("Could not read the pull requests") and "pull-requests: read" in note


def schedule(box: Sandbox, tag: str) -> subprocess.CompletedProcess[str]:
    event = box.root / f"schedule-{tag}.json"
    event.write_text(json.dumps({"schedule": "0 6 * * 1", "repository": {"full_name": box.repo}}))
    env = box.environment(
        event, {"dashboard": "true", "report-window": "366d"}, tag=tag, event_name="schedule"
    )
    return subprocess.run(
        [sys.executable, "-m", "healer", "run"], cwd=box.workspace, env=env, capture_output=True, text=True,
        timeout=120, check=False,
    )  # fmt: skip


def test_on_schedule_the_action_keeps_one_dashboard_issue_in_place(box: Sandbox) -> None:
    seed(box)
    before = len(box.standin.requests)

    first = schedule(box, "one")

    assert first.returncode == 0, first.stdout + first.stderr
    ops = [r.operation for r in box.standin.requests[before:]]
    assert ops == [
        "repos/get",
        "repos/get-content",
        "issues/list-comments-for-repo",
        "pulls/list",
        "issues/list-for-repo",
        "issues/list-for-repo",
        "issues/create",
    ]
    [issue] = box.standin.issues(box.repo)
    assert issue.title == "CI healer dashboard" and issue.author == BOT and issue.labels == ["ci-healer"]
    assert issue.body.startswith(DASHBOARD_MARKER)
    assert "`/ci-healer retry test (3.12)`" in issue.body
    assert "@here" not in issue.body and "![x](" not in issue.body
    summary = (box.root / "runner-temp-one" / "summary.md").read_text()
    assert "```mermaid" in summary and "<sub>7 API requests</sub>" in summary

    # a week later: the same issue, edited in place; a person removed its label: still found, by its creator
    issue.labels.clear()
    box.standin.add_issue(
        box.repo, title="CI healer dashboard", body=DASHBOARD_MARKER + "\nforged", author="mallory"
    )
    box.standin.add_comment(
        box.repo,
        1,
        comment_body([attempt(500, "test (3.12)", "verified", None)], "again"),
        author=BOT,
        at=at(28, 9),
    )
    before = len(box.standin.requests)

    second = schedule(box, "two")

    assert second.returncode == 0, second.stdout + second.stderr
    ops = [r.operation for r in box.standin.requests[before:]]
    ops = [op for op in ops if op.startswith("issues/") and op != "issues/list-comments-for-repo"]
    assert ops == ["issues/list-for-repo", "issues/list-for-repo", "issues/add-labels", "issues/update"]
    issues = box.standin.issues(box.repo)
    assert issues[0].labels == ["ci-healer"]  # put back
    assert [i.author for i in issues] == [BOT, "mallory"]
    assert "| heal attempts | 21 |" in issues[0].body


def test_in_a_terminal_the_report_is_plain_text_and_piped_it_stays_markdown(box: Sandbox) -> None:
    import os
    import pty

    seed(box)
    env = shell_env(box)
    argv = [sys.executable, "-m", "healer", "report", "--since", SINCE, "--until", UNTIL]
    leader, follower = pty.openpty()
    try:
        done = subprocess.run(
            argv, env=env, stdout=follower, stderr=subprocess.PIPE, timeout=120, check=False
        )
        os.close(follower)
        chunks = []
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:  # the terminal's other end is closed: all was read
                break
            if not chunk:
                break
            chunks.append(chunk)
    finally:
        os.close(leader)
    shown = b"".join(chunks).decode("utf-8").replace("\r\n", "\n")
    assert done.returncode == 0, done.stderr
    assert shown.startswith("CI healer report: ")
    assert "mermaid" not in shown and "| --- |" not in shown and "```" not in shown
    assert "heal attempts" in shown and "first failure → green" in shown
    piped = report(box)
    assert "```mermaid" in piped.stdout and "| --- |" in piped.stdout  # the job summary's Markdown
    assert report(box, "--format", "text").stdout.startswith("CI healer report: ")


def test_a_dashboard_kept_from_a_shell_for_an_earlier_window_says_it_was_updated_today(box: Sandbox) -> None:
    seed(box)

    done = report(box, "--dashboard", "--format", "json")

    assert done.returncode == 0, done.stderr
    [issue] = [i for i in box.standin.issues(box.repo) if i.body.startswith(DASHBOARD_MARKER)]
    today = datetime.now(timezone.utc).strftime("%Y-%m-%d")
    assert f"(last on {today})" in issue.body and f"(last on {UNTIL})" not in issue.body
    assert f"## Figures, {SINCE} to {UNTIL}" in issue.body
