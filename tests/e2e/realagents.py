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
import shutil
import stat
import sys
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path

import pytest
from scripted import ScriptedProvider
from test_recipes import documented_recipes  # type: ignore[import-not-found]

from healer.demo.running import HealerRun
from healer.demo.sample import BASE_FILES
from healer.demo.sandbox import Sandbox
from healer.demo.standin import StandIn
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
