"""End to end: the claim of a heal is its fix branch, created by one atomic push; it notifies nobody.

Two runs of the same commit (a ``push`` and a ``pull_request`` trigger, say), each on its own runner with its
own checkout, race for it: exactly one heals and delivers, the other does nothing. A claim left by a run that
died holds the commit for six hours at most; then the next run replaces it.
"""

from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone
from pathlib import Path

from harness import agent_reports, assert_no_token, failing_test_pull, heal, write_agent

from healer.change.claim import BranchLock, Claim
from healer.change.workspace import Repo, identity_for
from healer.demo.notifications import heard
from healer.demo.sandbox import HealerRun, Sandbox, git
from healer.ledger.markers import Kind, decode_markers

BOT = "github-actions[bot]"
# an agent slow enough that a second run arrives while the first one holds the claim
SLOW_FIX = (
    "import time\n"
    "report(ran=True)\n"
    "time.sleep(3)\n"
    "calc = pathlib.Path('widgets/calc.py')\n"
    "calc.write_text(calc.read_text().replace('a - b', 'a + b'))\n"
)


def own_checkout(box: Sandbox, name: str) -> Path:
    """Another runner's checkout of the repository (each job checks out its own)."""
    path = box.root / name
    git(box.root, "clone", "--quiet", "--branch", box.default_branch, str(box.origin), str(path))
    return path


def start(
    box: Sandbox, run: object, inputs: dict[str, str], name: str, into: dict[str, HealerRun]
) -> threading.Thread:
    event = box.write_event(run, f"event-{name}.json")  # type: ignore[arg-type]
    env = box.environment(event, inputs, tag=name)
    env["GITHUB_WORKSPACE"] = str(own_checkout(box, f"workspace-{name}"))

    def go() -> None:
        into[name] = box.run_env(env, timeout=120)

    thread = threading.Thread(target=go)
    thread.start()
    return thread


def test_two_runs_of_one_commit_race_and_exactly_one_heals(box: Sandbox, tmp_path: Path) -> None:
    pull, run = failing_test_pull(box)
    inputs = {"agent-command": write_agent(tmp_path / "agent", SLOW_FIX)}
    results: dict[str, HealerRun] = {}

    threads = [start(box, run, inputs, name, results) for name in ("push", "pull-request")]
    for thread in threads:
        thread.join(timeout=180)
    box.standin.idle()

    for result in results.values():
        assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-2000:]
        assert "Traceback" not in result.stdout + result.stderr
        assert_no_token(box, result)
    assert sorted(r.decision for r in results.values()) == ["healed", "skipped"]
    [loser] = [r for r in results.values() if r.decision == "skipped"]
    assert "holds its fix branch" in loser.stdout or "its fix branch is at" in loser.stdout
    # one agent run, one fix pull request, one record; nothing written on the pull request, nothing by the
    # loser at all
    assert len(agent_reports(tmp_path / "agent")) == 1
    [fix] = box.standin.created_pulls(box.repo)
    assert box.origin_refs()[f"refs/heads/{fix.head_ref}"] == fix.head_sha
    assert [m.kind for m in decode_markers(fix.body or "")] == [Kind.ATTEMPT]
    assert box.standin.comments(box.repo, pull.number) == []
    assert [r for r in loser.requests if r.is_write and r.path.startswith("/repos")] in (
        [],
        loser.requests[:0],
    )
    assert not any(t.number == pull.number for r in results.values() for t in heard(r.requests))


def claim_left_behind(box: Sandbox, sha: str, branch: str, at: datetime, name: str) -> Claim:
    """The claim of a run that died at ``at`` (its runner was lost): still on origin."""
    checkout = Repo(own_checkout(box, name))
    dead = BranchLock(checkout, token="", server_url="", identity=identity_for(BOT))
    claim = dead.claim(branch, head_sha=sha, run=(4242, 1), now=at, ttl=timedelta(hours=6))
    assert isinstance(claim, Claim)
    return claim


def test_a_claim_left_by_a_dead_run_holds_the_commit_six_hours_then_expires(
    box: Sandbox, tmp_path: Path
) -> None:
    pull, run = failing_test_pull(box)
    inputs = {"agent-command": write_agent(tmp_path / "agent", SLOW_FIX.replace("time.sleep(3)\n", ""))}
    branch = f"ci-healer/{pull.number}-{pull.head_sha[:7]}"
    recent = claim_left_behind(
        box, pull.head_sha, branch, datetime.now(timezone.utc) - timedelta(hours=1), "dead-1"
    )

    held = heal(box, run, inputs=inputs)

    assert held.decision == "skipped" and "run 4242 (attempt 1) holds its fix branch" in held.stdout
    assert agent_reports(tmp_path / "agent") == []
    assert [r for r in held.requests if r.is_write] == []
    assert box.origin_refs()[f"refs/heads/{branch}"] == recent.sha

    # six hours on (the claim is rewritten as older, as the clock would make it), the next run takes over
    git(box.origin, "update-ref", "-d", f"refs/heads/{branch}")
    old = claim_left_behind(
        box, pull.head_sha, branch, datetime.now(timezone.utc) - timedelta(hours=7), "dead-2"
    )
    box.add_run(
        pull, [("test (3.12)", "failure", box.standin.jobs[max(box.standin.jobs)].log.decode())], run=run
    )

    healed = heal(box, run, inputs=inputs)

    assert healed.decision == "healed", healed.stdout[-3000:]
    assert f"replacing {old.sha[:7]}" in healed.stdout
    [fix] = box.standin.created_pulls(box.repo)
    assert fix.head_ref == branch and box.origin_refs()[f"refs/heads/{branch}"] == fix.head_sha
    assert git(box.origin, "rev-parse", f"{fix.head_sha}^").strip() == pull.head_sha  # not on the claim
    assert box.standin.comments(box.repo, pull.number) == []


def test_a_heal_that_delivers_nothing_releases_its_claim_and_tells_the_pull_request(
    box: Sandbox, tmp_path: Path
) -> None:
    pull, run = failing_test_pull(box)
    inputs = {"agent-command": write_agent(tmp_path / "agent", "report(ran=True)\nprint('No idea.')\n")}

    result = heal(box, run, inputs=inputs)

    assert result.decision == "skipped"
    assert not [ref for ref in box.origin_refs() if ref.startswith("refs/heads/ci-healer/")]
    # the failure stands and the healer will not try this commit again: the one created comment says so
    [told] = [t for t in heard(result.requests) if t.number == pull.number]
    assert told.kind == "comment"
    [comment] = box.standin.comments(box.repo, pull.number)
    assert any(m.kind is Kind.ATTEMPT for m in decode_markers(comment.body))


def test_when_github_refuses_the_record_edit_the_fix_stands_and_the_commit_is_not_healed_twice(
    box: Sandbox, tmp_path: Path
) -> None:
    """The unkind form: the fix pull request is open, then GitHub answers 502 to the edit that records the
    attempt in its body. The run says so and fails the step; the branch still holds the commit, so a run of
    the same commit heals nothing again (no second agent run, no second fix)."""
    pull, run = failing_test_pull(box)
    agent = tmp_path / "agent"
    inputs = {"agent-command": write_agent(agent, SLOW_FIX.replace("time.sleep(3)\n", ""))}
    box.standin.fail("pulls/update", 502, times=10)

    first = heal(box, run, inputs=inputs, expect_exit=1)

    [fix] = box.standin.created_pulls(box.repo)
    assert "could not record the attempt in fix" in first.stdout + first.stderr
    assert decode_markers(fix.body or "") == []  # the record is missing, and the run said so
    assert box.standin.comments(box.repo, pull.number) == []
    box.standin.clear_faults()

    again = heal(box, run, inputs=inputs)

    assert again.decision == "skipped" and len(agent_reports(agent)) == 1
    assert box.standin.created_pulls(box.repo) == [fix]


def test_a_retry_never_pushes_over_a_run_that_holds_the_fix_branch(box: Sandbox, tmp_path: Path) -> None:
    from commands_harness import command

    pull, run = failing_test_pull(box)
    agent = tmp_path / "agent"
    inputs = {
        "agent-command": write_agent(agent, SLOW_FIX.replace("time.sleep(3)\n", "")),
        "max-attempts": "1",
    }
    assert heal(box, run, inputs=inputs).decision == "healed"
    [fix] = box.standin.created_pulls(box.repo)
    branch = fix.head_ref
    # the fix is merged away and its branch deleted; another run of the commit now holds the branch
    git(box.origin, "update-ref", "-d", f"refs/heads/{branch}")
    live = claim_left_behind(box, pull.head_sha, branch, datetime.now(timezone.utc), "live")
    box.standin.set_permission(box.repo, "maintainer", "maintain")

    result, _ = command(box, pull, "/ci-healer retry", inputs=inputs)

    assert result.outputs["decision"] == "skipped", result.stdout[-3000:]
    assert "run 4242 (attempt 1) holds its fix branch" in result.stdout
    assert len(agent_reports(agent)) == 1  # the retry ran no agent
    assert box.origin_refs()[f"refs/heads/{branch}"] == live.sha
