"""The throwaway user itself: made, used through ``agent.run``, killed to the last process, removed. Needs
root or passwordless sudo on Linux (skipped elsewhere, with the reason); CI runs it both as root and as a user
with sudo."""

from __future__ import annotations

import os
import pwd
import subprocess
from pathlib import Path

import pytest

from healer.heal.agent import run
from healer.heal.isolation import availability, throwaway_user

HOW, WHY_NOT = availability()
# CI sets HEALER_REQUIRE_ISOLATION: there these tests run (as root, and as a user with sudo) or fail
REQUIRED = os.environ.get("HEALER_REQUIRE_ISOLATION") == "1"
pytestmark = pytest.mark.skipif(not HOW and not REQUIRED, reason=WHY_NOT or "no isolation here")


def _tree(root: Path) -> Path:
    root.mkdir(mode=0o755)
    root.chmod(0o755)
    (root / "keep.txt").write_text("keep\n")
    (root / "change.txt").write_text("before\n")
    (root / "gone.txt").write_text("gone\n")
    (root / ".git").write_text("gitdir: /elsewhere\n")  # a worktree's pointer: never copied, never replaced
    return root


def test_commands_run_as_the_user_in_its_copy_and_only_the_tree_comes_back(tmp_path: Path) -> None:
    source = _tree(tmp_path / "checkout")
    env = {"PATH": os.environ["PATH"], "GITHUB_ENV": "/x", "ACTIONS_RUNTIME_TOKEN": "t", "KEEP": "1"}
    with throwaway_user(source) as user:
        assert pwd.getpwnam(user.name).pw_uid == user.uid != os.geteuid()
        result = run(
            'id -u; id -G; echo "$HOME|$GITHUB_ENV|$ACTIONS_RUNTIME_TOKEN|$KEEP"; '
            "echo after > change.txt; rm gone.txt; echo new > new.txt; echo hook > .git/hooks/pre-commit; "
            "(setsid sleep 300 >/dev/null 2>&1 &); nohup sleep 300 >/dev/null 2>&1 &",
            cwd=user.workdir,
            env=env,
            timeout=30,
            isolation=user,
        )
        uid, groups, seen = result.stdout.split()
        assert int(uid) == user.uid
        assert groups.split() == [str(user.gid)]  # no sudo, no admin group: its own group only
        assert seen == f"{user.home}|||1"  # no file command, no runner credential
        assert user.pids() == []  # the daemons did not outlive the command
        user.copy_out(source)
        home = user.home
    assert sorted(p.name for p in source.iterdir()) == [".git", "change.txt", "keep.txt", "new.txt"]
    assert (source / "change.txt").read_text() == "after\n"
    assert (source / ".git").read_text() == "gitdir: /elsewhere\n"
    # the user and its files are gone
    with pytest.raises(KeyError):
        pwd.getpwnam(user.name)
    assert not home.exists()


def test_a_command_that_overruns_is_killed_with_everything_it_started(tmp_path: Path) -> None:
    source = _tree(tmp_path / "checkout")
    with throwaway_user(source) as user:
        result = run(
            "(setsid sh -c 'while :; do sleep 1; done' &); sleep 300",
            cwd=user.workdir,
            env={"PATH": os.environ["PATH"]},
            timeout=1,
            isolation=user,
        )
        assert result.timed_out
        assert user.pids() == []


def test_the_user_cannot_use_sudo_nor_write_outside_its_copy(tmp_path: Path) -> None:
    source = _tree(tmp_path / "checkout")
    outside = tmp_path / "outside.txt"
    outside.write_text("mine\n")
    outside.chmod(0o644)
    with throwaway_user(source) as user:
        result = run(
            ["sh", "-c", f"sudo -n true; echo sudo=$?; echo x >> '{outside}'; echo write=$?"],
            cwd=user.workdir,
            env={"PATH": os.environ["PATH"]},
            timeout=30,
            isolation=user,
        )
    assert "sudo=0" not in result.stdout and "write=0" not in result.stdout, result.output
    assert outside.read_text() == "mine\n"
    assert subprocess.run(["id", user.name], capture_output=True, check=False).returncode != 0
