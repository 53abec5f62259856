"""The reusable workflow (``.github/workflows/ci-healer.yml``) and the caller that calls it
(``examples/caller.yml``): every action input is offered one for one and reaches the action, every secret is
declared and used, the action runs at the workflow's own commit, and the caller stays a few lines.

What holds for every workflow (pins, grants with comments, time limits, no expression in a script) is checked
in ``test_workflows.py``; this file checks what is particular to calling the healer.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

ROOT = Path(__file__).resolve().parent.parent
REUSABLE = ROOT / ".github" / "workflows" / "ci-healer.yml"
CALLER = ROOT / "examples" / "caller.yml"
EXAMPLE = ROOT / "examples" / "ci-healer.yml"
ACTION_INPUTS: dict[str, dict[str, Any]] = yaml.safe_load((ROOT / "action.yml").read_text("utf-8"))["inputs"]

# Action inputs a repository sets through a secret of the reusable workflow instead of an input.
AS_SECRETS = {
    "github-token": "CI_HEALER_TOKEN",  # a token is a secret; the App's token, when configured, comes first
    "ledger-key": "CI_HEALER_LEDGER_KEY",  # the signing key is a secret (README, "Signed ledger")
    "agent-api-key": "CI_HEALER_AGENT_API_KEY",  # a model key is a secret (SECURITY.md, "Model keys")
}
# Action inputs the reusable workflow deliberately does not offer, each with its reason.
NOT_OFFERED: dict[str, str] = {
    "stage": "the workflow runs both stages itself: its heal job, then its deliver job",
    "bundle-path": "the workflow passes the bundle from job to job as an artifact of the run",
}
# The workflow's own inputs (the job around the action), and where each one must arrive.
OWN_INPUTS = {"runs-on", "timeout-minutes", "python-version", "agent-install", "ci-healer-ref"}
# The agents' keys, as the README's agent recipes name them; each reaches the action step's environment.
MODEL_KEYS = {"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "CODEX_API_KEY", "GEMINI_API_KEY"}
HEALER_PATH = ".ci-healer"  # where each job checks the action out, at the workflow's own commit
LOCATE = "Find this workflow's repository and commit"  # the step that stops without that commit


def load(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if True in data:  # YAML 1.1 reads the bare key `on` as True
        data["on"] = data.pop(True)
    return data


WORKFLOW = load(REUSABLE)
CALL = WORKFLOW["on"]["workflow_call"]
JOBS: dict[str, dict[str, Any]] = WORKFLOW["jobs"]


def healer_step(job: dict[str, Any]) -> dict[str, Any]:
    [step] = [s for s in job["steps"] if s.get("uses") == f"./{HEALER_PATH}"]
    return step


def expected_type(default: str) -> tuple[str, Any]:
    """The type and default an action input gets as a workflow input: numbers and booleans are typed (a caller
    writes `max-attempts: 3`), the rest are strings."""
    if default.isdigit():
        return "number", int(default)
    if default in ("true", "false"):
        return "boolean", default == "true"
    return "string", default


def test_every_action_input_is_offered_one_for_one_with_the_actions_description_and_default() -> None:
    offered = set(CALL["inputs"]) - OWN_INPUTS
    assert offered | set(AS_SECRETS) | set(NOT_OFFERED) == set(ACTION_INPUTS), "a new action input: offer it"
    assert not offered & (set(AS_SECRETS) | set(NOT_OFFERED))
    assert all(len(reason) > 20 for reason in NOT_OFFERED.values())
    for name in offered:
        spec = CALL["inputs"][name]
        kind, default = expected_type(ACTION_INPUTS[name]["default"])
        assert (spec["type"], spec["default"]) == (kind, default), name
        assert spec["description"] == ACTION_INPUTS[name]["description"], f"{name}: the action's description"
        assert not spec.get("required", False), f"{name}: the action's default applies when it is not given"
    for name, secret in AS_SECRETS.items():
        assert secret in CALL["secrets"], name


@pytest.mark.parametrize("job_id", ["heal", "deliver", "command"])
def test_every_offered_input_and_secret_reaches_the_action_under_its_own_name(job_id: str) -> None:
    given = healer_step(JOBS[job_id])["with"]
    # the deliver job runs no agent: no model key reaches it
    keys = {"agent-api-key"} if job_id == "deliver" else set()
    assert set(given) == set(ACTION_INPUTS) - keys, "the action gets every input"
    for name in set(ACTION_INPUTS) - set(AS_SECRETS) - set(NOT_OFFERED):
        assert given[name] == f"${{{{ inputs.{name} }}}}", name
    assert given["ledger-key"] == "${{ secrets.CI_HEALER_LEDGER_KEY }}"
    if job_id != "deliver":
        assert given["agent-api-key"] == "${{ secrets.CI_HEALER_AGENT_API_KEY }}"
    stage = {"heal": "heal", "deliver": "deliver", "command": "all"}[job_id]
    assert given.get("stage", "all") == stage
    if job_id == "heal":
        # the job's own token, which may only read: no App token, no caller's token
        assert given["github-token"] == "${{ github.token }}"
        assert JOBS["heal"]["permissions"] == {
            "contents": "read", "pull-requests": "read", "actions": "read", "checks": "read", "issues": "read"
        }  # fmt: skip
    else:
        # the App's token when the App is configured, else the caller's token, else the job's own
        token = "${{ steps.app-token.outputs.token || secrets.CI_HEALER_TOKEN || github.token }}"
        assert given["github-token"] == token


def test_the_workflows_own_inputs_arrive_where_they_act() -> None:
    for job_id, job in JOBS.items():
        assert job["runs-on"] == "${{ inputs.runs-on }}", job_id
    for job_id in ("heal", "command"):
        job = JOBS[job_id]
        assert job["timeout-minutes"] == "${{ inputs.timeout-minutes }}"
        # the job's limit leaves the agent its own limit and the set-up some room
        agent_limit = int(ACTION_INPUTS["agent-timeout-minutes"]["default"])
        assert CALL["inputs"]["timeout-minutes"]["default"] > agent_limit
        [python] = [s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/setup-python@")]
        assert python["if"] == "inputs.python-version != ''"
        assert python["with"] == {"python-version": "${{ inputs.python-version }}"}
        [install] = [s for s in job["steps"] if s.get("name") == "Set up the agent"]
        assert install["if"] == "inputs.agent-install != ''"
        # the caller's command reaches the shell as data in the environment, never pasted into the script
        assert install["env"] == {"AGENT_INSTALL": "${{ inputs.agent-install }}"}
        assert "${{" not in install["run"] and '"$AGENT_INSTALL"' in install["run"]
        steps = job["steps"]
        assert steps.index(install) < steps.index(healer_step(job)), "the agent comes before the healer"
    assert JOBS["dashboard"]["if"] == "inputs.dashboard && github.event_name == 'schedule'"
    # nothing else reads an input the workflow does not declare, and every declared input is read
    text = REUSABLE.read_text(encoding="utf-8").split("\njobs:\n", 1)[1]
    used = set(re.findall(r"\binputs\.([\w-]+)", text))
    assert used == set(CALL["inputs"])


def test_every_secret_is_declared_optional_and_used_and_the_model_keys_reach_the_agent() -> None:
    declared = set(CALL["secrets"])
    text = REUSABLE.read_text(encoding="utf-8").split("\njobs:\n", 1)[1]
    used = set(re.findall(r"\bsecrets\.([\w-]+)", text))
    assert used == declared, "a secret declared and not used, or used and not declared"
    assert declared >= MODEL_KEYS
    assert not any(spec.get("required") for spec in CALL["secrets"].values()), "the caller picks its agent"
    for job_id in ("heal", "command"):
        env = healer_step(JOBS[job_id])["env"]
        assert env == {key: f"${{{{ secrets.{key} }}}}" for key in MODEL_KEYS}
    # the jobs that start no agent get no model key
    for job_id in ("close-fix-prs", "dashboard"):
        assert not any(key in str(JOBS[job_id]) for key in MODEL_KEYS), job_id


def test_the_retry_command_heals_in_one_job_with_the_deliver_jobs_grants() -> None:
    # a `/ci-healer retry` heals in one job (stage: all): the heal job's set-up, the deliver job's token
    command, heal, deliver = JOBS["command"], JOBS["heal"], JOBS["deliver"]
    assert command["permissions"] == deliver["permissions"]
    assert command["env"] == deliver["env"]
    names = [s.get("name") for s in command["steps"]]
    assert [n for n in names if n in ("Set up Python", "Set up the agent")] == [
        "Set up Python",
        "Set up the agent",
    ]
    assert healer_step(command)["env"] == healer_step(heal)["env"]


@pytest.mark.parametrize("job_id", ["heal", "deliver", "close-fix-prs", "command", "dashboard"])
def test_every_job_runs_the_action_at_the_workflows_own_commit(job_id: str) -> None:
    steps = JOBS[job_id]["steps"]
    healer = healer_step(JOBS[job_id])
    [own] = [s for s in steps if s.get("with", {}).get("path") == HEALER_PATH]
    assert str(own["uses"]).startswith("actions/checkout@")
    # `github.workflow_sha` and `github.repository` would be the caller's (the github context is the
    # caller's): the locate step reads `job.workflow_*`, else the caller's `ci-healer-ref`, and checks it
    assert own["with"]["repository"] == "${{ steps.locate.outputs.repository }}"
    assert own["with"]["ref"] == "${{ steps.locate.outputs.sha }}"
    assert own["with"]["persist-credentials"] is False
    [locate] = [s for s in steps if s.get("id") == "locate"]
    assert locate["env"] == {
        "WORKFLOW_REPOSITORY": "${{ job.workflow_repository }}",
        "WORKFLOW_SHA": "${{ job.workflow_sha }}",
        "CI_HEALER_REF": "${{ inputs.ci-healer-ref }}",
    }
    assert steps.index(locate) < steps.index(own) < steps.index(healer)
    assert "${{" not in locate["run"], "the values reach the script through env: only"
    # the same step in every job
    assert locate == next(s for s in JOBS["heal"]["steps"] if s.get("id") == "locate")


@pytest.mark.parametrize("job_id", ["close-fix-prs", "dashboard"])
def test_the_jobs_without_a_heal_check_out_nothing_of_the_caller_and_run_no_command(job_id: str) -> None:
    steps = JOBS[job_id]["steps"]
    checkouts = [s for s in steps if str(s.get("uses", "")).startswith("actions/checkout@")]
    assert [c["with"].get("path") for c in checkouts] == [HEALER_PATH], "only the action itself"
    assert [s["name"] for s in steps if "run" in s] == [LOCATE]
    given = set(healer_step(JOBS[job_id])["with"])
    # `learn`: the closed-PR job proposes the rule a merged fix taught (docs/learning.md)
    allowed = {"github-token", "config-file", "bot-login", "ledger-key", "dashboard", "report-window"}
    allowed.add("learn")
    assert given <= allowed


def test_the_jobs_run_on_the_same_events_and_with_the_same_grants_as_the_copied_example() -> None:
    example = load(EXAMPLE)["jobs"]
    for job_id in ("heal", "deliver", "close-fix-prs", "command"):
        assert JOBS[job_id]["if"] == example[job_id]["if"], job_id
        assert JOBS[job_id]["permissions"] == example[job_id]["permissions"], job_id
    grants = JOBS["dashboard"]["permissions"]
    # reads everything it reports on; writes only the dashboard issue
    assert grants == {
        "contents": "read",
        "pull-requests": "read",
        "actions": "read",
        "checks": "read",
        "issues": "write",
    }


def _locate(env: dict[str, str], tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], dict[str, str]]:
    [step] = [s for s in JOBS["heal"]["steps"] if s.get("name") == LOCATE]
    output = tmp_path / "github-output"
    output.write_text("")
    given = {"WORKFLOW_REPOSITORY": "", "WORKFLOW_SHA": "", "CI_HEALER_REF": "", **env}
    result = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step["run"]],
        env={"PATH": "/usr/bin:/bin", "GITHUB_OUTPUT": str(output), **given},
        capture_output=True,
        text=True,
        check=False,
    )
    lines = output.read_text().splitlines()
    return result, dict(line.split("=", 1) for line in lines)


SHA = "0123456789abcdef" * 2 + "01234567"
OTHER = "fedcba9876543210" * 2 + "76543210"


@pytest.mark.parametrize(
    "env",
    [
        pytest.param({}, id="no-job-workflow-context-and-no-ci-healer-ref"),
        pytest.param({"WORKFLOW_REPOSITORY": "octo-org/ci-healer"}, id="no-commit"),
        pytest.param({"WORKFLOW_SHA": SHA}, id="no-repository"),
        pytest.param(
            {"WORKFLOW_REPOSITORY": "octo-org/ci-healer", "WORKFLOW_SHA": "main"}, id="a-branch-name"
        ),
        # a broken job context is not patched up with the input
        pytest.param(
            {"WORKFLOW_SHA": "main", "CI_HEALER_REF": f"octo-org/ci-healer@{SHA}"},
            id="context-broken-ref-set",
        ),
        pytest.param({"CI_HEALER_REF": "octo-org/ci-healer@v1"}, id="ref-a-tag"),
        pytest.param({"CI_HEALER_REF": "octo-org/ci-healer@main"}, id="ref-a-branch"),
        pytest.param({"CI_HEALER_REF": SHA}, id="ref-without-repository"),
        pytest.param({"CI_HEALER_REF": f"octo-org/ci-healer/x@{SHA}"}, id="ref-a-path"),
        pytest.param({"CI_HEALER_REF": f"octo-org/ci-healer@{SHA}\nrepository=evil/x"}, id="ref-two-lines"),
        pytest.param({"CI_HEALER_REF": f"$(id)/x@{SHA}"}, id="ref-a-command"),
    ],
)
def test_without_the_workflows_own_commit_the_job_stops_before_its_checkout(
    env: dict[str, str], tmp_path: Path
) -> None:
    # actions/checkout given an empty repository and ref checks out the caller's own repository, and
    # `uses: ./.ci-healer` would then run whatever the caller keeps there
    result, outputs = _locate(env, tmp_path)
    assert result.returncode == 1
    assert outputs == {}, "nothing for the checkout to use"
    [error] = [line for line in result.stdout.splitlines() if line.startswith("::error::")]
    assert "ci-healer-ref" in error and "examples/ci-healer.yml" in error
    assert "uid=" not in result.stdout + result.stderr


@pytest.mark.parametrize(
    ("env", "found"),
    [
        pytest.param(
            {"WORKFLOW_REPOSITORY": "octo-org/ci-healer", "WORKFLOW_SHA": SHA},
            ("octo-org/ci-healer", SHA),
            id="the-job-context",
        ),
        # a caller's stale ci-healer-ref (Dependabot moved only the `uses:` line) does not win over GitHub's
        pytest.param(
            {
                "WORKFLOW_REPOSITORY": "octo-org/ci-healer",
                "WORKFLOW_SHA": SHA,
                "CI_HEALER_REF": f"a/b@{OTHER}",
            },
            ("octo-org/ci-healer", SHA),
            id="the-job-context-over-the-input",
        ),
        pytest.param(
            {"CI_HEALER_REF": f"octo-org/ci-healer@{SHA}"},
            ("octo-org/ci-healer", SHA),
            id="no-job-context-the-input",
        ),
    ],
)
def test_with_the_workflows_own_commit_the_job_goes_on(
    env: dict[str, str], found: tuple[str, str], tmp_path: Path
) -> None:
    result, outputs = _locate(env, tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "::error::" not in result.stdout
    assert (outputs["repository"], outputs["sha"]) == found
    assert f"ci-healer: {found[0]}@{found[1]}" in result.stdout


# -- the caller ----------------------------------------------------------------------------------------------


def test_the_caller_is_short_and_calls_the_reusable_workflow() -> None:
    lines = CALLER.read_text(encoding="utf-8").splitlines()
    code = [line for line in lines if line.strip() and not line.lstrip().startswith("#")]
    assert len(code) <= 25, f"{len(code)} lines besides comments"
    data = load(CALLER)
    assert data["on"] == {
        "workflow_run": {"workflows": ["CI"], "types": ["completed"]},
        "pull_request_target": {"types": ["closed"]},
        "issue_comment": {"types": ["created"]},
    }
    [(job_id, job)] = data["jobs"].items()
    target = job["uses"]
    assert re.fullmatch(r"your-org/ci-healer/\.github/workflows/ci-healer\.yml@\S+", target), target
    text = CALLER.read_text(encoding="utf-8")
    # the placeholder says how to pin it, and how the pin is kept current
    pinned = r"#\s+uses: your-org/ci-healer/\.github/workflows/ci-healer\.yml@<40-hex commit sha>\s+# v"
    assert re.search(pinned, text)
    assert "Dependabot" in text and "Renovate" in text and "package-ecosystem: github-actions" in text
    # the opt-in dashboard: a commented schedule and the input it needs
    assert re.search(r"^\s*#\s*schedule:", text, re.MULTILINE) and "dashboard: true" in text
    # and the edits of the dashboard issue whose ticked boxes the command job runs
    assert re.search(r"^\s*#\s*issues:\n\s*#\s*types: \[edited\]", text, re.MULTILINE)


def test_the_caller_grants_what_the_called_jobs_ask_for_and_passes_only_what_they_declare() -> None:
    job = next(iter(load(CALLER)["jobs"].values()))
    # GitHub refuses a called job that asks for more than the calling job grants; the caller grants no more
    # than the called jobs ask for together
    asked: dict[str, str] = {}
    for called in JOBS.values():
        for scope, level in called["permissions"].items():
            asked[scope] = "write" if "write" in (level, asked.get(scope)) else level
    assert job["permissions"] == asked
    assert set(job.get("with", {})) <= set(CALL["inputs"])
    assert isinstance(job.get("secrets"), dict), "name the secrets (not `secrets: inherit`)"
    assert set(job["secrets"]) <= set(CALL["secrets"])
    for name, value in job["secrets"].items():
        assert value == f"${{{{ secrets.{name} }}}}", name
    # the caller's command lines hold no expression: they reach shells in the called jobs
    assert not any("${{" in str(value) for value in job.get("with", {}).values())


def test_the_docs_list_every_input_and_secret_with_its_default() -> None:
    text = (ROOT / "docs" / "reusable-workflow.md").read_text(encoding="utf-8")
    rows = {m.group(1): m.group(0) for m in re.finditer(r"^\| `([\w-]+)` \|.*$", text, re.MULTILINE)}
    for name, spec in CALL["inputs"].items():
        assert name in rows, f"docs/reusable-workflow.md: no row for the input {name}"
        default = str(spec["default"]).lower() if isinstance(spec["default"], bool) else str(spec["default"])
        assert f"| {spec['type']} | " in rows[name], name
        assert (f"`{default}`" if default else "|  |") in rows[name], name
    for name in CALL["secrets"]:
        assert f"`{name}`" in text, f"docs/reusable-workflow.md: the secret {name} is not listed"


def test_zizmor_finds_nothing_in_the_reusable_workflow_and_the_caller() -> None:
    zizmor = shutil.which("zizmor") or shutil.which("zizmor", path=str(Path(sys.executable).parent))
    if zizmor is None:
        pytest.skip("zizmor is not installed (.ci/run installs it)")
    result = subprocess.run(
        [zizmor, "--offline", "--no-progress", str(REUSABLE), str(CALLER)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr


@pytest.mark.parametrize("job_id", ["deliver", "command"])
def test_the_apps_token_is_narrowed_to_the_jobs_own_grants_and_the_heal_job_mints_none(job_id: str) -> None:
    # (the App's token step runs for real only against GitHub: the stand-in serves no App endpoints)
    job = JOBS[job_id]
    [app] = [s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/create-github-app-token@")]
    assert app["id"] == "app-token" and app["if"] == "env.CI_HEALER_APP == 'true'"
    assert job["env"]["CI_HEALER_APP"] == (
        "${{ secrets.CI_HEALER_APP_ID != '' && secrets.CI_HEALER_APP_PRIVATE_KEY != '' }}"
    )
    asked = {f"permission-{scope}": level for scope, level in job["permissions"].items()}
    assert {k: v for k, v in app["with"].items() if k.startswith("permission-")} == asked
    assert app["with"]["app-id"] == "${{ secrets.CI_HEALER_APP_ID }}"
    # the heal job runs the pull request's code: no App token is ever minted on its machine
    assert not [s for s in JOBS["heal"]["steps"] if "create-github-app-token" in str(s.get("uses", ""))]
