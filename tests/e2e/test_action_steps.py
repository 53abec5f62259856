"""End to end through ``action.yml`` itself: every step of the composite action in order (setup-python, the
environment's location, the cache, the skipped build, the run step), its expressions and its outputs, against
the GitHub stand-in and a real ``origin`` (see :mod:`composite` for what the test runner supports)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import shlex
import sys
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml
from composite import (
    CompositeError,
    CompositeResult,
    CompositeRunner,
    Context,
    condition,
    evaluate,
    interpolate,
    parse_outputs,
    runner_arch,
    runner_os,
    tiny_venv,
)
from harness import (
    PASSED,
    TOKEN,
    agent_reports,
    assert_no_token,
    check_contract,
    failing_test_pull,
    lint_log,
    lint_pull,
    write_agent,
)
from hypothesis import given
from hypothesis import strategies as st

from healer.demo.sandbox import HealerRun, Sandbox
from healer.demo.state import Run

ROOT = Path(__file__).resolve().parents[2]
ACTION: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
# The workflow's own GITHUB_TOKEN when a test passes another token as `github-token`.
WORKFLOW_TOKEN = "ghs_WorkflowTokenOfTheJob000000000000000"
# What every input is set to when all of them are set: valid, and none of them its default.
EVERY_INPUT = {
    "github-token": TOKEN,
    "agent-command": "echo \"$HOME\" '${{ github.token }}' $(id -u); exit 0",
    "max-attempts": "2",
    "max-reruns": "2",
    "delivery": "comment",
    "setup-command": "true",
    "verify-command": "ruff check .",
    "bot-login": "heal-bot[bot]",
    "fork-policy": "ignore",
    "protected-paths": "docs/**\nsetup.cfg",
    "max-diff-lines": "50",
    "agent-timeout-minutes": "7",
    "config-file": ".github/healer.yml",
    "dry-run": "true",
    "agent-token": "true",
    "unknown-action": "escalate",
    "rerun-timeouts": "true",
    "opt-out-label": "no-heal",
    "allow-authors": "mona, hubot",
    "deny-authors": "octocat",
    "escalation-label": "needs-human",
    "escalation-mention": "@octo-org/maintainers",
    "max-jobs": "3",
    "ledger-key": "a-ledger-key-only-for-this-test",
    "events": "pull_request, push",
    "log-read-limit": "8MiB",
    "isolation": "none",
    "agent-api-key": "a-model-key-only-for-this-test",
    "model-api-url": "https://gateway.example/anthropic",
    "agent-token-budget": "1000",
    "agent-request-budget": "10",
    "max-agent-tokens-per-pr": "5000",
    "dashboard": "true",
    "report-window": "14d",
    "stage": "heal",
    "bundle-path": "/tmp/a-bundle-only-for-this-test",
    "learn": "false",
}


def act(
    box: Sandbox,
    run: Run,
    inputs: Mapping[str, str] | None = None,
    *,
    github_token: str = TOKEN,
    restore_cache: Callable[[Path], None] = tiny_venv,
    expect_exit: int = 0,
) -> tuple[CompositeResult, HealerRun]:
    """Run ``action.yml`` for ``run`` and check what every run must keep (as ``harness.heal`` does)."""
    tag = f"{run.id}-{run.run_attempt}-{len(box.standin.requests)}"
    event = box.write_event(run, f"event-{tag}.json")
    # the job's environment: the runner's GITHUB_* and RUNNER_TEMP; inputs reach the step only through
    # action.yml (composite steps get no INPUT_* and no token of their own)
    job_env = {k: v for k, v in box.environment(event, {}, tag=tag).items() if not k.startswith("HEALER_")}
    before = len(box.standin.requests)
    runner = CompositeRunner(ROOT, job_env=job_env, github_token=github_token, restore_cache=restore_cache)
    # the sample agents are this machine's user's scripts; test_isolation runs the action with `user`
    result = runner.run({"isolation": "none", **(inputs or {})})
    box.standin.idle()
    summary_path = Path(job_env["GITHUB_STEP_SUMMARY"])
    healer = HealerRun(
        result.returncode,
        result.stdout,
        result.stderr,
        result.outputs,
        summary_path.read_text(encoding="utf-8") if summary_path.exists() else "",
        result.seconds,
        list(box.standin.requests[before:]),
    )
    detail = f"\n--- stdout ---\n{result.stdout[-6000:]}\n--- stderr ---\n{result.stderr[-4000:]}"
    assert result.returncode == expect_exit, f"exit code {result.returncode}{detail}"
    assert "Traceback (most recent call last)" not in result.stdout + result.stderr, detail
    assert_no_token(box, healer)
    for step in result.steps:
        for token in {TOKEN, github_token}:
            assert token not in repr(step.outputs), f"a token leaked into the outputs of {step.name!r}"
    if github_token != TOKEN:  # the workflow's token, unused: not even masked
        assert github_token not in result.stdout + result.stderr + repr(result.outputs) + healer.summary
    check_contract(healer.requests, box.standin.api_url)
    return result, healer


def ran(result: CompositeResult) -> list[str]:
    return [step.id or step.name for step in result.steps if step.ran]


# -- scenarios -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("inputs", "workflow_token", "warned"),
    [
        pytest.param({}, TOKEN, True, id="with-the-workflow-token"),
        pytest.param({"github-token": TOKEN}, WORKFLOW_TOKEN, False, id="with-another-token"),
    ],
)
def test_a_lint_failure_is_healed_through_every_step_of_the_action(
    box: Sandbox, inputs: dict[str, str], workflow_token: str, warned: bool
) -> None:
    pull, run = lint_pull(box)

    result, healer = act(box, run, inputs, github_token=workflow_token)

    assert ran(result) == ["python", "env", "cache", "run"]
    # the build step was skipped by its own condition, which the cache hit made false
    build = result.step("Build the ci-healer environment")
    assert not build.ran and build.condition == "steps.cache.outputs.cache-hit != 'true'"
    assert result.step("cache").outputs["cache-hit"] == "true"
    # the cache key is built from the runner, the interpreter and the lock's hash; the venv under RUNNER_TEMP
    env, cache = result.step("env"), result.step("cache")
    lock_hash = hashlib.sha256((ROOT / "requirements/action.txt").read_bytes()).hexdigest()[:16]
    assert env.outputs == {"lock-hash": lock_hash, "venv": f"{result.env['RUNNER_TEMP']}/ci-healer-venv"}
    version = result.step("python").outputs["python-version"]
    assert cache.with_ == {
        "path": env.outputs["venv"],
        "key": f"ci-healer-venv-{runner_os()}-{runner_arch()}-py{version}-{lock_hash}",
    }
    # the healer ran with the venv's interpreter and the token; whether that is the workflow's own token
    # decides the summary's warning that the fix PR starts no CI by itself
    step = result.step("run")
    assert step.env["HEALER_PYTHON"] == env.outputs["venv"] + "/bin/python"
    assert step.env["HEALER_GITHUB_TOKEN"] == TOKEN
    assert step.env["HEALER_TOKEN_IS_WORKFLOW_TOKEN"] == str(warned).lower()
    assert ("delivered with the workflow's `GITHUB_TOKEN`" in healer.summary) == warned
    assert "If `github-token` is the workflow's" not in healer.summary
    # the action's outputs come from the run step
    [fix] = box.standin.created_pulls(box.repo)
    assert result.outputs == {
        "decision": "healed",
        "attempt": "1",
        "category": "lint",
        "fix-pull-request": f"{box.standin.server_url}/{box.repo}/pull/{fix.number}",
        "frame-path": "",
        "agent-tokens": "",  # a fix rule healed it: no agent ran through the model proxy
        "bundle-path": "",  # one job (stage: all) writes no heal bundle
    }
    assert fix.base_ref == pull.head_ref and not fix.draft
    assert box.origin_refs()[f"refs/heads/{fix.head_ref}"] == fix.head_sha
    assert "lint" in healer.summary


def test_the_environment_is_saved_right_after_its_build_and_never_at_the_end_of_the_job() -> None:
    steps = ACTION["runs"]["steps"]
    uses = [str(s.get("uses", "")).partition("@")[0] for s in steps]
    # restore-only: no step saves the cache when the job ends (the action that would is not used)
    assert "actions/cache" not in uses and uses.count("actions/cache/restore") == 1
    names = [s.get("name") for s in steps]
    build = names.index("Build the ci-healer environment")
    save, run = names.index("Save the ci-healer environment"), names.index("Run ci-healer")
    assert build + 1 == save < run  # saved as built, before the healer (and any code it runs) starts
    assert steps[save]["if"] == steps[build]["if"]
    [restore] = [s for s in steps if str(s.get("uses", "")).startswith("actions/cache/restore@")]
    assert steps[save]["with"] == restore["with"]


def test_the_build_step_runs_on_a_cache_miss_or_a_restore_key_match_only() -> None:
    [build] = [s for s in ACTION["runs"]["steps"] if s.get("name") == "Build the ci-healer environment"]
    context = CompositeRunner(ROOT, job_env={"RUNNER_TEMP": "/tmp"}, github_token=TOKEN).context({})
    assert condition(build["if"], context)  # a miss: the cache step sets no cache-hit
    context.steps["cache"] = {"cache-hit": "false"}  # a restore-key match
    assert condition(build["if"], context)
    context.steps["cache"] = {"cache-hit": "true"}
    assert not condition(build["if"], context)


def test_a_dry_run_writes_nothing(box: Sandbox) -> None:
    pull, run = lint_pull(box)
    refs = box.origin_refs()

    result, healer = act(box, run, {"dry-run": "true"})

    assert result.step("run").env["HEALER_DRY_RUN"] == "true"
    assert result.outputs["decision"] == "none"
    assert result.outputs["fix-pull-request"] == ""
    assert healer.requests and {r.method for r in healer.requests} == {"GET"}
    assert box.origin_refs() == refs
    assert not box.standin.created_pulls(box.repo)
    assert not box.standin.comments(box.repo, pull.number)
    assert "dry run" in result.stdout


@pytest.mark.parametrize(
    ("inputs", "second"),
    [
        pytest.param({}, ("healed", "2"), id="default-3"),
        pytest.param({"max-attempts": "1"}, ("escalated", ""), id="set-to-1"),
    ],
)
def test_max_attempts_left_at_its_default_or_set(
    box: Sandbox, inputs: dict[str, str], second: tuple[str, str]
) -> None:
    pull, run = lint_pull(box)
    first, _ = act(box, run, inputs)
    assert first.step("run").env["HEALER_MAX_ATTEMPTS"] == inputs.get("max-attempts", "3")
    assert (first.outputs["decision"], first.outputs["attempt"]) == ("healed", "1")

    # the author pushes another commit without merging the fix: the lint job fails again
    box.push_to_pull(pull, {"README.md": "# widgets\n\nrevision 2\n"}, "Revision 2")
    run = box.add_run(pull, [("lint", "failure", lint_log(box)), ("test (3.12)", "success", PASSED)])
    result, _ = act(box, run, inputs)

    assert (result.outputs["decision"], result.outputs["attempt"]) == second
    escalations = [c for c in box.standin.comments(box.repo, pull.number) if '"kind":"escalation"' in c.body]
    assert len(escalations) == (second[0] == "escalated")


def test_with_delivery_none_the_frame_path_output_names_the_frame_under_runner_temp(box: Sandbox) -> None:
    _, run = failing_test_pull(box)

    result, _ = act(box, run, {"delivery": "none"})

    assert result.outputs["decision"] == "healed"
    frame = Path(result.outputs["frame-path"])
    assert frame.is_relative_to(result.env["RUNNER_TEMP"]) and "test_add" in frame.read_text()
    assert not box.standin.created_pulls(box.repo)


def test_a_bad_input_fails_the_run_step_with_one_error_naming_it(box: Sandbox) -> None:
    _, run = lint_pull(box)

    result, healer = act(box, run, {"delivery": "email"}, expect_exit=1)

    assert result.failed is result.step("run")
    errors = [line for line in result.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 1 and "`delivery`" in errors[0] and "email" in errors[0], result.stdout
    assert set(result.outputs.values()) == {""}
    assert {r.method for r in healer.requests} <= {"GET"}
    assert not box.standin.created_pulls(box.repo)


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        pytest.param("", (WORKFLOW_TOKEN, "true"), id="empty-is-the-workflow-token"),
        pytest.param(WORKFLOW_TOKEN, (WORKFLOW_TOKEN, "true"), id="the-workflow-token-passed-explicitly"),
        pytest.param(TOKEN, (TOKEN, "false"), id="another-token"),
    ],
)
def test_the_token_and_whether_it_is_the_workflow_token(given: str, expected: tuple[str, str]) -> None:
    [step] = [s for s in ACTION["runs"]["steps"] if s.get("id") == "run"]
    runner = CompositeRunner(ROOT, job_env={"RUNNER_TEMP": "/tmp"}, github_token=WORKFLOW_TOKEN)
    context = runner.context({"github-token": given})
    env = {
        name: interpolate(step["env"][name], context)
        for name in ("HEALER_GITHUB_TOKEN", "HEALER_TOKEN_IS_WORKFLOW_TOKEN")
    }
    assert (env["HEALER_GITHUB_TOKEN"], env["HEALER_TOKEN_IS_WORKFLOW_TOKEN"]) == expected


def _spy_venv(record: Path) -> Callable[[Path], None]:
    """A cache hit whose ``bin/python`` records the environment it was started with, then is this Python."""

    def restore(path: Path) -> None:
        tiny_venv(path)
        python = path / "bin" / "python"
        python.unlink()
        python.write_text(
            "#!/bin/sh\n"
            f"{shlex.quote(sys.executable)} -c 'import json, os, sys; json.dump(dict(os.environ), "
            f'open(sys.argv[1], "w"))\' {shlex.quote(str(record))}\n'
            f'exec {shlex.quote(sys.executable)} "$@"\n',
            encoding="utf-8",
        )
        python.chmod(0o755)

    return restore


def test_every_input_reaches_the_healer_as_its_variable(box: Sandbox, tmp_path: Path) -> None:
    declared = ACTION["inputs"]
    assert set(EVERY_INPUT) == set(declared), "add the new input to EVERY_INPUT"
    assert all(EVERY_INPUT[name] != str(spec["default"]) for name, spec in declared.items())
    _, run = lint_pull(box)
    record = tmp_path / "healer-env.json"

    # `github-token` is another token than the workflow's own (a GitHub App's, say)
    result, _ = act(box, run, EVERY_INPUT, github_token=WORKFLOW_TOKEN, restore_cache=_spy_venv(record))

    env = json.loads(record.read_text(encoding="utf-8"))
    given = {name: env.get("HEALER_" + name.upper().replace("-", "_")) for name in declared}
    assert given == {**EVERY_INPUT, "github-token": None}
    assert env["HEALER_TOKEN_IS_WORKFLOW_TOKEN"] == "false"
    # the token travels in no variable (a file the healer read and deleted), the workflow's own token in none
    assert not [k for k, v in env.items() if TOKEN in v or WORKFLOW_TOKEN in v]
    token_file = Path(env["HEALER_GITHUB_TOKEN_FILE"])
    assert token_file.parent == Path(box.root) / token_file.parent.name  # under RUNNER_TEMP
    assert not token_file.exists()
    assert env["GITHUB_ACTION_PATH"] == str(ROOT)
    assert result.outputs["decision"] == "none"  # dry-run: 'true' was among them


def test_the_agent_gets_no_token_and_no_inputs(box: Sandbox, tmp_path: Path) -> None:
    _, run = failing_test_pull(box)
    agent = write_agent(
        tmp_path / "agent",
        "report(env=dict(os.environ))\n"
        "calc = pathlib.Path('widgets/calc.py')\n"
        "calc.write_text(calc.read_text().replace('a - b', 'a + b'))\n",
    )

    result, _ = act(box, run, {"agent-command": agent})

    assert result.outputs["decision"] == "healed"
    [report] = agent_reports(tmp_path / "agent")
    env = report["env"]
    assert isinstance(env, dict)
    assert not [k for k, v in env.items() if TOKEN in v or "TOKEN" in k]
    # of the HEALER_* variables, the agent sees only those describing its task
    assert sorted(k for k in env if k.startswith("HEALER_")) == [
        "HEALER_ATTEMPT",
        "HEALER_CATEGORY",
        "HEALER_CHECKS",
        "HEALER_FIX_COMMAND_FILE",  # where it may name the one command that makes its change (learning)
        "HEALER_FRAME",
        "HEALER_MAX_ATTEMPTS",
        "HEALER_PR_NUMBER",
    ]


def test_in_a_container_job_the_lock_is_found_through_the_action_path_variable(tmp_path: Path) -> None:
    # There, ${{ github.action_path }} names the host's directory, which the container does not have.
    (tmp_path / "temp").mkdir()
    job_env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "RUNNER_TEMP": str(tmp_path / "temp"),
        "GITHUB_WORKSPACE": str(tmp_path),
    }
    host = "/home/runner/work/_actions/octo-org/ci-healer/v1"
    assert not Path(host).exists()
    runner = CompositeRunner(ROOT, job_env=job_env, github_token=TOKEN, github_action_path=host)
    context = runner.context({})

    steps = [runner.run_step(i, step, context) for i, step in enumerate(runner.steps[:2])]

    assert [step.id for step in steps] == ["python", "env"] and steps[1].returncode == 0, steps[1].stderr
    lock_hash = hashlib.sha256((ROOT / "requirements/action.txt").read_bytes()).hexdigest()[:16]
    assert steps[1].outputs["lock-hash"] == lock_hash


def test_an_unreadable_lock_fails_the_locate_step_instead_of_keying_the_cache_on_nothing(
    tmp_path: Path,
) -> None:
    action_path = tmp_path / "action"
    action_path.mkdir()
    (action_path / "action.yml").write_bytes((ROOT / "action.yml").read_bytes())
    (tmp_path / "temp").mkdir()
    job_env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "RUNNER_TEMP": str(tmp_path / "temp"),
        "GITHUB_WORKSPACE": str(tmp_path),
    }
    runner = CompositeRunner(action_path, job_env=job_env, github_token=TOKEN)

    result = runner.run({})

    assert result.failed is result.step("env") and "action.txt" in result.failed.stderr
    assert ran(result) == ["python", "env"] and "lock-hash" not in result.failed.outputs


# -- the Build step, on its own ------------------------------------------------------------------------------


def _wheel(directory: Path) -> Path:
    """A one-module wheel (``tinypkg``), built by hand so that installing it needs no index."""
    files = {
        "tinypkg/__init__.py": "VALUE = 42\n",
        "tinypkg-1.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: tinypkg\nVersion: 1.0\n",
        "tinypkg-1.0.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
    }
    record = []
    for name, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(text.encode())}")
    files["tinypkg-1.0.dist-info/RECORD"] = "\n".join([*record, "tinypkg-1.0.dist-info/RECORD,,"]) + "\n"
    directory.mkdir(parents=True)
    path = directory / "tinypkg-1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return path


def test_the_build_step_installs_the_hashed_lock_into_a_venv_without_pip(tmp_path: Path) -> None:
    # The real lock needs PyPI; the step runs here on a lock of one local wheel, with the index switched off.
    wheel = _wheel(tmp_path / "wheels")
    action_path = tmp_path / "action"
    (action_path / "requirements").mkdir(parents=True)
    (action_path / "action.yml").write_bytes((ROOT / "action.yml").read_bytes())
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    (action_path / "requirements" / "action.txt").write_text(
        f"tinypkg==1.0 \\\n    --hash=sha256:{digest}\n", encoding="utf-8"
    )
    (tmp_path / "temp").mkdir()
    job_env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(tmp_path),
        "RUNNER_TEMP": str(tmp_path / "temp"),
        "GITHUB_WORKSPACE": str(tmp_path),
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheel.parent),
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_CACHE_DIR": str(tmp_path / "pip-cache"),
    }
    runner = CompositeRunner(action_path, job_env=job_env, github_token=TOKEN)
    [index] = [i for i, s in enumerate(runner.steps) if s.get("name") == "Build the ci-healer environment"]
    context = runner.context({})
    venv = tmp_path / "temp" / "ci-healer-venv"
    context.steps.update(
        python={"python-path": sys.executable, "python-version": "3.12.0"},
        env={"venv": str(venv), "lock-hash": digest[:16]},
        cache={"cache-hit": "false"},
    )

    build = runner.run_step(index, runner.steps[index], context)

    assert build.ran and build.returncode == 0, build.stdout + build.stderr
    assert (venv / "bin" / "python").exists() and not (venv / "bin" / "pip").exists()
    sites = list(venv.glob("lib/python*/site-packages/tinypkg/__init__.py"))
    assert [p.read_text() for p in sites] == ["VALUE = 42\n"]


# -- the runner itself ---------------------------------------------------------------------------------------


def _context(**inputs: str) -> Context:
    return Context(
        inputs={"a": "", "b": "x", **inputs},
        step_ids=frozenset({"cache"}),
        github={"token": "T", "action_path": "/act"},
        runner={"os": "Linux", "arch": "X64", "temp": "/tmp/r"},
    )


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        pytest.param("inputs.a || github.token", "T", id="or-takes-the-first-truthy"),
        pytest.param("inputs.b || github.token", "x", id="or-keeps-a-truthy-left"),
        pytest.param("inputs.a == '' || inputs.a == github.token", True, id="comparisons-then-or"),
        pytest.param("inputs.b == 'X'", True, id="strings-compare-case-insensitively"),
        pytest.param("steps.cache.outputs.cache-hit != 'true'", True, id="a-missing-output-is-null"),
        pytest.param("steps.cache.outputs.cache-hit == ''", True, id="null-equals-empty-as-numbers"),
        pytest.param("inputs.b && inputs.a", "", id="and-yields-the-falsy-operand"),
        pytest.param("'it''s'", "it's", id="escaped-quote"),
        pytest.param("runner.temp", "/tmp/r", id="runner-temp"),
        pytest.param("!(inputs.a)", True, id="not-of-parentheses"),
        pytest.param("(inputs.a || inputs.b) && inputs.a", "", id="parentheses-group"),
        pytest.param("inputs.a || (inputs.b && github.token)", "T", id="parentheses-right"),
        pytest.param("startsWith(runner.temp, '/TMP')", True, id="startswith-ignores-case"),
        pytest.param("startsWith(inputs.a, 'x')", False, id="startswith-empty"),
    ],
)
def test_expressions(expression: str, value: object) -> None:
    assert evaluate(expression, _context()) == value


@pytest.mark.parametrize(
    "expression",
    [
        pytest.param("hashFiles('x')", id="functions"),
        pytest.param("hashFiles()", id="other-function"),
        pytest.param("(inputs.a", id="unclosed-parenthesis"),
        pytest.param("startsWith(inputs.b)", id="startswith-one-argument"),
        pytest.param("inputs.missing", id="undeclared-input"),
        pytest.param("steps.nope.outputs.x", id="unknown-step"),
        pytest.param("steps.cache.outcome", id="step-outcome"),
        pytest.param("github.event_name", id="other-github-property"),
        pytest.param("env.HOME", id="env-context"),
        pytest.param("inputs.a == inputs.b == inputs.a", id="chained-comparison"),
        pytest.param("inputs.a ||", id="missing-operand"),
        pytest.param("1 == 1", id="numbers"),
    ],
)
def test_unsupported_expressions_fail_loudly(expression: str) -> None:
    with pytest.raises(CompositeError):
        evaluate(expression, _context())


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        pytest.param("!cancelled()", True, id="not-cancelled"),
        pytest.param("!cancelled() && inputs.b == 'x'", True, id="not-cancelled-and"),
        pytest.param("success()", True, id="success"),
        pytest.param("failure()", False, id="failure"),
        pytest.param("!inputs.a", True, id="not-of-an-empty-input"),
        pytest.param("!inputs.b", False, id="not-of-a-value"),
    ],
)
def test_the_status_functions_and_not(expression: str, value: bool) -> None:
    # a job runs while nothing before it failed or was cancelled
    assert evaluate(expression, _context()) is value


@given(st.text())
def test_an_input_value_passes_verbatim_whatever_it_holds(value: str) -> None:
    # a value that itself looks like `${{ github.token }}` is text, never evaluated again
    context = _context(a=value)
    assert interpolate("${{ inputs.a }}", context) == value
    assert interpolate("${{ inputs.a || inputs.b }}", context) == (value or "x")


def test_templates_interpolate_and_reject_an_unclosed_expression() -> None:
    context = _context()
    assert (
        interpolate("${{ github.action_path }}/requirements/action.txt", context)
        == "/act/requirements/action.txt"
    )
    assert interpolate("py${{ inputs.b }}-${{ inputs.a == '' }}", context) == "pyx-true"
    with pytest.raises(CompositeError):
        interpolate("${{ inputs.b ", context)


def test_github_output_both_forms_and_malformed_lines() -> None:
    assert parse_outputs("a=1\nb=x=y\nbody<<EOF\nline 1\nline 2\nEOF\n\n") == {
        "a": "1",
        "b": "x=y",
        "body": "line 1\nline 2",
    }
    with pytest.raises(CompositeError):
        parse_outputs("no equals sign\n")
    with pytest.raises(CompositeError):
        parse_outputs("body<<EOF\nnever closed\n")


SHA = "0" * 40


@pytest.mark.parametrize(
    ("steps", "inputs", "given", "reason"),
    [
        pytest.param(
            [{"uses": "actions/cache@v4", "with": {"path": "/x", "key": "k"}}],
            {},
            {},
            "not pinned",
            id="unpinned",
        ),
        pytest.param([{"uses": f"actions/checkout@{SHA}"}], {}, {}, "does not know", id="unknown-action"),
        pytest.param([{"run": "true", "shell": "pwsh"}], {}, {}, "only `shell: bash`", id="other-shell"),
        pytest.param(
            [{"run": "true", "shell": "bash", "continue-on-error": True}],
            {},
            {},
            "continue-on-error",
            id="unknown-key",
        ),
        pytest.param(
            [{"run": "true", "shell": "bash"}],
            {},
            {"nope": "1"},
            "does not declare: nope",
            id="undeclared-input",
        ),
        pytest.param(
            [{"run": "true", "shell": "bash"}],
            {"token": {"default": "${{ github.token }}"}},
            {},
            "input defaults",
            id="expression-in-a-default",
        ),
        pytest.param(
            [{"run": 'echo "X=1" >> "$GITHUB_ENV"', "shell": "bash"}],
            {},
            {},
            "wrote GITHUB_ENV",
            id="writes-github-env",
        ),
        pytest.param(
            [{"run": 'echo "broken" >> "$GITHUB_OUTPUT"', "shell": "bash"}],
            {},
            {},
            "malformed line",
            id="bad-output-line",
        ),
    ],
)
def test_the_runner_refuses_what_it_does_not_support(
    tmp_path: Path,
    steps: list[dict[str, Any]],
    inputs: dict[str, Any],
    given: dict[str, str],
    reason: str,
) -> None:
    action = {"name": "t", "inputs": inputs, "runs": {"using": "composite", "steps": steps}}
    (tmp_path / "action.yml").write_text(yaml.safe_dump(action), encoding="utf-8")
    job_env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "RUNNER_TEMP": str(tmp_path),
        "GITHUB_WORKSPACE": str(tmp_path),
    }
    runner = CompositeRunner(tmp_path, job_env=job_env, github_token=TOKEN)

    with pytest.raises(CompositeError, match=re.escape(reason)):
        runner.run(given)
