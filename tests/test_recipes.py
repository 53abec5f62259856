"""The agent recipes of docs/agents.md: one per CLI, read from the table as written (the end-to-end tests of
tests/e2e/test_real_*.py run each with the real CLI), and the example workflow's use of them."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
_ROW = re.compile(r"^\| (Claude Code|Codex CLI|aider|Gemini CLI) \| `([^`]+)` \| (.+) \|$", re.MULTILINE)


def documented_recipes() -> dict[str, tuple[str, str]]:
    """agent → (command, the variables the table in docs/agents.md says to set)."""
    text = (ROOT / "docs" / "agents.md").read_text(encoding="utf-8")
    return {name: (command, env) for name, command, env in _ROW.findall(text)}


def test_the_docs_have_a_recipe_for_each_agent() -> None:
    assert set(documented_recipes()) == {"Claude Code", "Codex CLI", "aider", "Gemini CLI"}


def test_the_example_workflow_uses_the_claude_recipe_and_its_key() -> None:
    workflow = yaml.safe_load((ROOT / "examples" / "ci-healer.yml").read_text(encoding="utf-8"))
    [step] = [s for s in workflow["jobs"]["heal"]["steps"] if s.get("id") == "heal"]
    assert step["with"]["agent-command"] == documented_recipes()["Claude Code"][0]
    assert "ANTHROPIC_API_KEY" in step["env"]
    assert "$HEALER_PATH" in step["with"]["setup-command"]
