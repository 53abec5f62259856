"""Running ``healer run`` in a :class:`healer.demo.sandbox.Sandbox`: the event payload, the Actions
environment of the healer's step, the child process, and what it left behind (:class:`HealerRun`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import healer
from healer.demo.api import Api
from healer.demo.sample import workflow_run_event
from healer.demo.standin import StandIn
from healer.demo.state import Pull, RecordedRequest, Run

_HEALER_ROOT = str(Path(healer.__file__).resolve().parent.parent)


def run_child(
    argv: list[str], *, cwd: Path, env: Mapping[str, str], timeout: float
) -> tuple[int, str, str, int]:
    """Run a child process to its end: exit code, stdout, stderr and its own peak memory in KiB.

    ``os.wait4`` reports the resources of exactly this child (``RUSAGE_CHILDREN`` would mix in every child
    this process ever had); where it is missing, the peak is 0.
    """
    if not hasattr(os, "wait4"):
        done = subprocess.run(
            argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
        )
        return done.returncode, done.stdout, done.stderr, 0
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    texts = ["", ""]

    def pump(index: int, stream: IO[str]) -> None:
        texts[index] = stream.read()

    assert proc.stdout is not None and proc.stderr is not None
    pumps = [
        threading.Thread(target=pump, args=(i, s), daemon=True)
        for i, s in enumerate((proc.stdout, proc.stderr))
    ]
    for thread in pumps:
        thread.start()
    expired = threading.Event()

    def kill() -> None:
        expired.set()
        proc.kill()

    timer = threading.Timer(timeout, kill)
    timer.start()
    try:
        _, status, usage = os.wait4(proc.pid, 0)
    finally:
        timer.cancel()
    for thread in pumps:
        thread.join()
    proc.stdout.close()
    proc.stderr.close()
    proc.returncode = os.waitstatus_to_exitcode(status)
    if expired.is_set():
        raise subprocess.TimeoutExpired(argv, timeout, output=texts[0], stderr=texts[1])
    peak = usage.ru_maxrss // 1024 if sys.platform == "darwin" else usage.ru_maxrss  # bytes on macOS
    return proc.returncode, texts[0], texts[1], peak


@dataclass
class HealerRun:
    """One ``healer run``: its exit code, output, step outputs, job summary, timing and the requests it
    made."""

    returncode: int
    stdout: str
    stderr: str
    outputs: dict[str, str]
    summary: str
    seconds: float
    requests: list[RecordedRequest]
    peak_rss_kib: int = 0  # the child's peak resident memory (0 where the platform cannot say)

    @property
    def decision(self) -> str:
        return self.outputs.get("decision", "")


def parse_github_output(text: str) -> dict[str, str]:
    """Read ``$GITHUB_OUTPUT``: ``name=value`` lines and ``name<<DELIMITER`` … ``DELIMITER`` blocks."""
    outputs: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            value: list[str] = []
            for inner in lines:
                if inner == delimiter:
                    break
                value.append(inner)
            outputs[name] = "\n".join(value)
        elif "=" in line:
            name, value_text = line.split("=", 1)
            outputs[name] = value_text
    return outputs


class RunsHealer:
    """Mixed into :class:`healer.demo.sandbox.Sandbox` (which owns the fields below)."""

    root: Path
    standin: StandIn
    repo: str
    workspace: Path
    default_branch: str
    path: str | None
    isolation: str

    def write_event(self, run: Run, name: str = "event.json") -> Path:
        """The ``workflow_run`` ``completed`` payload of ``run``, written where ``$GITHUB_EVENT_PATH``
        points."""
        api = Api(self.standin)
        with self.standin._lock:
            payload = workflow_run_event(
                api.run_shape(run),
                api.repo_shape(self.standin.repos[self.repo.lower()]),
                api=self.standin.api_url,
                web=self.standin.server_url,
            )
        path = self.root / name
        path.write_text(json.dumps(payload, indent=2), encoding="utf-8")
        return path

    # -- running the healer ----------------------------------------------------------------------------------
    def write_pull_event(self, pull: Pull, action: str = "closed", name: str = "pull-event.json") -> Path:
        """A ``pull_request_target`` payload for ``pull`` (the shape of @octokit/webhooks-examples'
        ``pull_request.closed``): ``action``, ``number``, the pull request as the REST API shows it, the
        repository and the sender."""
        api = Api(self.standin)
        with self.standin._lock:
            payload = {
                "action": action,
                "number": pull.number,
                "pull_request": api.pull_shape(pull),
                "repository": api.repo_shape(self.standin.repos[self.repo.lower()]),
                "sender": api.pull_shape(pull)["user"],
            }
        path = self.root / name
        path.write_text(json.dumps(payload, indent=2), encoding="utf-8")
        return path

    def run_healer_on_pull(
        self,
        pull: Pull,
        *,
        action: str = "closed",
        event_name: str = "pull_request_target",
        inputs: Mapping[str, str] | None = None,
        timeout: float = 120.0,
    ) -> HealerRun:
        """``python -m healer run`` for a pull request event (the example workflow's ``closed`` trigger)."""
        tag = f"pull-{pull.number}-{len(self.standin.requests)}"
        event = self.write_pull_event(pull, action, f"event-{tag}.json")
        env = self.environment(event, inputs or {}, tag=tag, event_name=event_name)
        return self.run_env(env, timeout=timeout)

    def environment(
        self, event: Path, inputs: Mapping[str, str], *, tag: str, event_name: str = "workflow_run"
    ) -> dict[str, str]:
        """The Actions environment of the healer's step: ``GITHUB_*``, ``RUNNER_TEMP`` and ``HEALER_*``
        inputs."""
        home, temp = self.root / "home", self.root / f"runner-temp-{tag}"
        home.mkdir(exist_ok=True)
        temp.mkdir(exist_ok=True)
        bindir = str(Path(sys.executable).parent)
        env = {
            "PATH": self.path
            if self.path is not None
            else bindir + os.pathsep + os.environ.get("PATH", os.defpath),
            # a runner's user has no git identity of its own; HOME keeps this machine's config out of the run
            "HOME": str(home),
            "LANG": "C.UTF-8",
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": event_name,
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_REPOSITORY": self.repo,
            "GITHUB_REPOSITORY_OWNER": self.repo.split("/", 1)[0],
            "GITHUB_API_URL": self.standin.api_url,
            "GITHUB_SERVER_URL": self.standin.server_url,
            "GITHUB_WORKSPACE": str(self.workspace),
            "GITHUB_OUTPUT": str(temp / "output.txt"),
            "GITHUB_STEP_SUMMARY": str(temp / "summary.md"),
            "GITHUB_REF": f"refs/heads/{self.default_branch}",
            "GITHUB_WORKFLOW": "ci-healer",
            "GITHUB_RUN_ID": "900001",
            "GITHUB_ACTOR": "github-actions[bot]",
            "RUNNER_TEMP": str(temp),
            "HEALER_GITHUB_TOKEN": self.standin.token,
            # the sample agents are scripts of this machine's user; isolation is chosen per test or demo
            "HEALER_ISOLATION": self.isolation,
            # `python -m healer` runs the healer this process imported, not another install of it
            "PYTHONPATH": _HEALER_ROOT,
        }
        for name, value in inputs.items():
            env["HEALER_" + name.upper().replace("-", "_")] = value
        return env

    def run_healer(
        self,
        run: Run,
        *,
        inputs: Mapping[str, str] | None = None,
        dry_run: bool = False,
        timeout: float = 120.0,
        tag: str = "",
        secrets: Mapping[str, str] | None = None,
    ) -> HealerRun:
        """Write the event of ``run`` and run ``python -m healer run`` as a child, as the action does.
        ``secrets``: variables the step's ``env:`` would set (the agent's model key)."""
        tag = tag or f"{run.id}-{run.run_attempt}-{len(self.standin.requests)}"
        event = self.write_event(run, f"event-{tag}.json")
        env = {**self.environment(event, inputs or {}, tag=tag), **(secrets or {})}
        return self.run_env(env, dry_run=dry_run, timeout=timeout)

    def run_env(self, env: dict[str, str], *, dry_run: bool = False, timeout: float = 120.0) -> HealerRun:
        """``python -m healer run`` as a child in ``env`` (from :meth:`environment`, with the event the
        caller wrote): its outputs, summary, time, peak RSS and the requests it made."""
        before = len(self.standin.requests)
        argv = [sys.executable, "-m", "healer", "run", *(["--dry-run"] if dry_run else [])]
        started = time.monotonic()
        returncode, stdout, stderr, peak = run_child(argv, cwd=self.workspace, env=env, timeout=timeout)
        seconds = time.monotonic() - started
        output_path, summary_path = Path(env["GITHUB_OUTPUT"]), Path(env["GITHUB_STEP_SUMMARY"])
        outputs = parse_github_output(output_path.read_text(encoding="utf-8")) if output_path.exists() else {}
        summary = summary_path.read_text(encoding="utf-8") if summary_path.exists() else ""
        return HealerRun(
            returncode, stdout, stderr, outputs, summary, seconds, list(self.standin.requests[before:]), peak
        )
