"""End to end: scenarios from a review of the finished action — what a maintainer meets on a first try."""

from __future__ import annotations

import time
from pathlib import Path

from harness import (
    BRANCH,
    BROKEN_ADD,
    agent_reports,
    failing_test_log,
    failing_test_pull,
    heal,
    job_log,
    lint_log,
    record_bodies,
    write_agent,
)

from healer.demo.sample import LINT_PR_FILES
from healer.demo.sandbox import Sandbox, git

# (a fix of another size than the bug: Python trusts bytecode whose source has the same size and mtime second)
FIX_ADD = (
    "calc = pathlib.Path('widgets/calc.py')\ncalc.write_text(calc.read_text().replace('a - b', '(a + b)'))\n"
)
TRANSIENT_LOG = job_log(
    "test (3.12)",
    "git clone https://git.example-host.invalid/org/repo.git",
    ["fatal: unable to access 'https://git.example-host.invalid/org/repo.git/': Could not resolve host"],
    exit_code=128,
)
# What the heal frame asks for: reproduce the failure with the failing command, fix it, run it again.
RUN_TESTS = (
    "import subprocess\n"
    "def tests():\n"
    "    env = {**os.environ, 'PYTHONPATH': os.getcwd()}\n"
    "    argv = [sys.executable, '-m', 'pytest', '-q', '-p', 'no:cacheprovider']\n"
    "    subprocess.run(argv, env=env, check=False)\n"
)


def test_an_agent_and_a_verify_command_that_run_the_tests_deliver_only_the_fix(
    box: Sandbox, tmp_path: Path
) -> None:
    # the sample repository has no .gitignore: running its tests leaves __pycache__ directories behind
    pull, run = failing_test_pull(box)
    agent = write_agent(
        tmp_path / "agent", RUN_TESTS + "tests()\n" + FIX_ADD + "tests()\nprint('Fixed add().')\n"
    )

    result = heal(
        box,
        run,
        inputs={
            "agent-command": agent,
            "verify-command": "PYTHONPATH=. python -m pytest -q -p no:cacheprovider",
        },
    )

    assert result.outputs["decision"] == "healed"
    [fix] = box.standin.created_pulls(box.repo)
    changed = git(box.origin, "diff", "--name-only", pull.head_sha, fix.head_sha).split()
    assert changed == ["widgets/calc.py"]
    # the verify command's own bytecode is not a file it rewrote: the tests passed, so the PR is ready
    assert not fix.draft, fix.body
    assert "passed" in (fix.body or "")


def test_a_repository_that_keeps_actions_from_opening_pull_requests_is_told_which_setting(
    box: Sandbox, tmp_path: Path
) -> None:
    # the answer of a repository created after May 2022 whose settings were left alone
    pull, run = failing_test_pull(box)
    box.standin.fail(
        "pulls/create",
        403,
        times=5,
        message="GitHub Actions is not permitted to create or approve pull requests.",
    )

    result = heal(box, run, inputs={"agent-command": write_agent(tmp_path / "agent", FIX_ADD)}, expect_exit=1)

    [error] = [line for line in result.stdout.splitlines() if line.startswith("::error")]
    assert "Allow GitHub Actions to create and approve pull requests" in error
    assert "permissions:" not in error
    # the attempt is recorded on the PR with the same reason, and does not claim that nothing changed
    [comment] = box.standin.comments(box.repo, pull.number)
    assert '"result":"failed"' in comment.body
    assert "Allow GitHub Actions to create and approve pull requests" in comment.body
    assert "no change" not in comment.body
    assert len([r for r in result.requests if r.operation == "pulls/create"]) == 1


def test_the_primary_rate_limit_is_waited_out_until_its_reset(box: Sandbox, tmp_path: Path) -> None:
    pull, run = failing_test_pull(box)
    reset = str(int(time.time()))  # already passed: the client waits its one second of margin
    box.standin.fail(
        "issues/list-comments",
        403,
        message="API rate limit exceeded for installation ID 1.",
        headers=[("x-ratelimit-remaining", "0"), ("x-ratelimit-reset", reset)],
    )

    result = heal(box, run, inputs={"agent-command": write_agent(tmp_path / "agent", FIX_ADD)})

    assert result.outputs["decision"] == "healed"
    assert [r.status for r in result.requests if r.operation == "issues/list-comments"][:2] == [403, 200]
    assert len(box.standin.created_pulls(box.repo)) == 1


def test_a_check_name_with_control_characters_is_healed_without_an_internal_error(
    box: Sandbox, tmp_path: Path
) -> None:
    # a job's name comes from the workflow file of the PR's own commit: YAML's "\0" and "\n" escapes are one
    # push away for anyone who can open a same-repository pull request
    sha = box.commit("feature/names", {"widgets/calc.py": BROKEN_ADD}, "Simplify add()")
    pull = box.open_pull("feature/names", sha)
    check = "test\x00\n::error::x"
    run = box.add_run(pull, [(check, "failure", failing_test_log(box))])
    agent_dir = tmp_path / "agent"
    agent = write_agent(agent_dir, "report(checks=os.environ['HEALER_CHECKS'])\n" + FIX_ADD)

    result = heal(box, run, inputs={"agent-command": agent})

    assert result.outputs["decision"] == "healed"
    # one check, one line: the names the agent reads keep the one-per-line promise
    [report] = agent_reports(agent_dir)
    assert str(report["checks"]).splitlines() == ["test  ::error::x"]
    [fix] = box.standin.created_pulls(box.repo)
    assert "\x00" not in fix.title and "\n" not in fix.title
    # the runner obeys workflow commands at the start of a line: none came from the name
    assert not [line for line in result.stdout.splitlines() if line.startswith("::error::x")]


def test_a_refused_escalation_label_still_leaves_the_escalation_on_the_pr(box: Sandbox) -> None:
    # `escalation-label` set, `issues: write` forgotten: the label is refused, the escalation itself stands
    sha = box.commit("feature/net", {"README.md": "# widgets\n\nnetwork\n"}, "Touch the README")
    pull = box.open_pull("feature/net", sha)
    run = box.add_run(pull, [("test (3.12)", "failure", TRANSIENT_LOG)])
    inputs = {"escalation-label": "needs-human"}
    assert heal(box, run, inputs=inputs).outputs["decision"] == "rerun"
    box.add_run(pull, [("test (3.12)", "failure", TRANSIENT_LOG)], run=run)
    box.standin.fail("issues/add-labels", 403, times=5)

    result = heal(box, run, inputs=inputs, expect_exit=1)

    [error] = [line for line in result.stdout.splitlines() if line.startswith("::error")]
    assert "`issues: write`" in error
    [escalation] = box.standin.comments(box.repo, pull.number)  # the re-run before it wrote none
    assert '"kind":"escalation"' in escalation.body and "needs a person" in escalation.body
    assert result.outputs["decision"] == "escalated"
    # recorded, so the next failure of the same check stays quiet
    box.add_run(pull, [("test (3.12)", "failure", TRANSIENT_LOG)], run=run)
    again = heal(box, run, inputs=inputs)
    assert again.outputs["decision"] == "skipped"
    assert len(box.standin.comments(box.repo, pull.number)) == 1


def test_a_transient_failure_is_not_rerun_when_a_heal_of_the_same_commit_is_planned(box: Sandbox) -> None:
    # one run, two failures: `lint` is fixed by its rule, `test (3.12)` is transient; the fix brings a new
    # commit whose CI runs the test job again, so re-running the old commit would only spend a run attempt
    sha = box.commit(BRANCH, LINT_PR_FILES, "Add double()")
    pull = box.open_pull(BRANCH, sha)
    run = box.add_run(pull, [("lint", "failure", lint_log(box)), ("test (3.12)", "failure", TRANSIENT_LOG)])

    result = heal(box, run)

    assert result.outputs["decision"] == "healed"
    assert box.standin.reruns == []
    [fix] = box.standin.created_pulls(box.repo)
    [record] = record_bodies(box, pull.number)  # the fix's body: a heal alone writes no comment
    assert '"kind":"attempt","check":"lint"' in record and f'"fix_pr":{fix.number}' in record
    assert '"kind":"rerun"' not in record
    assert "heal-planned" in result.stdout


def test_a_rerun_github_refuses_is_escalated_with_githubs_reason(box: Sandbox) -> None:
    # Re-runs are refused for runs older than 30 days, after 50 attempts, or for a disabled workflow, with a
    # 403 that says which ("Re-running workflows and jobs", GitHub's docs; the message below is GitHub's).
    sha = box.commit("feature/net", {"README.md": "# widgets\n\nnetwork\n"}, "Touch the README")
    pull = box.open_pull("feature/net", sha)
    run = box.add_run(pull, [("test (3.12)", "failure", TRANSIENT_LOG)])
    reason = "Unable to retry this workflow run because it was created over a month ago"
    box.standin.fail("actions/re-run-job-for-workflow-run", 403, message=reason)

    result = heal(box, run)

    assert result.outputs["decision"] == "escalated", result.stdout
    [comment] = box.standin.comments(box.repo, pull.number)
    assert reason in comment.body and "not a missing permission" in comment.body
    assert "actions: write" not in comment.body + result.stdout
    # news: the escalation is the one comment created (no claim before it, nothing deleted)
    writes = [r.operation for r in result.requests if r.is_write and r.operation.startswith("issues/")]
    assert writes == ["issues/create-comment"]


def test_a_rerun_refused_for_a_missing_permission_names_the_permission(box: Sandbox) -> None:
    sha = box.commit("feature/net", {"README.md": "# widgets\n\nnetwork\n"}, "Touch the README")
    pull = box.open_pull("feature/net", sha)
    run = box.add_run(pull, [("test (3.12)", "failure", TRANSIENT_LOG)])
    refusal = "Resource not accessible by integration"  # GitHub's words for a missing permission
    box.standin.fail("actions/re-run-job-for-workflow-run", 403, message=refusal)

    result = heal(box, run, expect_exit=1)

    [error] = [line for line in result.stdout.splitlines() if line.startswith("::error")]
    assert "`actions: write`" in error
    assert box.standin.comments(box.repo, pull.number) == []  # nothing was written


def test_a_push_onto_a_branch_the_author_moved_meanwhile_is_a_stale_head(
    box: Sandbox, tmp_path: Path
) -> None:
    pull, run = failing_test_pull(box)
    # while the agent works, the author pushes another commit to the PR branch
    author_pushes = (
        "import subprocess\n"
        f"origin = {str(box.origin)!r}\n"
        "git = ['git', '-c', 'user.name=Mona', '-c', 'user.email=mona@example.com']\n"
        "subprocess.run(git + ['commit', '-q', '--allow-empty', '-m', 'author'], check=True)\n"
        f"subprocess.run(git + ['push', '-q', origin, 'HEAD:refs/heads/{BRANCH}'], check=True)\n"
        "subprocess.run(['git', 'reset', '-q', '--hard', 'HEAD~1'], check=True)\n"
    )
    agent = write_agent(tmp_path / "agent", author_pushes + FIX_ADD)

    result = heal(box, run, inputs={"agent-command": agent, "delivery": "push"})

    assert result.outputs["decision"] == "skipped"
    assert "moved on while the healer worked" in result.stdout
    assert git(box.origin, "log", "-1", "--format=%s", BRANCH).strip() == "author"
    # nothing is left on the PR: the new head gets its own run, and the healer its own look at it
    assert box.standin.comments(box.repo, pull.number) == []
