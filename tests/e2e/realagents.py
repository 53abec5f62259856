"""The real agent CLIs, for the end-to-end tests of the recipes in docs/agents.md.

``.ci/install-agents`` installs the CLIs pinned in ``.ci/agents`` into a folder every user can read, and
``.ci/run`` exports that folder as ``HEALER_AGENTS`` (its ``bin/`` holds ``claude``, ``codex``, ``gemini`` and
``aider``) with ``HEALER_REQUIRE_AGENTS=1``: there the tests run or fail. Elsewhere a test whose CLI is not
installed is skipped, saying how to install it.

Each test runs ``healer run`` with the recipe exactly as docs/agents.md writes it, under ``isolation: user``
(the CLI runs as the heal's throwaway user), with ``model-api-url`` pointing at a :class:`ScriptedProvider`
on loopback. Nothing reaches beyond 127.0.0.1.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import sys
import tempfile
import threading
import time
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from harness import record_bodies
from scripted import Edit, Recorded, ScriptedProvider
from test_recipes import documented_recipes  # type: ignore[import-not-found]

from healer.demo.running import HealerRun
from healer.demo.sample import BASE_FILES
from healer.demo.sandbox import Sandbox, git
from healer.demo.standin import StandIn
from healer.demo.state import Pull
from healer.heal.isolation import availability

ROOT = Path(__file__).resolve().parents[2]
REQUIRED = os.environ.get("HEALER_REQUIRE_AGENTS") == "1"
HOW, WHY_NOT = availability()
INSTALL_HINT = "install them with `export HEALER_AGENTS=$(.ci/install-agents)`"


def agents_bin() -> Path | None:
    """The folder holding the real CLIs, or None."""
    where = os.environ.get("HEALER_AGENTS", "")
    return Path(where) / "bin" if where and (Path(where) / "bin").is_dir() else None


def _public(path: Path) -> bool:
    """Whether every user can run ``path``: it, each folder above it, and its ``#!`` interpreter (a venv's
    script names a Python that may live under /root)."""
    real = path.resolve()
    if not all(p.stat().st_mode & stat.S_IXOTH for p in (real, *real.parents)):
        return False
    with real.open("rb") as handle:
        first = handle.readline(512)
    if not first.startswith(b"#!"):
        return True
    interpreter = Path(first[2:].split()[0].decode(errors="replace"))
    return interpreter.name == "env" or _public(interpreter)


def cli(name: str) -> Path:
    """The real CLI ``name`` (skips, or fails where required, when it is missing)."""
    if not HOW and not REQUIRED:
        pytest.skip(WHY_NOT or "no isolation here: the CLIs run as a throwaway user")
    folder = agents_bin()
    tool = folder / name if folder else None
    if tool is None or not tool.exists() or not _public(tool):
        if REQUIRED:
            pytest.fail(f"the real `{name}` is not installed where every user can run it; {INSTALL_HINT}")
        pytest.skip(f"the real `{name}` is not installed; {INSTALL_HINT}")
    return tool


@pytest.fixture
def public_box(standin: StandIn) -> Iterator[Sandbox]:
    """A sandbox under a folder every user can enter (the throwaway user works in a copy of its checkout)."""
    root = Path(tempfile.mkdtemp(prefix="ci-healer-agents-"))
    root.chmod(0o755)
    try:
        yield Sandbox.create(root / "gh", standin, files=BASE_FILES)
    finally:
        shutil.rmtree(root, ignore_errors=True)


class CliWatch:
    """When each request reached the provider, and the environment of the CLI's processes alive at the first
    one, read from ``/proc`` by this test (it runs as root; the CLI runs as the throwaway user). A process is
    the CLI's when one of its first arguments is named ``name`` (``claude``, ``claude.exe``, ``codex-…``,
    ``gemini.js``: a launcher and what it runs), and it is this test's when its ``GITHUB_WORKSPACE`` is in
    ``box``'s folder (other healers may run on this machine)."""

    def __init__(self, provider: ScriptedProvider, box: Sandbox, *names: str) -> None:
        self.names = names
        self.seen: list[dict[str, str]] = []
        self.times: list[float] = []
        self._where = f"{box.root}/"
        self._lock = threading.Lock()
        record = provider.record

        def recording(request: Recorded) -> None:
            with self._lock:
                self.times.append(time.monotonic())
                if not self.seen:
                    self.seen = [
                        e for e in self._snapshot() if e.get("GITHUB_WORKSPACE", "").startswith(self._where)
                    ]
            record(request)

        provider.record = recording  # type: ignore[method-assign]

    def _is_cli(self, arg: bytes) -> bool:
        name = Path(arg.decode(errors="replace")).name
        return any(name == n or name.startswith((f"{n}.", f"{n}-")) for n in self.names)

    def _snapshot(self) -> list[dict[str, str]]:
        found = []
        for proc in Path("/proc").glob("[0-9]*"):
            try:
                argv = (proc / "cmdline").read_bytes().split(b"\0")
                if not any(self._is_cli(arg) for arg in argv[:4]):
                    continue
                pairs = (proc / "environ").read_bytes().split(b"\0")
            except OSError:
                continue
            found.append(dict(p.decode(errors="replace").split("=", 1) for p in pairs if b"=" in p))
        return found

    def holding(self, key: str) -> list[str]:
        """The variables of the CLI's processes whose value holds ``key``."""
        return [name for seen in self.seen for name, value in seen.items() if key in value]


def comments_of(box: Sandbox, number: int) -> str:
    """What the healer wrote for pull request ``number``, as GitHub shows it: its comments, and its fix pull
    requests' bodies (a heal that delivers a fix writes no comment)."""
    return "\n".join(record_bodies(box, number))


def the_scripted_fix(box: Sandbox) -> Pull:
    """The one fix pull request of the heal, asserted to change exactly the scripted edit: nothing the CLI
    writes in its home or the checkout is part of it."""
    [fix] = box.standin.created_pulls(box.repo)
    edit = Edit()
    assert git(box.origin, "diff", "--name-only", f"{fix.head_sha}^", fix.head_sha).split() == [edit.path]
    diff = git(box.origin, "diff", "--unified=0", f"{fix.head_sha}^", fix.head_sha)
    changed = [line for line in diff.splitlines() if line[:1] in "+-" and line[:3] not in ("+++", "---")]
    assert changed == [f"-    {edit.old}", f"+    {edit.new}"]
    return fix


def ended_soon_after_the_refusal(result: HealerRun) -> float:
    """The seconds the CLI went on after its first refused request, as the job summary says: under 10."""
    ended = re.search(r"the agent ended (\d+\.\d) s after its first refused request", result.summary)
    assert ended and float(ended.group(1)) < 10, result.summary
    return float(ended.group(1))


def recipe(agent: str) -> tuple[str, str]:
    """``(agent-command, the env column)`` of the agent's row in docs/agents.md, as written there."""
    return documented_recipes()[agent]


def heal_with_cli(
    box: Sandbox,
    run: object,
    agent: str,
    provider: ScriptedProvider,
    *,
    secrets: Mapping[str, str],
    inputs: Mapping[str, str] | None = None,
    timeout: float = 240.0,
) -> HealerRun:
    """``healer run`` with ``agent``'s documented recipe under ``isolation: user``, its model behind the proxy
    and the proxy's upstream the scripted provider."""
    folder = agents_bin()
    assert folder is not None
    box.isolation = "user"
    box.path = os.pathsep.join([str(folder), str(Path(sys.executable).parent), os.environ["PATH"]])
    command, _ = recipe(agent)
    result = box.run_healer(
        run,  # type: ignore[arg-type]
        inputs={"agent-command": command, "model-api-url": provider.url, **(inputs or {})},
        secrets=secrets,
        timeout=timeout,
    )
    box.standin.idle()
    return result
