"""A minimal runner for one job of a called (reusable) workflow, for tests: its steps in order, as the Actions
runner runs them, with the healer's own action run through :class:`composite.CompositeRunner`.

It supports exactly what ``.github/workflows/ci-healer.yml`` uses, and fails loudly (:class:`CompositeError`)
on anything else:

- expressions as :mod:`composite` evaluates them, over the contexts of a called job: ``inputs.NAME`` (the
  workflow's inputs, defaults applied: a number as its text, a boolean as a boolean), ``secrets.NAME``
  (only those the workflow declares; one not passed is empty), ``github.token``, ``github.event_name``,
  ``github.event.…`` (read from the event file), ``job.workflow_repository`` / ``job.workflow_sha`` (the
  called workflow's repository and commit), ``env.NAME`` (the job's ``env:``), ``steps.ID.outputs.NAME``;
- the job's ``if:`` (when asked) and ``env:``, and each step's ``if:``;
- ``uses: actions/checkout@<sha>``: without ``repository`` the workspace is already the default branch's
  checkout; with ``repository``, ``ref`` and ``path`` it must name the called workflow's own repository and
  commit, and ``path`` then holds the action (a link to this checkout of it);
- ``uses: actions/setup-python@<sha>`` (nothing to do: this interpreter), ``uses:
  actions/create-github-app-token@<sha>`` (outputs ``token``, ``app-slug``);
- ``uses: actions/upload-artifact@<sha>`` and ``actions/download-artifact@<sha>``: an artifact is a folder of
  ``artifacts`` (the run's artifact store) named as the step names it; a download takes only an artifact of
  this run (no ``run-id``, no ``github-token``) into its ``path``;
- ``needs.JOB.outputs.NAME`` (the outputs of the jobs this one needs, given as ``needs``), the job's
  ``outputs:`` (:attr:`JobResult.outputs`), ``github.run_id`` and ``github.run_attempt``, and the status
  functions ``success()``, ``failure()``, ``cancelled()``, ``always()`` with ``!``;
- ``run:`` steps, as ``bash --noprofile --norc -eo pipefail`` from ``GITHUB_WORKSPACE``;
- ``uses: ./PATH``: the composite action at ``PATH`` under the workspace, with the step's ``with:`` as its
  inputs and the step's ``env:`` added to the job's environment.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from composite import (
    CompositeError,
    CompositeResult,
    CompositeRunner,
    Context,
    Value,
    condition,
    interpolate,
    scalar,
    tiny_venv,
)

from healer.demo.sandbox import run_child

_PINNED = re.compile(r"[0-9a-f]{40}")
_CHECKOUT_WITH = frozenset({"repository", "ref", "path", "token", "persist-credentials"})
_APP_TOKEN_WITH = re.compile(r"app-id|private-key|permission-[a-z-]+")


def load_workflow(path: Path) -> dict[str, Any]:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if True in data:  # YAML 1.1 reads the bare key `on` as True
        data["on"] = data.pop(True)
    return data


@dataclass
class JobContext(Context):
    """The contexts of a called workflow's job (see the module's docstring)."""

    secrets: Mapping[str, str] = field(default_factory=dict)
    job: Mapping[str, str] = field(default_factory=dict)
    env: Mapping[str, str] = field(default_factory=dict)
    workflow_inputs: Mapping[str, Value] = field(default_factory=dict)
    event: Mapping[str, Any] = field(default_factory=dict)
    needs: Mapping[str, Mapping[str, str]] = field(default_factory=dict)  # job → its outputs

    def lookup(self, path: str) -> Value:
        parts = path.split(".")
        head = parts[0]
        if head == "needs" and len(parts) == 4 and parts[2] == "outputs":
            if parts[1] not in self.needs:
                raise CompositeError(f"`{path}`: the job does not need {parts[1]!r}")
            return self.needs[parts[1]].get(parts[3])
        if head == "inputs" and len(parts) == 2:
            if parts[1] not in self.workflow_inputs:
                raise CompositeError(f"`{path}`: the workflow declares no input {parts[1]!r}")
            return self.workflow_inputs[parts[1]]
        if head == "secrets" and len(parts) == 2:
            if parts[1] not in self.secrets:
                raise CompositeError(f"`{path}`: the workflow declares no secret {parts[1]!r}")
            return self.secrets[parts[1]]
        if head == "job" and len(parts) == 2 and parts[1] in self.job:
            return self.job[parts[1]]
        if head == "env" and len(parts) == 2:
            return self.env.get(parts[1], "")
        if head == "github" and len(parts) >= 2 and parts[1] == "event":
            value: Any = self.event
            for part in parts[2:]:
                value = value.get(part) if isinstance(value, dict) else None
            return value if value is None or isinstance(value, str | bool) else json.dumps(value)
        return super().lookup(path)


@dataclass
class JobStep:
    """One step of the job: whether it ran and what it did."""

    name: str
    id: str
    ran: bool
    with_: dict[str, str] = field(default_factory=dict)
    env: dict[str, str] = field(default_factory=dict)
    outputs: dict[str, str] = field(default_factory=dict)
    returncode: int = 0
    stdout: str = ""
    stderr: str = ""
    action: CompositeResult | None = None  # a `uses: ./PATH` step: the composite action's own result


@dataclass
class JobResult:
    steps: list[JobStep]
    env: dict[str, str]  # the job's `env:`, evaluated
    outputs: dict[str, str] = field(default_factory=dict)  # the job's `outputs:`, evaluated at its end

    def step(self, name: str) -> JobStep:
        for step in self.steps:
            if name in (step.id, step.name):
                return step
        raise KeyError(name)

    @property
    def action(self) -> CompositeResult:
        [result] = [step.action for step in self.steps if step.action is not None]
        return result


class CalledJob:
    """Runs job ``job_id`` of the reusable workflow at ``workflow_path`` in ``job_env`` (the runner's
    environment of the job, ``GITHUB_WORKSPACE`` the default branch's checkout).

    ``action_source`` is the checkout of the called workflow's repository at ``workflow_sha``: a checkout step
    that names that repository and commit puts it at its ``path``."""

    def __init__(
        self,
        workflow_path: Path,
        job_id: str,
        *,
        job_env: Mapping[str, str],
        github_token: str,
        workflow_repository: str,
        workflow_sha: str,
        action_source: Path,
        app_token: str = "",
        restore_cache: Callable[[Path], None] = tiny_venv,
        timeout: float = 60.0,
        needs: Mapping[str, Mapping[str, str]] | None = None,
        artifacts: Path | None = None,
    ) -> None:
        self.workflow = load_workflow(workflow_path)
        self.call = self.workflow["on"]["workflow_call"]
        self.job_id = job_id
        self.job: dict[str, Any] = self.workflow["jobs"][job_id]
        self.job_env = dict(job_env)
        self.github_token = github_token
        self.workflow_repository = workflow_repository
        self.workflow_sha = workflow_sha
        self.action_source = action_source
        self.app_token = app_token
        self.restore_cache = restore_cache
        self.timeout = timeout
        self.workspace = Path(self.job_env["GITHUB_WORKSPACE"])
        self.needs = dict(needs or {})
        declared = self.job.get("needs")
        wanted = {declared} if isinstance(declared, str) else set(declared or ())
        if set(self.needs) - wanted:
            raise CompositeError(f"job {job_id!r} does not need {sorted(set(self.needs) - wanted)}")
        self.artifacts = artifacts

    def context(self, inputs: Mapping[str, Any], secrets: Mapping[str, str]) -> JobContext:
        declared: dict[str, Any] = self.call.get("inputs") or {}
        unknown = sorted(set(inputs) - set(declared)) + sorted(
            set(secrets) - set(self.call.get("secrets") or {})
        )
        if unknown:
            # GitHub refuses a caller that passes an input or secret the called workflow does not declare
            raise CompositeError(f"inputs or secrets the workflow does not declare: {', '.join(unknown)}")
        values: dict[str, Value] = {}
        for name, spec in declared.items():
            value = inputs.get(name, spec.get("default", False if spec["type"] == "boolean" else ""))
            values[name] = value if isinstance(value, bool) else scalar(value)
            if spec["type"] == "boolean" and not isinstance(values[name], bool):
                raise CompositeError(f"input {name!r} is a boolean, not {value!r}")
        event_path = Path(self.job_env["GITHUB_EVENT_PATH"])
        return JobContext(
            inputs={},
            step_ids=frozenset(str(s["id"]) for s in self.job["steps"] if "id" in s),
            github={
                "token": self.github_token,
                "event_name": self.job_env["GITHUB_EVENT_NAME"],
                "run_id": self.job_env.get("GITHUB_RUN_ID", ""),
                "run_attempt": self.job_env.get("GITHUB_RUN_ATTEMPT", "1"),
            },
            runner={"temp": self.job_env["RUNNER_TEMP"]},
            secrets={name: secrets.get(name, "") for name in self.call.get("secrets") or {}},
            job={"workflow_repository": self.workflow_repository, "workflow_sha": self.workflow_sha},
            workflow_inputs=values,
            event=json.loads(event_path.read_text(encoding="utf-8")),
            needs=self.needs,
        )

    def runs(self, inputs: Mapping[str, Any] | None = None, secrets: Mapping[str, str] | None = None) -> bool:
        """Whether the job's ``if:`` lets it run for this event."""
        return condition(self.job["if"], self.context(inputs or {}, secrets or {}))

    def run(
        self, inputs: Mapping[str, Any] | None = None, secrets: Mapping[str, str] | None = None
    ) -> JobResult:
        """Every step in order; the first failing step ends the job."""
        context = self.context(inputs or {}, secrets or {})
        job_env = {name: interpolate(value, context) for name, value in (self.job.get("env") or {}).items()}
        context.env = job_env
        results: list[JobStep] = []
        for index, step in enumerate(self.job["steps"]):
            result = JobStep(str(step.get("name", f"step {index}")), str(step.get("id", "")), ran=True)
            results.append(result)
            if "if" in step and not condition(step["if"], context):
                result.ran = False
                continue
            result.env = {
                name: interpolate(value, context) for name, value in (step.get("env") or {}).items()
            }
            result.with_ = {
                name: interpolate(value, context) for name, value in (step.get("with") or {}).items()
            }
            if "run" in step:
                self._run(str(step["run"]), {**job_env, **result.env}, result)
            elif str(step.get("uses", "")).startswith("./"):
                self._action(str(step["uses"]), {**job_env, **result.env}, result)
            else:
                self._uses(str(step.get("uses", "")), result)
            if result.id:
                context.steps[result.id] = result.outputs
            if result.returncode != 0:
                break
        outputs = {
            name: interpolate(value, context) for name, value in (self.job.get("outputs") or {}).items()
        }
        return JobResult(results, job_env, outputs)

    def _run(self, script: str, env: Mapping[str, str], result: JobStep) -> None:
        argv = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script]
        result.returncode, result.stdout, result.stderr, _ = run_child(
            argv, cwd=self.workspace, env={**self.job_env, **env}, timeout=self.timeout
        )

    def _uses(self, uses: str, result: JobStep) -> None:
        action, _, ref = uses.partition("@")
        if not _PINNED.fullmatch(ref):
            raise CompositeError(f"{uses!r} is not pinned to a full commit")
        if action == "actions/checkout":
            unknown = sorted(set(result.with_) - _CHECKOUT_WITH)
            if unknown or result.with_.get("persist-credentials") != "false":
                raise CompositeError(f"actions/checkout: {result.with_}")
            if "repository" not in result.with_:
                return  # the default branch's checkout: the workspace already is one
            wanted = (result.with_["repository"], result.with_.get("ref"))
            if wanted != (self.workflow_repository, self.workflow_sha):
                raise CompositeError(f"checks out {wanted}, not the called workflow's own commit")
            target = self.workspace / result.with_["path"]
            if target.parent.resolve() != self.workspace.resolve():
                raise CompositeError(f"checkout path {result.with_['path']!r} is not in the workspace")
            if target.is_symlink():  # an earlier job's checkout in the same sandbox: checkout replaces it
                target.unlink()
            target.symlink_to(self.action_source, target_is_directory=True)
        elif action == "actions/setup-python":
            result.outputs = {"python-path": "python3"}
        elif action in ("actions/upload-artifact", "actions/download-artifact"):
            self._artifact(action, result)
        elif action == "actions/create-github-app-token":
            if not all(_APP_TOKEN_WITH.fullmatch(name) for name in result.with_):
                raise CompositeError(f"actions/create-github-app-token: {sorted(result.with_)}")
            if not (result.with_.get("app-id") and result.with_.get("private-key")):
                raise CompositeError("actions/create-github-app-token: no app-id or private key")
            result.outputs = {"token": self.app_token, "app-slug": "heal-bot"}
        else:
            raise CompositeError(f"the test runner does not know {action!r}")

    def _artifact(self, action: str, result: JobStep) -> None:
        """An artifact of this run: a folder of the store, named as the step names it."""
        if self.artifacts is None:
            raise CompositeError(f"{action}: the test gave this job no artifact store")
        given = result.with_
        name = given.get("name", "")
        if not name or "/" in name or name.startswith("."):
            raise CompositeError(f"{action}: an artifact name {name!r}")
        store = self.artifacts / name
        if action == "actions/upload-artifact":
            if set(given) - {"name", "path", "retention-days", "if-no-files-found"}:
                raise CompositeError(f"{action}: {sorted(given)}")
            source = Path(given["path"])
            if not source.exists():
                if given.get("if-no-files-found") == "error":
                    result.returncode, result.stderr = 1, f"no files were found with {source}"
                return
            store.mkdir(parents=True)
            shutil.copy2(source, store / source.name)
            return
        # a download from another run needs `run-id` and a token; this runner knows only this run's artifacts
        if set(given) - {"name", "path"}:
            raise CompositeError(f"{action}: {sorted(given)}")
        if not store.is_dir():
            result.returncode, result.stderr = 1, f"Unable to find an artifact with the name: {name}"
            return
        shutil.copytree(store, Path(given["path"]), dirs_exist_ok=True)

    def _action(self, uses: str, env: Mapping[str, str], result: JobStep) -> None:
        path = self.workspace / uses.removeprefix("./")
        runner = CompositeRunner(
            path,
            job_env={**self.job_env, **env},
            github_token=self.github_token,
            restore_cache=self.restore_cache,
            timeout=self.timeout,
        )
        result.action = runner.run(result.with_)
        result.outputs = dict(result.action.outputs)
        result.returncode = result.action.returncode
        result.stdout, result.stderr = result.action.stdout, result.action.stderr
