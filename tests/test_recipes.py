"""The agent recipes of docs/agents.md, run as written through stand-ins that check the flags and the
environment each tool's documentation asks for (``tests/fixtures/agents/standin.py``)."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest
import yaml

from healer.heal.agent import run

ROOT = Path(__file__).resolve().parent.parent
STANDIN = ROOT / "tests" / "fixtures" / "agents" / "standin.py"
FRAME = "# Heal a failing CI check\n\nYou are fixing the CI of pull request #7.\n"
_ROW = re.compile(r"^\| (Claude Code|Codex CLI|aider) \| `([^`]+)` \| (.+) \|$", re.MULTILINE)


def documented_recipes() -> dict[str, tuple[str, str]]:
    """agent → (command, the variables the table in docs/agents.md says to set)."""
    text = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    return {name: (command, env) for name, command, env in _ROW.findall(text)}


def install_standins(bin_dir: Path) -> None:
    bin_dir.mkdir()
    for name in ("claude", "codex", "aider"):
        tool = bin_dir / name
        tool.write_text(f"#!{sys.executable}\n" + STANDIN.read_text(encoding="utf-8"), encoding="utf-8")
        tool.chmod(0o755)


def run_recipe(command: str, tmp_path: Path, env_names: list[str]) -> tuple[int | None, str, Path]:
    bin_dir = tmp_path / "bin"
    install_standins(bin_dir)
    checkout = tmp_path / "checkout"
    (checkout / "widgets").mkdir(parents=True)
    (checkout / "widgets" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    frame = tmp_path / "frame.md"
    frame.write_text(FRAME)
    env = {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "HEALER_FRAME": str(frame),
        "HOME": str(tmp_path),
    }
    env.update({name: "sk-test" for name in env_names})
    result = run(command, cwd=checkout, env=env, timeout=30, stdin=FRAME, isolation=None)
    return result.returncode, result.output, checkout


def test_the_docs_have_a_recipe_for_each_agent() -> None:
    assert set(documented_recipes()) == {"Claude Code", "Codex CLI", "aider"}


@pytest.mark.parametrize("agent", ["Claude Code", "Codex CLI", "aider"])
def test_each_recipe_runs_its_tool_with_the_documented_flags_and_environment(
    agent: str, tmp_path: Path
) -> None:
    command, env_column = documented_recipes()[agent]
    names = re.findall(r"`([A-Z_]+)`", env_column)
    code, output, checkout = run_recipe(command, tmp_path, names)
    assert code == 0, output
    assert "return a + b" in (checkout / "widgets" / "calc.py").read_text()


@pytest.mark.parametrize(
    ("command", "env", "complaint"),
    [
        pytest.param(
            "codex exec --sandbox workspace-write -", ["OPENAI_API_KEY"], "CODEX_API_KEY", id="codex-key"
        ),
        pytest.param(
            'claude -p --allowedTools "Edit,Write,Bash(pytest:*)"',
            ["ANTHROPIC_API_KEY"],
            "Bash(python -m pytest:*)",
            id="claude-allow-list",
        ),  # fmt: skip
        pytest.param(
            'aider --yes-always --no-auto-commits --message-file "$HEALER_FRAME"',
            [],
            "--no-gitignore",
            id="aider-gitignore",
        ),  # fmt: skip
    ],
)
def test_the_standins_refuse_the_old_recipes(
    command: str, env: list[str], complaint: str, tmp_path: Path
) -> None:
    code, output, _ = run_recipe(command, tmp_path, env)
    assert code == 2 and complaint in output


def test_the_example_workflow_uses_the_claude_recipe_and_its_key() -> None:
    workflow = yaml.safe_load((ROOT / "examples" / "ci-healer.yml").read_text(encoding="utf-8"))
    [step] = [s for s in workflow["jobs"]["heal"]["steps"] if s.get("id") == "heal"]
    assert step["with"]["agent-command"] == documented_recipes()["Claude Code"][0]
    assert "ANTHROPIC_API_KEY" in step["env"]
    assert "$HEALER_PATH" in step["with"]["setup-command"]
