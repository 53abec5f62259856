"""End to end: the recipes of docs/agents.md through the healer, with stand-ins of the CLIs on PATH: aider's
side files stay out of the fix PR, and each CLI reaches its model through the healer's proxy without holding
the key."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path

import pytest
from harness import failing_test_pull, heal
from test_recipes import documented_recipes, install_standins  # type: ignore[import-not-found]

from healer.demo.fakemodel import FakeModel
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


@pytest.mark.parametrize("agent", ["Claude Code", "Codex CLI", "aider"])
def test_each_recipe_heals_through_the_model_proxy_without_ever_holding_the_key(
    agent: str, box: Sandbox, tmp_path: Path
) -> None:
    install_standins(tmp_path / "bin")
    box.path = os.pathsep.join([str(tmp_path / "bin"), str(Path(sys.executable).parent), os.environ["PATH"]])
    pull, run = failing_test_pull(box)
    command, env_column = documented_recipes()[agent]
    [name] = re.findall(r"`([A-Z_]+)`", env_column)
    key = f"sk-{name.lower().replace('_', '-')}-RealKeyOfTheRepository-0123456789"
    report = tmp_path / "standin.jsonl"

    with FakeModel(input_tokens=1000, output_tokens=234) as fake:
        result = box.run_healer(
            run,
            inputs={"agent-command": command, "model-api-url": fake.url},
            secrets={name: key, "STANDIN_REPORT": str(report)},
            timeout=90,
        )
        box.standin.idle()

    assert result.outputs["decision"] == "healed", result.stdout[-3000:]
    [request] = fake.requests  # the tool's one request reached the provider, with the real key
    assert key in (
        request.headers.get("x-api-key"),
        request.headers.get("authorization", "").removeprefix("Bearer "),
    )
    [seen] = [json.loads(line) for line in report.read_text().splitlines()]
    assert not [n for n, value in seen["env"].items() if key in value], "the agent held the key"
    assert seen["env"][name].startswith("ci-healer-") and seen["answer"]
    assert result.outputs["agent-tokens"] == "1234"
    [comment] = [c for c in box.standin.comments(box.repo, pull.number) if '"kind":"attempt"' in c.body]
    assert '"tokens":1234' in comment.body and "1,234 tokens in 1 request" in comment.body
    # the sandbox runs `isolation: none`: the summary names the key that code of the PR could still reach
    assert f"`{name}`" in result.summary and key not in result.summary
    assert key not in "\n".join(
        line for line in result.stdout.splitlines() if not line.startswith("::add-mask::")
    )
