"""Static checks on the workflow files and ``action.yml``: least privilege, pinned actions, time limits,
and no expression of attacker-controlled text inside a shell script.

These hold for the project's own workflows and for the example a maintainer copies; zizmor checks more, in CI.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from healer.change.bundle import BUNDLE_NAME
from healer.config import Config
from healer.run.bundles import bundle_file

ROOT = Path(__file__).resolve().parent.parent
WORKFLOWS = sorted((ROOT / ".github" / "workflows").glob("*.yml"))
EXAMPLE = ROOT / "examples" / "ci-healer.yml"
CALLER = ROOT / "examples" / "caller.yml"
ACTION = ROOT / "action.yml"
ALL_WORKFLOWS = [*WORKFLOWS, EXAMPLE, CALLER]

SHA_PIN = re.compile(r"^[\w.-]+/[\w./-]+@[0-9a-f]{40}$")
# The examples name the healer itself (its action, its reusable workflow) by a placeholder the maintainer
# replaces (it has no release yet).
PLACEHOLDER = "your-org/ci-healer"
EXPRESSION = re.compile(r"\$\{\{(.*?)\}\}", re.DOTALL)
# Contexts an attacker can fill (a branch name, a PR title, a comment, an input the caller passed through).
UNTRUSTED = re.compile(r"\b(?:github\.event\b|github\.head_ref\b|inputs\.|steps\.[\w-]+\.outputs\.|env\.)")
JOB_PERMISSION_LINE = re.compile(r"^\s+[a-z-]+:\s*(?:read|write|none)\s*(#.*)?$")


def ids(paths: list[Path]) -> list[str]:
    return [p.relative_to(ROOT).as_posix() for p in paths]


def load(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert isinstance(data, dict), f"{path} is not a YAML mapping"
    # YAML 1.1 reads the bare key `on` as the boolean True.
    if True in data:
        data["on"] = data.pop(True)
    return data


def steps(data: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    """(job id, step) for every step of a workflow, or of a composite action (job id "")."""
    if "jobs" in data:
        for job_id, job in data["jobs"].items():
            for step in job.get("steps", []):
                yield job_id, step
    else:
        for step in data.get("runs", {}).get("steps", []):
            yield "", step


def uses_lines(path: Path) -> Iterator[tuple[int, str]]:
    """Every `uses:` in the file's text, commented-out ones included (a maintainer uncomments them as is)."""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        match = re.match(r"^\s*#?\s*-?\s*uses:\s*(\S+)(.*)$", line)
        if match:
            yield number, line


def test_the_files_exist() -> None:
    names = {p.name for p in WORKFLOWS}
    assert {"ci.yml", "selftest.yml", "ci-healer.yml"} <= names
    assert EXAMPLE.is_file() and CALLER.is_file()


def time_limit(data: dict[str, Any], job: dict[str, Any]) -> Any:
    """A job's ``timeout-minutes``: a number, or in a reusable workflow ``${{ inputs.NAME }}`` of a number
    input, whose default then counts (a caller may raise it, as it may raise `agent-timeout-minutes`)."""
    timeout = job.get("timeout-minutes")
    match = re.fullmatch(r"\$\{\{ inputs\.([\w-]+) \}\}", str(timeout))
    if match:
        spec = data["on"]["workflow_call"]["inputs"][match.group(1)]
        assert spec["type"] == "number", f"{timeout}: not a number input"
        return spec["default"]
    return timeout


@pytest.mark.parametrize("path", ALL_WORKFLOWS, ids=ids(ALL_WORKFLOWS))
def test_nothing_is_granted_at_the_top(path: Path) -> None:
    assert load(path).get("permissions") == {}, "set `permissions: {}` at the top; grant per job"


@pytest.mark.parametrize("path", ALL_WORKFLOWS, ids=ids(ALL_WORKFLOWS))
def test_every_job_has_a_time_limit_and_explicit_commented_permissions(path: Path) -> None:
    data = load(path)
    text = path.read_text(encoding="utf-8").splitlines()
    for job_id, job in data["jobs"].items():
        if "uses" in job:
            # a job that calls a reusable workflow takes no `timeout-minutes` (GitHub's "Supported keywords
            # for jobs that call a reusable workflow"): the called jobs have their own; it still grants them
            assert "timeout-minutes" not in job and "steps" not in job, f"job {job_id}"
        else:
            timeout = time_limit(data, job)
            assert isinstance(timeout, int) and 0 < timeout <= 60, f"job {job_id}: timeout {timeout!r}"
        assert isinstance(job.get("permissions"), dict), f"job {job_id}: no explicit permissions"
        for scope, level in job["permissions"].items():
            assert level in ("read", "write", "none"), f"job {job_id}: {scope}: {level}"
    # Every grant says why, on its own line.
    grants = [line for line in text if JOB_PERMISSION_LINE.match(line)]
    assert grants, "no per-job grants found"
    for line in grants:
        assert "#" in line, f"a permission without a comment saying why: {line.strip()!r}"


@pytest.mark.parametrize("path", [*ALL_WORKFLOWS, ACTION], ids=[*ids(ALL_WORKFLOWS), "action.yml"])
def test_remote_actions_are_pinned_by_commit_sha_with_a_version_comment(path: Path) -> None:
    if not path.exists():
        pytest.skip(f"{path.name} does not exist yet")
    found = 0
    data = load(path)
    called = [job["uses"] for job in data.get("jobs", {}).values() if "uses" in job]
    found += sum(not target.startswith(("./", PLACEHOLDER)) for target in called)
    for _, step in steps(data):
        target = step.get("uses")
        if target is None or target.startswith(("./", "docker://")) or target.startswith(PLACEHOLDER):
            continue
        found += 1
        assert SHA_PIN.match(target), f"{target} is not pinned by a full commit SHA"
    for number, line in uses_lines(path):
        target = line.split("uses:", 1)[1].split()[0]
        if target.startswith(("./", "docker://", PLACEHOLDER)):
            continue
        assert SHA_PIN.match(target), f"line {number}: {target} is not pinned by a full commit SHA"
        assert re.search(r"#\s*v\d+\.\d+\.\d+\b", line), f"line {number}: no `# vX.Y.Z` comment"
    if path not in (ACTION, CALLER):  # the caller's only `uses:` is the healer's own placeholder
        assert found, "expected at least one remote action"


@pytest.mark.parametrize("path", [*ALL_WORKFLOWS, ACTION], ids=[*ids(ALL_WORKFLOWS), "action.yml"])
def test_no_untrusted_expression_inside_a_script(path: Path) -> None:
    """``${{ }}`` is pasted into the script before the shell sees it: untrusted text there is code.

    Workflows pass values to scripts through ``env:`` only. ``action.yml`` may use runner paths
    (``${{ github.action_path }}``), never inputs, event fields or step outputs.
    """
    if not path.exists():
        pytest.skip(f"{path.name} does not exist yet (it is the action's composite definition)")
    for job_id, step in steps(load(path)):
        script = step.get("run")
        if script is None:
            continue
        for expression in EXPRESSION.findall(script):
            where = f"job {job_id or '(action)'}, step {step.get('name') or step.get('id') or script[:30]!r}"
            assert path == ACTION, f"{where}: `${{{{{expression}}}}}` inside run:; pass it through env:"
            assert not UNTRUSTED.search(expression), f"{where}: `${{{{{expression}}}}}` inside run:"


@pytest.mark.parametrize("path", ALL_WORKFLOWS, ids=ids(ALL_WORKFLOWS))
def test_checkouts_leave_no_credentials_behind(path: Path) -> None:
    for job_id, step in steps(load(path)):
        if str(step.get("uses", "")).startswith("actions/checkout@"):
            assert step.get("with", {}).get("persist-credentials") is False, (
                f"job {job_id}: persist-credentials"
            )


@pytest.mark.parametrize("path", WORKFLOWS, ids=ids(WORKFLOWS))
def test_runs_are_grouped(path: Path) -> None:
    data = load(path)
    if "workflow_call" in data["on"]:
        # the healer's reusable workflow: its runs must not share a group (see the next test)
        assert "concurrency" not in data and not any("concurrency" in job for job in data["jobs"].values())
        return
    assert "concurrency" in data or all("concurrency" in job for job in data["jobs"].values())


def test_the_example_loses_no_healer_run_to_a_concurrency_group() -> None:
    # GitHub keeps at most one running and one pending job per concurrency group and cancels the pending one
    # when a newer one joins, whatever `cancel-in-progress` says ("Using concurrency", GitHub Actions docs):
    # a group shared by several healer runs loses all but the newest queued one. Overlap is safe (claims).
    data = load(EXAMPLE)
    assert "concurrency" not in data
    for job_id, job in data["jobs"].items():
        group = job.get("concurrency")
        assert group is None or "github.run_id" in str(group), f"job {job_id} shares a concurrency group"
    text = EXAMPLE.read_text(encoding="utf-8")
    assert "cancels the pending one" in text, "the comment says what GitHub does"


def test_ci_runs_the_checks_on_every_supported_python() -> None:
    data = load(ROOT / ".github" / "workflows" / "ci.yml")
    assert data["name"] == "CI"  # the name the example's `workflow_run` listens to
    matrix = data["jobs"]["test"]["strategy"]["matrix"]["python-version"]
    assert matrix == ["3.10", "3.11", "3.12", "3.13"]
    scripts = "\n".join(step.get("run", "") for _, step in steps(data))
    for command in (
        "ruff check",
        "ruff format --check",
        "mypy healer",
        "python -m pytest",
        "zizmor --offline",
    ):
        assert command in scripts, command


def test_selftest_runs_the_action_from_the_checkout_in_dry_run() -> None:
    data = load(ROOT / ".github" / "workflows" / "selftest.yml")
    local = [(job, step) for job, step in steps(data) if str(step.get("uses", "")).startswith("./")]
    assert len({job for job, _ in local}) >= 3, "one job per feature"
    for job, step in local:
        assert step.get("with", {}).get("dry-run") is not None, f"job {job}: the self-test must not write"
    # Jobs expected to fail: the step may fail, and the next step asserts that it did.
    expected_failures = [(job, step) for job, step in local if step.get("continue-on-error")]
    assert expected_failures
    for job, step in expected_failures:
        following = data["jobs"][job]["steps"]
        after = following[following.index(step) + 1 :]
        assert any(f"steps.{step['id']}.outcome" in str(s.get("env", {})) for s in after), job


WRITE_GRANTS = {
    "contents": "write",
    "pull-requests": "write",
    "actions": "write",
    "checks": "read",
    "issues": "write",
}
READ_GRANTS = {
    "contents": "read",
    "pull-requests": "read",
    "actions": "read",
    "checks": "read",
    "issues": "read",
}
UPLOAD = "actions/upload-artifact@"
DOWNLOAD = "actions/download-artifact@"


def test_the_example_heals_in_a_job_that_may_only_read_and_delivers_in_one_that_runs_no_pr_code() -> None:
    data = load(EXAMPLE)
    assert data["on"]["workflow_run"] == {"workflows": ["CI"], "types": ["completed"]}
    heal, deliver = data["jobs"]["heal"], data["jobs"]["deliver"]
    for job in (heal, deliver):
        assert "github.event_name == 'workflow_run'" in job["if"] and "conclusion" in job["if"]
        # a job stopped by `timeout-minutes` ends `cancelled`: those runs must reach the healer
        assert "conclusion != 'cancelled'" not in job["if"]
        checkout = next(s for s in job["steps"] if str(s.get("uses", "")).startswith("actions/checkout@"))
        assert "ref" not in checkout.get("with", {}), "check out the default branch, never the PR head"
    assert heal["permissions"] == READ_GRANTS
    assert deliver["permissions"] == WRITE_GRANTS
    assert deliver["needs"] == "heal" and "!cancelled()" in deliver["if"]
    [heal_step] = [s for s in heal["steps"] if str(s.get("uses", "")).startswith(PLACEHOLDER)]
    [deliver_step] = [s for s in deliver["steps"] if str(s.get("uses", "")).startswith(PLACEHOLDER)]
    assert heal_step["with"]["stage"] == "heal" and deliver_step["with"]["stage"] == "deliver"
    # both plan the same run: the same inputs but the stage, the token and where the bundle is
    own = {"stage", "github-token", "bundle-path"}
    assert {k: v for k, v in heal_step["with"].items() if k not in own} == {
        k: v for k, v in deliver_step["with"].items() if k not in own
    }
    # Secrets reach the agent through env:, not through an expression in its command line; the deliver job,
    # where no agent runs, gets no model key
    assert "${{" not in heal_step["with"]["agent-command"]
    assert any("secrets." in str(value) for value in heal_step.get("env", {}).values())
    assert "env" not in deliver_step and "secrets." not in str(deliver_step["with"])
    assert not any(s.get("name") == "Set up the agent" for s in deliver["steps"])
    # the bundle travels as an artifact of this run, named for it, from the heal job to the deliver job only
    [upload] = [s for s in heal["steps"] if str(s.get("uses", "")).startswith(UPLOAD)]
    [download] = [s for s in deliver["steps"] if str(s.get("uses", "")).startswith(DOWNLOAD)]
    name = "ci-healer-bundle-${{ github.run_id }}-${{ github.run_attempt }}"
    assert upload["with"]["name"] == download["with"]["name"] == name
    assert "run-id" not in download["with"] and "github-token" not in download["with"], "this run's artifact"
    # the deliver step reads the bundle where the download puts it: its default `bundle-path`, set by nobody
    assert "bundle-path" not in deliver_step["with"]
    assert download["with"]["path"] == "${{ runner.temp }}/ci-healer-bundle"
    assert bundle_file(Config(), Path("/runner-temp")) == Path("/runner-temp/ci-healer-bundle") / BUNDLE_NAME
    assert heal["outputs"]["bundle"] == "${{ steps.heal.outputs.bundle-path != '' }}"
    assert download["if"] == "needs.heal.outputs.bundle == 'true'"
    text = EXAMPLE.read_text(encoding="utf-8")
    assert "PLACEHOLDER" in text and "actions/create-github-app-token@" in text


def test_the_example_obeys_comment_commands_only_from_new_pull_request_comments() -> None:
    data = load(EXAMPLE)
    assert data["on"]["issue_comment"] == {"types": ["created"]}
    command = data["jobs"]["command"]
    # only new /ci-healer comments on pull requests, never by bots; the comment is never pasted into the file
    for condition in (
        "github.event_name == 'issue_comment'",
        "github.event.issue.pull_request",
        "startsWith(github.event.comment.body, '/ci-healer')",
        "github.event.comment.user.type != 'Bot'",
    ):
        assert condition in command["if"]
    # a retry heals in one job (`stage: all`), with the deliver job's grants
    assert command["permissions"] == data["jobs"]["deliver"]["permissions"]
    # no concurrency group: GitHub cancels a group's pending job when a newer one joins; claims order runs
    assert "concurrency" not in command
    checkout = next(s for s in command["steps"] if str(s.get("uses", "")).startswith("actions/checkout@"))
    assert "ref" not in checkout.get("with", {}), "check out the default branch, never the PR head"
    healer = next(s for s in command["steps"] if str(s.get("uses", "")).startswith(PLACEHOLDER))
    assert "${{" not in healer["with"]["agent-command"]
    assert "comment" not in str(healer)


def test_the_example_runs_a_box_ticked_in_the_dashboard_in_the_command_job() -> None:
    from healer.text.dashboard import DASHBOARD_MARKER

    data = load(EXAMPLE)
    assert data["on"]["issues"] == {"types": ["edited"]}
    command = data["jobs"]["command"]
    # a person's body edit of an issue a bot opened that starts with the dashboard's marker; the healer checks
    # the rest (its own login, the editor's permission, the boxes' references) from the event file
    for condition in (
        "github.event_name == 'issues'",
        "github.event.issue.user.type == 'Bot'",
        "github.event.sender.type != 'Bot'",
        "github.event.changes.body",
        f"startsWith(github.event.issue.body, '{DASHBOARD_MARKER}')",
    ):
        assert condition in command["if"]
    # no other job runs on it
    for job_id, job in data["jobs"].items():
        if job_id != "command":
            assert "'issues'" not in str(job.get("if", "")), job_id


def test_the_example_closes_fix_prs_when_a_pr_closes_without_running_its_code() -> None:
    # `pull_request_target` runs with secrets and a write token: the job must check out and run nothing of the
    # PR (GitHub Security Lab, "Preventing pwn requests"); it only calls the API to close fix PRs.
    data = load(EXAMPLE)
    assert data["on"]["pull_request_target"] == {"types": ["closed"]}
    job = data["jobs"]["close-fix-prs"]
    assert job["if"] == "github.event_name == 'pull_request_target'"
    assert job["permissions"] == {"contents": "write", "pull-requests": "write"}
    assert not any(str(s.get("uses", "")).startswith("actions/checkout@") for s in job["steps"])
    assert not any("run" in s for s in job["steps"])
    [heal] = job["steps"]
    # no inputs: the job's own token (the default) closes the fix PRs
    assert str(heal["uses"]).startswith(PLACEHOLDER) and not heal.get("with")


def test_suppressed_findings_say_why() -> None:
    """A zizmor finding is only ever suppressed inline, with its reason on the same line or the next."""
    for path in [*ALL_WORKFLOWS, ACTION]:
        if not path.exists():
            continue
        lines = path.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines):
            match = re.search(r"zizmor: ignore\[[\w-]+\](.*)$", line)
            if match:
                reason = match.group(1).strip() or lines[number + 1].strip().lstrip("#").strip()
                assert len(reason) > 15, f"{path.name}:{number + 1}: a suppression without a reason"


def test_the_action_exposes_the_documented_outputs() -> None:
    if not ACTION.exists():
        pytest.skip("action.yml does not exist yet")
    data = load(ACTION)
    assert data["runs"]["using"] == "composite"
    assert {"decision", "attempt", "category", "fix-pull-request", "frame-path"} <= set(
        data.get("outputs", {})
    )
    for _, step in steps(data):
        if "run" in step:
            assert step.get("shell"), "a composite run step needs a shell"


def _cut_of(shown: Any, full: Any, where: str = "") -> list[str]:
    """Where ``shown`` is not a cut of ``full``: every key it has, ``full`` has with the same value
    (recursively); every item of a list matches an item of ``full``'s list, in the same order; scalars are
    equal."""
    if isinstance(shown, dict) and isinstance(full, dict):
        problems = []
        for key, value in shown.items():
            if key not in full:
                problems.append(f"{where}.{key} is not in the example")
            else:
                problems.extend(_cut_of(value, full[key], f"{where}.{key}"))
        return problems
    if isinstance(shown, list) and isinstance(full, list):
        rest = iter(enumerate(full))
        for number, item in enumerate(shown):
            if not any(not _cut_of(item, candidate) for _, candidate in rest):
                return [f"{where}[{number}] matches no later item of the example"]
        return []
    return [] if shown == full else [f"{where}: {shown!r} is {full!r} in the example"]


@pytest.mark.parametrize(
    ("shown", "full", "problems"),
    [
        pytest.param({"a": {"b": 1}}, {"a": {"b": 1, "c": 2}, "d": 3}, 0, id="fewer-keys"),
        pytest.param({"a": 2}, {"a": 1}, 1, id="other-value"),
        pytest.param({"e": 1}, {"a": 1}, 1, id="unknown-key"),
        pytest.param(
            [{"id": "x"}, {"id": "z"}], [{"id": "x", "n": 1}, {"id": "y"}, {"id": "z"}], 0, id="cut-steps"
        ),
        pytest.param([{"id": "z"}, {"id": "x"}], [{"id": "x"}, {"id": "z"}], 1, id="steps-out-of-order"),
    ],
)
def test_a_cut_keeps_only_what_the_example_has(shown: Any, full: Any, problems: int) -> None:
    assert len(_cut_of(shown, full)) == problems


def test_the_readme_shows_the_audited_workflows() -> None:
    """Each workflow the README shows is one zizmor audits: the caller (``examples/caller.yml``) as it is, or
    a cut of ``examples/ci-healer.yml`` (fewer keys, triggers and steps, but nothing the example does not
    have, and each job it shows with the example's permissions). The README links the full example."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "(examples/ci-healer.yml)" in readme, "the README does not link the full example"
    blocks = re.findall(r"```ya?ml\n(.*?)```", readme, re.DOTALL)
    shown = [block for block in blocks if re.search(r"^\s*workflow_run:", block, re.MULTILINE)]
    assert shown, "the README shows no healer workflow"
    example, caller = load(EXAMPLE), load(CALLER)
    for block in shown:
        data = yaml.safe_load(block)
        if True in data:
            data["on"] = data.pop(True)
        if data == caller:
            continue  # the caller, as it is (comments aside)
        assert not _cut_of(data, example), _cut_of(data, example)
        assert data["permissions"] == example["permissions"] == {}
        for name, job in data["jobs"].items():
            assert job["permissions"] == example["jobs"][name]["permissions"], name


def test_the_example_reports_weekly_and_keeps_its_dashboard_without_running_any_code() -> None:
    data = load(EXAMPLE)
    assert data["on"]["schedule"] == [{"cron": "17 6 * * 1"}] and "workflow_dispatch" in data["on"]
    job = data["jobs"]["dashboard"]
    assert job["if"] == "github.event_name == 'schedule' || github.event_name == 'workflow_dispatch'"
    assert job["permissions"] == {"contents": "read", "pull-requests": "read", "issues": "write"}
    [step] = job["steps"]
    assert str(step["uses"]).startswith(PLACEHOLDER) and step["with"]["dashboard"] is True
    # the other jobs stay on their own events: a scheduled run heals nothing and obeys no command
    for other in ("heal", "close-fix-prs", "command"):
        assert "schedule" not in data["jobs"][other]["if"]
