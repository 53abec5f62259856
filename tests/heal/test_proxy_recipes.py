"""The README's agent recipes, run as written, reach their model through the proxy: stand-ins of the CLIs
(real processes that read the variables the real CLIs read and send real HTTP requests) talk to the model
API stand-in, which sees the real key, while the agent's environment holds only the heal's token."""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the recipes' helpers live in tests/

from test_recipes import FRAME, documented_recipes, install_standins  # type: ignore[import-not-found]  # noqa: E402

from healer.demo.fakemodel import FakeModel  # noqa: E402
from healer.heal.agent import ProcessResult, run  # noqa: E402
from healer.heal.modelkeys import find_keys, without_keys  # noqa: E402
from healer.heal.proxy import model_proxy  # noqa: E402
from healer.heal.usage import Limits, Spend  # noqa: E402

REAL = {
    "ANTHROPIC_API_KEY": "sk-ant-api03-RealAnthropicKeyOfTheRepository-000",
    "CODEX_API_KEY": "sk-proj-RealCodexKeyOfTheRepository-111",
    "OPENAI_API_KEY": "sk-proj-RealOpenAIKeyOfTheRepository-222",
}


def _run_through_proxy(
    command: str, names: list[str], tmp_path: Path, limits: Limits | None = None
) -> tuple[ProcessResult, FakeModel, list[dict[str, Any]], Spend]:
    bin_dir = tmp_path / "bin"
    install_standins(bin_dir)
    checkout = tmp_path / "checkout"
    (checkout / "widgets").mkdir(parents=True)
    (checkout / "widgets" / "calc.py").write_text("def add(a, b):\n    return a - b\n")
    frame = tmp_path / "frame.md"
    frame.write_text(FRAME)
    report = tmp_path / "report.jsonl"
    runner_env = {
        "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
        "HOME": str(tmp_path),
        "STANDIN_REPORT": str(report),
        **{name: REAL[name] for name in names},
    }
    keys = find_keys(runner_env)
    with FakeModel() as fake, model_proxy(keys, limits or Limits(), fake.url) as proxy:
        env = {
            **without_keys(runner_env, keys),
            "HEALER_FRAME": str(frame),
            **proxy.agent_variables(keys.names),
        }
        result = run(command, cwd=checkout, env=env, timeout=30, stdin=FRAME, isolation=None)
        spend = proxy.spend()
    seen = [json.loads(line) for line in report.read_text().splitlines()] if report.exists() else []
    return result, fake, seen, spend


@pytest.mark.parametrize("agent", ["Claude Code", "Codex CLI", "aider"])
def test_each_recipe_reaches_its_model_through_the_proxy_and_never_holds_the_key(
    agent: str, tmp_path: Path
) -> None:
    command, env_column = documented_recipes()[agent]
    names = re.findall(r"`([A-Z_]+)`", env_column)
    result, fake, seen, spend = _run_through_proxy(command, names, tmp_path)
    assert result.ok, result.output
    [request] = fake.requests
    key = REAL[names[0]]
    assert key in (
        request.headers.get("x-api-key", ""),
        request.headers.get("authorization", "").removeprefix("Bearer "),
    )
    [report] = seen
    assert not [name for name, value in report["env"].items() if key in value], "the agent saw the key"
    assert report["env"][names[0]].startswith("ci-healer-")  # the heal's token instead
    assert spend.tokens == 120 and spend.requests == 1


def test_aider_on_an_openai_model_streams_chat_completions_with_its_usage(tmp_path: Path) -> None:
    command, _ = documented_recipes()["aider"]
    result, fake, seen, spend = _run_through_proxy(command, ["OPENAI_API_KEY"], tmp_path)
    assert result.ok, result.output
    [request] = fake.requests
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {REAL['OPENAI_API_KEY']}"
    assert request.body["stream_options"] == {"include_usage": True}  # added by the proxy, counted by it
    assert spend.tokens == 120


def test_a_cli_stopped_by_the_budget_exits_with_the_budgets_message(tmp_path: Path) -> None:
    command, _ = documented_recipes()["Claude Code"]
    spent = Limits(pr_tokens=1000, pr_spent=1000)  # the pull request's earlier attempts spent it all
    result, fake, _, spend = _run_through_proxy(command, ["ANTHROPIC_API_KEY"], tmp_path, spent)
    assert result.returncode == 1 and fake.requests == []
    assert "model error 403" in result.output
    assert "pull request's token budget is spent (1,000 of 1,000 tokens" in result.output
    assert spend.stopped == "max-agent-tokens-per-pr" and spend.refused == 1
