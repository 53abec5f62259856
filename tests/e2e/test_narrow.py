"""End to end: fix rules change only what their failure names, with the tool the failing command used."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

from harness import BRANCH, PASSED, heal, ruff_output

from healer.demo.sample import LINT_PR_FILES, job_log
from healer.demo.sandbox import Sandbox, git

# Formatted badly, but not a lint finding: a repository-wide `ruff format .` would rewrite it.
MESSY = "x=1\ny = [1,2,\n  3]\n"
UNFORMATTED = '"""Shapes."""\n\n\ndef area(w,h):\n    return w*h\n'


def changed(box: Sandbox, sha: str) -> list[str]:
    return git(box.origin, "diff", "--name-only", f"{sha}^", sha).split()


def test_a_ruff_lint_fix_touches_only_the_reported_file(box: Sandbox) -> None:
    sha = box.commit(BRANCH, {**LINT_PR_FILES, "widgets/messy.py": MESSY}, "Add double() and a scratch file")
    pull = box.open_pull(BRANCH, sha)
    lines, code = ruff_output(box.seed)
    assert code == 1 and not any("messy" in line for line in lines)
    run = box.add_run(
        pull, [("lint", "failure", job_log("lint", "ruff check .", lines)), ("test", "success", PASSED)]
    )

    result = heal(box, run)

    [fix] = box.standin.created_pulls(box.repo)
    assert changed(box, fix.head_sha) == ["widgets/calc.py"]
    assert box.show(fix.head_sha, "widgets/messy.py") == MESSY
    assert "import os" not in box.show(fix.head_sha, "widgets/calc.py")
    assert "made by the fix command `ruff check --fix widgets/calc.py`" in (fix.body or "")
    assert "ruff format" not in (fix.body or "")
    assert not fix.draft and result.outputs["decision"] == "healed"


def _ruff_format_check(checkout: Path) -> tuple[list[str], int]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RUFF_"))}
    done = subprocess.run(
        [sys.executable, "-m", "ruff", "format", "--check", "--no-cache", "."],
        cwd=checkout,
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    return (done.stdout + done.stderr).splitlines(), done.returncode


def test_a_ruff_format_check_failure_is_fixed_with_ruff_format_without_black(box: Sandbox) -> None:
    assert shutil.which("black") is None, "this test shows the fix needs no black"
    sha = box.commit(BRANCH, {"widgets/shapes.py": UNFORMATTED}, "Add area()")
    pull = box.open_pull(BRANCH, sha)
    lines, code = _ruff_format_check(box.seed)
    # current ruff: one diagnostic per file (`unformatted: File would be reformatted`, ` --> path:line:col`)
    assert code == 1 and " --> widgets/shapes.py:4:12" in lines
    run = box.add_run(pull, [("format", "failure", job_log("format", "ruff format --check .", lines))])

    result = heal(box, run)

    assert (result.outputs["decision"], result.outputs["category"]) == ("healed", "format")
    [fix] = box.standin.created_pulls(box.repo)
    assert changed(box, fix.head_sha) == ["widgets/shapes.py"]
    assert "def area(w, h):\n    return w * h\n" in box.show(fix.head_sha, "widgets/shapes.py")
    body = fix.body or ""
    assert "made by the fix command `ruff format widgets/shapes.py`" in body
    assert "black" not in body, body
    # the failing command itself judged the fix: a ready pull request
    assert not fix.draft and "Ran `ruff format --check .` on the changed tree: it passed" in body


def test_a_fix_rule_whose_tool_is_missing_says_which_step_to_add(box: Sandbox, tmp_path: Path) -> None:
    # a PATH with the interpreter but not the rest of its environment's scripts (ruff is a test dependency)
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("python", "python3"):
        (bin_dir / name).symlink_to(sys.executable)
    box.path = os.pathsep.join([str(bin_dir), "/usr/bin", "/bin"])
    assert shutil.which("ruff", path=box.path) is None
    sha = box.commit(BRANCH, {"widgets/shapes.py": UNFORMATTED}, "Add area()")
    pull = box.open_pull(BRANCH, sha)
    lines, _ = _ruff_format_check(box.seed)
    run = box.add_run(pull, [("format", "failure", job_log("format", "ruff format --check .", lines))])

    result = heal(box, run)

    assert result.outputs["decision"] == "escalated"
    [comment] = box.standin.comments(box.repo, pull.number)
    # nothing to try without an agent: the notice's line of the check says why its fix rule could not run
    line = next(line for line in comment.body.splitlines() if line.startswith("- `format`"))
    assert (
        ". Its fix rule needs `ruff`, which is not on PATH: add `pip install ruff` before ci-healer" in line
    )
    assert "black" not in comment.body
