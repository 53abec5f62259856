"""End-to-end harness: ``healer run`` as a child process against the GitHub stand-in and a real bare
``origin``.

One stand-in serves the whole session (it is reset between tests). Each test gets a :class:`Sandbox` — a bare
repository as ``origin``, a clone of the default branch as ``GITHUB_WORKSPACE`` — and drives the healer
through :func:`harness.heal`, which also checks what every run must guarantee: each request the stand-in
received is an operation of GitHub's OpenAPI description with a valid body, each answer has GitHub's shape,
the signed log URL was fetched without the token, and the token appears in no output, comment, pull request,
summary or output.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

# the OpenAPI contract checker lives in tests/ (on the path when the whole suite runs, not when e2e runs
# alone)
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from actengine import REQUIRED, Act, healer_repository, missing, wheelhouse  # noqa: E402
from harness import REPO, TOKEN, check_contract  # noqa: E402
from twojobs import READ_TOKEN  # noqa: E402

from healer.demo.sample import BASE_FILES  # noqa: E402
from healer.demo.sandbox import Sandbox  # noqa: E402
from healer.demo.standin import StandIn  # noqa: E402


@pytest.fixture(scope="session")
def server() -> Iterator[StandIn]:
    with StandIn(token=TOKEN) as standin:
        yield standin


@pytest.fixture
def standin(server: StandIn) -> Iterator[StandIn]:
    server.reset()
    yield server
    server.idle()
    check_contract(server.requests, server.api_url)


@pytest.fixture
def box(tmp_path: Path, standin: StandIn) -> Sandbox:
    return Sandbox.create(tmp_path / "gh", standin, repo=REPO, files=BASE_FILES)


@pytest.fixture
def read_token(standin: StandIn) -> Iterator[str]:
    standin.read_tokens = {READ_TOKEN}  # type: ignore[attr-defined]
    yield READ_TOKEN
    standin.read_tokens = set()  # type: ignore[attr-defined]


@pytest.fixture(scope="session")
def healer_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """This working tree as the repository ``octo-org/ci-healer`` at a commit (see :mod:`actengine`)."""
    return healer_repository(tmp_path_factory.mktemp("ci-healer"))


@pytest.fixture(scope="session")
def action_wheels(tmp_path_factory: pytest.TempPathFactory) -> Path | None:
    """The wheels the action's lock pins, fetched once (see :func:`actengine.wheelhouse`)."""
    return None if missing() else wheelhouse(tmp_path_factory.mktemp("wheels"))


@pytest.fixture
def engine(box: Sandbox, tmp_path: Path, healer_repo: tuple[Path, str], action_wheels: Path | None) -> Act:
    """nektos/act for this test's sandbox (skipped where it cannot run: see :func:`actengine.missing`)."""
    if missing():
        (pytest.fail if REQUIRED else pytest.skip)(missing())
    where = tmp_path / "act"
    where.mkdir()
    return Act(box, where, healer_repo, action_wheels)
