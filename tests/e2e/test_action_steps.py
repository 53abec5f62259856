"""End to end through ``action.yml`` itself, in a real Actions engine: a workflow that uses ``octo-org/ci-
healer@<commit>`` runs under nektos/act (see :mod:`actengine`), with the actions the action pins (setup-python
from the tool cache, cache restore and save against act's cache server), its expressions, its
``$GITHUB_OUTPUT`` files and its outputs, against the GitHub stand-in and a real ``origin``.

act gives each job a new ``RUNNER_TEMP``, so the venv's cache never hits (the cache's version includes the
path): every run here builds the environment from the lock and saves it, and the skip of a hit is not
exercised."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
import zipfile
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
import yaml
from actengine import HEALER_REPOSITORY, Act, ActRun, requires_act
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
# A Python that records the environment of the first process that has the healer's variables (the healer
# itself; the build step's pip has none) in $HEALER_ENV_RECORD, then goes on as usual.
SPY = """\
import json, os
if "HEALER_STAGE" in os.environ and os.environ.get("HEALER_ENV_RECORD"):
    try:
        with open(os.environ["HEALER_ENV_RECORD"], "x") as record:
            json.dump(dict(os.environ), record)
    except FileExistsError:
        pass
"""


def literal(value: str) -> str:
    """``value`` as a workflow writes a text holding ``${{``: the engine evaluates it to the text itself."""
    return value.replace("${{", "${{ '${{' }}")


def workflow(sha: str, inputs: Mapping[str, str]) -> str:
    """A workflow_run workflow whose job checks out the default branch and uses the action, then writes the
    action's outputs to ``$RESULT_FILE`` and, as a later step that reads the frame would, copies the frame
    (act removes the job's ``RUNNER_TEMP`` when the job ends) to ``$RESULT_FILE.frame``."""
    given = "".join(f"          {name}: {json.dumps(literal(value))}\n" for name, value in inputs.items())
    return (
        "name: CI healer\n"
        "on: workflow_run\n"
        "jobs:\n"
        "  heal:\n"
        "    runs-on: ubuntu-latest\n"
        "    steps:\n"
        "      - uses: actions/checkout@08c6903cd8c0fde910a37f88322edcfb5dd907a8\n"
        "        with:\n"
        "          persist-credentials: false\n"
        "      - id: healer\n"
        f"        uses: {HEALER_REPOSITORY}@{sha}\n"
        + (f"        with:\n{given}" if given else "")
        + "      - if: always()\n"
        "        env:\n"
        "          OUTPUTS: ${{ toJSON(steps.healer.outputs) }}\n"
        "          FRAME: ${{ steps.healer.outputs.frame-path }}\n"
        "        run: |\n"
        '          printf \'%s\' "$OUTPUTS" > "$RESULT_FILE"\n'
        '          if [ -n "$FRAME" ]; then cp "$FRAME" "$RESULT_FILE.frame"; fi\n'
    )


def act(
    box: Sandbox,
    engine: Act,
    run: Run,
    inputs: Mapping[str, str] | None = None,
    *,
    github_token: str = TOKEN,
    env: Mapping[str, str] | None = None,
    expect_exit: int = 0,
) -> tuple[ActRun, HealerRun]:
    """Run the action for ``run`` under act and check what every run must keep (as ``harness.heal`` does)."""
    event = box.write_event(run, f"event-{run.id}-{len(box.standin.requests)}.json")
    before = len(box.standin.requests)
    # the sample agents are this machine's user's scripts; test_isolation runs the action with `user`
    result = engine.run(
        workflow(engine.healer_sha, {"isolation": "none", **(inputs or {})}),
        "workflow_run",
        event,
        token=github_token,
        env=dict(env or {}),
    )
    outputs = {k: str(v) for k, v in result.results.items()}
    healer = HealerRun(
        result.returncode,
        result.output("heal"),
        result.stderr,
        outputs,
        result.summary("heal"),
        0.0,
        list(box.standin.requests[before:]),
    )
    assert result.returncode == expect_exit, f"exit code {result.returncode}\n{result.detail}"
    assert "Traceback (most recent call last)" not in healer.stdout, result.detail
    assert_no_token(box, healer)
    assert not result.unmasked(TOKEN), "the token reached act's log unmasked"
    if github_token != TOKEN:  # the workflow's token, unused: not even masked
        assert github_token not in healer.stdout + repr(outputs) + healer.summary
    check_contract(healer.requests, box.standin.api_url)
    return result, healer


# -- scenarios -----------------------------------------------------------------------------------------------


@requires_act
@pytest.mark.parametrize(
    ("inputs", "workflow_token", "warned"),
    [
        pytest.param({}, TOKEN, True, id="with-the-workflow-token"),
        pytest.param({"github-token": TOKEN}, TOKEN, True, id="the-workflow-token-passed-explicitly"),
        pytest.param({"github-token": TOKEN}, WORKFLOW_TOKEN, False, id="with-another-token"),
    ],
)
def test_a_lint_failure_is_healed_through_every_step_of_the_action(
    box: Sandbox, engine: Act, inputs: dict[str, str], workflow_token: str, warned: bool
) -> None:
    pull, run = lint_pull(box)

    result, healer = act(box, engine, run, inputs, github_token=workflow_token)

    # act's cache never hits (see the module's docstring): the environment is built, then saved at once
    assert result.ran("heal", action="healer") == ["python", "env", "cache", "3", "save", "run"]
    log = result.output("heal")
    lock_hash = hashlib.sha256((ROOT / "requirements/action.txt").read_bytes()).hexdigest()[:16]
    assert "Successfully set up CPython (3.12." in log
    assert "Heal attempt 1 of 3" in log  # max-attempts, left out, arrives as its default
    # the cache key is built from the runner, the interpreter and the lock's hash
    assert "Cache saved with key: ci-healer-venv-Linux-X64-py3.12." in log and f"-{lock_hash}\n" in log
    # whether the token is the workflow's own decides the summary's warning that the fix PR starts no CI
    assert ("delivered with the workflow's `GITHUB_TOKEN`" in healer.summary) == warned
    assert "If `github-token` is the workflow's" not in healer.summary
    # the action's outputs come from the run step
    [fix] = box.standin.created_pulls(box.repo)
    assert result.results == {
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
    assert steps[save]["if"] == steps[build]["if"] == "steps.cache.outputs.cache-hit != 'true'"
    [restore] = [s for s in steps if str(s.get("uses", "")).startswith("actions/cache/restore@")]
    assert steps[save]["with"] == restore["with"]


@requires_act
def test_a_dry_run_writes_nothing(box: Sandbox, engine: Act) -> None:
    pull, run = lint_pull(box)
    refs = box.origin_refs()

    result, healer = act(box, engine, run, {"dry-run": "true"})

    assert result.results["decision"] == "none"
    assert result.results["fix-pull-request"] == ""
    assert healer.requests and {r.method for r in healer.requests} == {"GET"}
    assert box.origin_refs() == refs
    assert not box.standin.created_pulls(box.repo)
    assert not box.standin.comments(box.repo, pull.number)
    assert "dry run" in healer.stdout


@requires_act
def test_max_attempts_set_to_1_escalates_the_second_failure(box: Sandbox, engine: Act) -> None:
    # (left at its default, 3, it reaches the healer too: "Heal attempt 1 of 3" in the test above)
    pull, run = lint_pull(box)
    first, _ = act(box, engine, run, {"max-attempts": "1"})
    assert (first.results["decision"], first.results["attempt"]) == ("healed", "1")
    assert "Heal attempt 1 of 1" in first.output("heal")

    # the author pushes another commit without merging the fix: the lint job fails again
    box.push_to_pull(pull, {"README.md": "# widgets\n\nrevision 2\n"}, "Revision 2")
    run = box.add_run(pull, [("lint", "failure", lint_log(box)), ("test (3.12)", "success", PASSED)])
    result, _ = act(box, engine, run, {"max-attempts": "1"})

    assert (result.results["decision"], result.results["attempt"]) == ("escalated", "")
    escalations = [c for c in box.standin.comments(box.repo, pull.number) if '"kind":"escalation"' in c.body]
    assert len(escalations) == 1


@requires_act
def test_with_delivery_none_the_frame_path_output_names_the_frame_under_runner_temp(
    box: Sandbox, engine: Act
) -> None:
    _, run = failing_test_pull(box)

    result, _ = act(box, engine, run, {"delivery": "none"})

    assert result.results["decision"] == "healed"
    frame = Path(str(result.results["frame-path"]))
    # act's RUNNER_TEMP: a folder `tmp` of the job's own under act's cache; a later step read the frame there
    assert frame.is_relative_to(engine.cache) and "tmp" in frame.relative_to(engine.cache).parts
    [copied] = engine.where.glob("result-*.json.frame")
    assert "test_add" in copied.read_text()
    assert not box.standin.created_pulls(box.repo)


@requires_act
def test_a_bad_input_fails_the_run_step_with_one_error_naming_it(box: Sandbox, engine: Act) -> None:
    _, run = lint_pull(box)

    result, healer = act(box, engine, run, {"delivery": "email"}, expect_exit=1)

    failed = [s.ids for s in result.steps if s.stage == "Main" and s.result == "failure"]
    assert failed == [("healer", "run"), ("healer",)], "the run step failed, and with it the action"
    errors = [line for line in healer.stdout.splitlines() if line.startswith("::error")]
    errors += [str(line["msg"]) for line in result.lines if "::error" in str(line.get("msg", ""))]
    assert any("`delivery`" in e and "email" in e for e in errors), result.detail
    assert set(result.results.values()) == {""}
    assert {r.method for r in healer.requests} <= {"GET"}
    assert not box.standin.created_pulls(box.repo)


@requires_act
def test_every_input_reaches_the_healer_as_its_variable(box: Sandbox, engine: Act, tmp_path: Path) -> None:
    declared = ACTION["inputs"]
    assert set(EVERY_INPUT) == set(declared), "add the new input to EVERY_INPUT"
    assert all(EVERY_INPUT[name] != str(spec["default"]) for name, spec in declared.items())
    _, run = lint_pull(box)
    spy = tmp_path / "spy"
    spy.mkdir()
    (spy / "sitecustomize.py").write_text(SPY, encoding="utf-8")
    record = tmp_path / "healer-env.json"

    # `github-token` is another token than the workflow's own (a GitHub App's, say)
    result, _ = act(
        box,
        engine,
        run,
        EVERY_INPUT,
        github_token=WORKFLOW_TOKEN,
        env={"PYTHONPATH": str(spy), "HEALER_ENV_RECORD": str(record)},
    )

    env = json.loads(record.read_text(encoding="utf-8"))
    given = {name: env.get("HEALER_" + name.upper().replace("-", "_")) for name in declared}
    # every value verbatim, `${{ github.token }}` in the agent command too: text, never evaluated again
    assert given == {**EVERY_INPUT, "github-token": None}
    assert env["HEALER_TOKEN_IS_WORKFLOW_TOKEN"] == "false"
    # the token travels in no variable (a file the healer read and deleted), the workflow's own token in none.
    # (act, unlike GitHub's runner, also hands a composite action's steps its inputs as INPUT_* variables.)
    held = [k for k, v in env.items() if TOKEN in v or WORKFLOW_TOKEN in v]
    assert [k for k in held if not k.startswith("INPUT_")] == []
    token_file = Path(env["HEALER_GITHUB_TOKEN_FILE"])
    assert token_file.parent == Path(env["RUNNER_TEMP"]) and not token_file.exists()
    assert env["HEALER_PYTHON"] == f"{env['RUNNER_TEMP']}/ci-healer-venv/bin/python"
    # the healer ran from the action's own folder at the commit the workflow named
    assert Path(env["GITHUB_ACTION_PATH"]).name == f"octo-org-ci-healer@{engine.healer_sha}"
    assert result.results["decision"] == "none"  # dry-run: 'true' was among them


@requires_act
def test_the_agent_gets_no_token_and_no_inputs(box: Sandbox, engine: Act, tmp_path: Path) -> None:
    _, run = failing_test_pull(box)
    agent = write_agent(
        tmp_path / "agent",
        "report(env=dict(os.environ))\n"
        "calc = pathlib.Path('widgets/calc.py')\n"
        "calc.write_text(calc.read_text().replace('a - b', 'a + b'))\n",
    )

    result, _ = act(box, engine, run, {"agent-command": agent})

    assert result.results["decision"] == "healed"
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
    # nor the runner's own variables that would let it talk to the engine (the cache and artifact servers)
    assert not [k for k in env if k.startswith("ACTIONS_")]


# -- the steps' scripts, on their own ------------------------------------------------------------------------


def _step(name: str) -> dict[str, Any]:
    [step] = [s for s in ACTION["runs"]["steps"] if s.get("name") == name]
    return step


def _bash(script: str, env: Mapping[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    # as the runner runs a `shell: bash` step
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=cwd,
        env=dict(env),
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_lock_is_found_through_the_action_path_variable_never_the_expression() -> None:
    # In a `container:` job ${{ github.action_path }} names the host's directory, which the container does not
    # have (actions/runner#2185); $GITHUB_ACTION_PATH is right in both
    for step in ACTION["runs"]["steps"]:
        assert "github.action_path" not in json.dumps(step), step.get("name")
    assert '"$GITHUB_ACTION_PATH/requirements/action.txt"' in _step("Locate the ci-healer environment")["run"]


def test_an_unreadable_lock_fails_the_locate_step_instead_of_keying_the_cache_on_nothing(
    tmp_path: Path,
) -> None:
    output = tmp_path / "output"
    output.write_text("")
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "GITHUB_ACTION_PATH": str(tmp_path / "action-without-its-lock"),
        "GITHUB_OUTPUT": str(output),
        "RUNNER_TEMP": str(tmp_path),
    }

    done = _bash(_step("Locate the ci-healer environment")["run"], env, tmp_path)

    assert done.returncode != 0 and "action.txt" in done.stderr
    assert "lock-hash" not in output.read_text()


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
    digest = hashlib.sha256(wheel.read_bytes()).hexdigest()
    (action_path / "requirements" / "action.txt").write_text(
        f"tinypkg==1.0 \\\n    --hash=sha256:{digest}\n", encoding="utf-8"
    )
    venv = tmp_path / "temp" / "ci-healer-venv"
    build = _step("Build the ci-healer environment")
    # the step's env: as action.yml maps it, with setup-python's interpreter and the located venv
    assert build["env"] == {
        "PYTHON": "${{ steps.python.outputs.python-path }}",
        "VENV": "${{ steps.env.outputs.venv }}",
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
    }
    env = {
        "PATH": os.environ.get("PATH", os.defpath),
        "HOME": str(tmp_path),
        "RUNNER_TEMP": str(tmp_path / "temp"),
        "GITHUB_ACTION_PATH": str(action_path),
        "PYTHON": sys.executable,
        "VENV": str(venv),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "PIP_NO_INDEX": "1",
        "PIP_FIND_LINKS": str(wheel.parent),
        "PIP_CONFIG_FILE": os.devnull,
        "PIP_CACHE_DIR": str(tmp_path / "pip-cache"),
    }

    done = _bash(build["run"], env, tmp_path)

    assert done.returncode == 0, done.stdout + done.stderr
    assert (venv / "bin" / "python").exists() and not (venv / "bin" / "pip").exists()
    sites = list(venv.glob("lib/python*/site-packages/tinypkg/__init__.py"))
    assert [p.read_text() for p in sites] == ["VALUE = 42\n"]
