"""The command an agent names: read bounded, counted only when it reproduces the change on a fresh copy."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from healer.change.workspace import Repo
from healer.demo.sandbox import git
from healer.heal.learn import command_file, learned_command, read_command, reproduces


@pytest.mark.parametrize(
    ("content", "command"),
    [
        pytest.param(b"make gen\n", "make gen", id="plain"),
        pytest.param(b"", "", id="empty"),
        pytest.param(b"make gen && curl x | sh\n", "", id="shell"),
        pytest.param(b"x" * 5000, "", id="huge"),
        pytest.param(b"\xff\xfe make", "", id="not-utf8"),
    ],
)
def test_the_command_file_is_read_bounded(tmp_path: Path, content: bytes, command: str) -> None:
    path = command_file(None, tmp_path / "d", 7)
    assert path.read_text() == ""
    path.write_bytes(content)
    assert read_command(path) == command
    assert read_command(tmp_path / "absent") == ""


@pytest.fixture
def repo(tmp_path: Path) -> tuple[Repo, str]:
    """A repository whose head has a file a generator rewrites."""
    work = tmp_path / "repo"
    work.mkdir()
    git(work, "init", "--quiet")
    (work / "gen.py").write_text("import pathlib\npathlib.Path('out.txt').write_text('generated\\n')\n")
    (work / "other.py").write_text(
        "import pathlib\npathlib.Path('out.txt').write_text('something else\\n')\n"
    )
    (work / "out.txt").write_text("stale\n")
    git(work, "add", ".")
    git(work, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-m", "head")
    return Repo(work), git(work, "rev-parse", "HEAD").strip()


def _expected(repo: Repo, sha: str, tmp_path: Path) -> str:
    """The staged diff the agent's change leaves (what the healer compares)."""
    checkout = repo.add_worktree(tmp_path / "agent", sha)
    (checkout.path / "out.txt").write_text("generated\n")
    return checkout.stage()


def _reproduces(repo: Repo, sha: str, tmp_path: Path, command: str, expected: str) -> tuple[bool, list[str]]:
    said: list[str] = []
    env = {
        "PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
    }
    found = reproduces(
        repo, sha=sha, command=command, expected=expected, env=env, setup=(), work_dir=tmp_path / "learn",
        isolated=False, timeout=60, say=said.append,
    )  # fmt: skip
    return found, said


def test_a_command_that_makes_the_same_change_reproduces_it(repo: tuple[Repo, str], tmp_path: Path) -> None:
    r, sha = repo
    expected = _expected(r, sha, tmp_path)
    assert _reproduces(r, sha, tmp_path, f"{sys.executable} gen.py", expected) == (True, [])
    # the fresh copy is gone again
    assert not (tmp_path / "learn" / "checkout").exists()


@pytest.mark.parametrize(
    ("command", "said"),
    [
        pytest.param("{python} other.py", "", id="another-change"),
        pytest.param("{python} -c 1", "", id="no-change"),
        pytest.param("{python} -c 'import sys; sys.exit(3)'", "exited with 3", id="fails"),
        pytest.param("no-such-tool gen", "not on PATH", id="missing"),
    ],
)
def test_a_command_that_does_not_make_the_same_change_does_not_count(
    repo: tuple[Repo, str], tmp_path: Path, command: str, said: str
) -> None:
    r, sha = repo
    expected = _expected(r, sha, tmp_path)
    found, lines = _reproduces(r, sha, tmp_path, command.format(python=sys.executable), expected)
    assert found is False
    assert said in " ".join(lines)


def test_the_learned_command_is_the_named_one_only_when_it_reproduces(
    repo: tuple[Repo, str], tmp_path: Path
) -> None:
    r, sha = repo
    expected = _expected(r, sha, tmp_path)
    named = command_file(None, tmp_path / "named", 1)
    env = {"PATH": str(Path(sys.executable).parent) + os.pathsep + os.environ.get("PATH", "")}

    def learned(text: str) -> str:
        named.write_text(text)
        return learned_command(
            r, sha=sha, fix_file=named, diff=expected, env=env, setup=(), work_dir=tmp_path / "w",
            isolated=False, timeout=60, say=lambda _: None,
        )  # fmt: skip

    assert learned(f"{sys.executable} gen.py\n") == f"{sys.executable} gen.py"
    assert learned(f"{sys.executable} other.py\n") == ""
    assert learned("") == ""
