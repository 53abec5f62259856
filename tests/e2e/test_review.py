"""End to end: scenarios from a review of the finished action — what a maintainer meets on a first try."""

from __future__ import annotations

from pathlib import Path

from harness import failing_test_pull, heal, write_agent

from healer.demo.sandbox import Sandbox, git

# (a fix of another size than the bug: Python trusts bytecode whose source has the same size and mtime second)
FIX_ADD = (
    "calc = pathlib.Path('widgets/calc.py')\ncalc.write_text(calc.read_text().replace('a - b', '(a + b)'))\n"
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
