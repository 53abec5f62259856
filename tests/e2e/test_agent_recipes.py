"""End to end: the aider recipe of docs/agents.md through the healer, with a stand-in `aider` on PATH that
leaves aider's side files behind: the fix PR holds the fix and none of them."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from harness import failing_test_pull, heal
from test_recipes import documented_recipes, install_standins  # type: ignore[import-not-found]

from healer.demo.sandbox import Sandbox, git


def test_the_aider_recipe_delivers_the_fix_without_aiders_side_files(box: Sandbox, tmp_path: Path) -> None:
    install_standins(tmp_path / "bin")
    box.path = os.pathsep.join([str(tmp_path / "bin"), str(Path(sys.executable).parent), os.environ["PATH"]])
    pull, run = failing_test_pull(box)
    command, _ = documented_recipes()["aider"]

    result = heal(box, run, inputs={"agent-command": f"ANTHROPIC_API_KEY=sk-test {command}"})

    assert result.outputs["decision"] == "healed", result.stdout[-3000:]
    [fix] = box.standin.created_pulls(box.repo)
    files = git(box.origin, "diff", "--name-only", f"{fix.head_sha}^", fix.head_sha).split()
    assert files == ["widgets/calc.py"]
    assert "aider stand-in: fixed add()" in (fix.body or "")
