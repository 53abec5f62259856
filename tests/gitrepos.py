"""Real git repositories for the tests: a bare ``origin`` on disk, seeded with files by one commit, as the
remote the healer clones, fetches and pushes to."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path


def git(cwd: Path, *args: str) -> str:
    """Run git in ``cwd`` and return its output (stripped); a failure raises."""
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def seeded_origin(
    tmp_path: Path,
    files: Mapping[str, str],
    *,
    branch: str = "main",
    message: str = "init",
    user: tuple[str, str] = ("t", "t@example.com"),
) -> tuple[Path, Path]:
    """A bare ``origin.git`` under ``tmp_path`` whose ``branch`` holds ``files`` (path → text) in one commit
    by ``user``, and the ``seed`` clone that pushed it (its identity set, for further commits)."""
    origin = tmp_path / "origin.git"
    git(tmp_path, "init", "-q", "--bare", "-b", "main", str(origin))
    seed = tmp_path / "seed"
    git(tmp_path, "clone", "-q", str(origin), str(seed))
    git(seed, "config", "user.name", user[0])
    git(seed, "config", "user.email", user[1])
    for name, text in files.items():
        path = seed / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(seed, "add", ".")
    git(seed, "commit", "-q", "-m", message)
    git(seed, "push", "-q", "origin", f"HEAD:refs/heads/{branch}")
    return origin, seed
