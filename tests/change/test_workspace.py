"""The git wrapper against real repositories: a bare ``origin`` and the workflow's checkout of it."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
from gitrepos import git, seeded_origin

from healer.change.workspace import (
    ACTIONS_BOT_EMAIL,
    GitError,
    Repo,
    StaleHeadError,
    identity_for,
    push_auth_env,
    valid_branch_name,
)


@pytest.fixture
def origin(tmp_path: Path) -> Path:
    """A bare origin with `main` and a PR branch named like an injection attempt."""
    bare, seed = seeded_origin(tmp_path, {"app.py": "import os\n"})
    (seed / "app.py").write_text("import os\nimport sys\n")
    git(seed, "commit", "-q", "-am", "pr change")
    git(seed, "push", "-q", "origin", "HEAD:refs/heads/x;$(touch${IFS}pwned)")
    return bare


@pytest.fixture
def repo(tmp_path: Path, origin: Path) -> Repo:
    work = tmp_path / "work"
    git(tmp_path, "clone", "-q", "--depth=1", f"file://{origin}", str(work))
    return Repo(work)


def pr_sha(origin: Path) -> str:
    return git(origin, "rev-parse", "refs/heads/x;$(touch${IFS}pwned)")


def test_a_push_onto_a_branch_that_moved_on_is_a_stale_head_and_says_what_git_refused(
    repo: Repo, origin: Path, tmp_path: Path
) -> None:
    branch = "x;$(touch${IFS}pwned)"
    sha = pr_sha(origin)
    repo.fetch_branch(branch, sha)
    checkout = repo.add_worktree(tmp_path / "wt", sha)
    (checkout.path / "app.py").write_text("import sys\n")
    checkout.stage()
    checkout.commit("Fix it", identity_for("github-actions[bot]"))
    # the author pushes to the PR branch while the healer works
    other = tmp_path / "other"
    git(tmp_path, "clone", "-q", "--branch", branch, str(origin), str(other))
    (other / "more.py").write_text("x = 1\n")
    git(other, "add", ".")
    git(other, "-c", "user.name=a", "-c", "user.email=a@example.com", "commit", "-q", "-m", "more")
    git(other, "push", "-q", "origin", f"HEAD:refs/heads/{branch}")
    moved = git(origin, "rev-parse", f"refs/heads/{branch}")

    with pytest.raises(StaleHeadError, match="moved on while the healer worked"):
        checkout.push(branch, token="", server_url="https://github.com")
    assert git(origin, "rev-parse", f"refs/heads/{branch}") == moved
    # a refusal by the server (a protected branch, a hook) is no stale head; the error is git's, not a hint
    hook = origin / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'protected branch' >&2\nexit 1\n")
    hook.chmod(0o755)
    with pytest.raises(GitError) as caught:
        checkout.push("ci-healer/7-abcdef0", token="", server_url="https://github.com", force=True)
    assert not isinstance(caught.value, StaleHeadError)
    assert "failed to push some refs" in str(caught.value) and "hint:" not in str(caught.value)


def test_python_bytecode_left_by_test_runs_is_neither_delivered_nor_a_rewrite(
    repo: Repo, origin: Path, tmp_path: Path
) -> None:
    # an agent reproduces the failure with pytest, and a verify command runs it again: in a repository
    # without a .gitignore for it, the bytecode they leave is not part of the fix, nor a file they rewrote
    sha = pr_sha(origin)
    repo.fetch_branch("x;$(touch${IFS}pwned)", sha)
    checkout = repo.add_worktree(tmp_path / "wt", sha)
    (checkout.path / "app.py").write_text("import sys\n")
    (checkout.path / "__pycache__").mkdir()
    (checkout.path / "__pycache__" / "app.cpython-312.pyc").write_bytes(b"\x00bytecode")
    (checkout.path / "pkg" / "__pycache__").mkdir(parents=True)
    (checkout.path / "pkg" / "__pycache__" / "mod.cpython-312.pyc").write_bytes(b"\x00bytecode")
    (checkout.path / "pkg" / "mod.py").write_text("VALUE = 1\n")
    (checkout.path / "legacy.pyc").write_bytes(b"\x00bytecode")

    diff = checkout.stage()

    assert "app.py" in diff and "pkg/mod.py" in diff
    assert "__pycache__" not in diff and ".pyc" not in diff
    assert checkout.diffstat() == "2 files changed, +1 -1"
    (checkout.path / "pkg" / "__pycache__" / "other.cpython-312.pyc").write_bytes(b"\x00more")
    assert not checkout.has_unstaged_changes()


@pytest.mark.parametrize(
    ("name", "ok"),
    [
        pytest.param("feature/x", True, id="plain"),
        pytest.param("x;$(touch${IFS}pwned)", True, id="shell-looking-but-valid"),
        pytest.param("-upload-pack=evil", False, id="option"),
        pytest.param("a..b", False, id="dots"),
        pytest.param("a b", False, id="space"),
        pytest.param("a\nb", False, id="newline"),
        pytest.param("x.lock", False, id="lock"),
        pytest.param("", False, id="empty"),
        pytest.param("a~1", False, id="tilde"),
    ],
)
def test_valid_branch_name(name: str, ok: bool, tmp_path: Path) -> None:
    assert valid_branch_name(name, tmp_path) is ok


def test_fetch_checkout_stage_commit_push(repo: Repo, origin: Path, tmp_path: Path) -> None:
    sha = pr_sha(origin)
    repo.fetch_branch("x;$(touch${IFS}pwned)", sha)
    checkout = repo.add_worktree(tmp_path / "wt", sha)
    assert not (repo.path / "pwned").exists() and not (tmp_path / "pwned").exists()
    assert (checkout.path / "app.py").read_text() == "import os\nimport sys\n"

    assert checkout.stage() == ""
    (checkout.path / "app.py").write_text("import sys\n")
    (checkout.path / "new.txt").write_text("hello\n")
    diff = checkout.stage()
    assert "-import os" in diff and "+++ b/new.txt" in diff
    assert checkout.diffstat() == "2 files changed, +1 -1"
    assert not checkout.has_unstaged_changes()
    (checkout.path / "app.py").write_text("rewritten by a checker\n")
    assert checkout.has_unstaged_changes()

    commit = checkout.commit("Fix it", identity_for("github-actions[bot]"))
    assert git(checkout.path, "log", "-1", "--format=%an <%ae>|%cn|%s") == (
        f"github-actions[bot] <{ACTIONS_BOT_EMAIL}>|github-actions[bot]|Fix it"
    )
    # only the staged change is committed, not what the checker rewrote afterwards
    assert git(checkout.path, "show", f"{commit}:app.py") == "import sys"

    checkout.push("ci-healer/7-abcdef0", token="", server_url="https://github.com")
    assert git(origin, "rev-parse", "refs/heads/ci-healer/7-abcdef0") == commit
    repo.remove_worktree(checkout.path)
    assert not checkout.path.exists()


def test_a_moved_branch_is_a_stale_head(repo: Repo, origin: Path) -> None:
    with pytest.raises(StaleHeadError, match="not 0000000"):
        repo.fetch_branch("main", "0" * 40)


def test_hostile_names_never_reach_git(repo: Repo, tmp_path: Path) -> None:
    with pytest.raises(GitError, match="check-ref-format rejects it"):
        repo.fetch_branch("--upload-pack=touch${IFS}pwned", "0" * 40)
    with pytest.raises(GitError, match="not a commit id"):
        repo.add_worktree(tmp_path / "x", "--help")


def test_push_without_force_refuses_to_overwrite(repo: Repo, origin: Path, tmp_path: Path) -> None:
    main = git(origin, "rev-parse", "main")
    repo.fetch_branch("main", main)
    checkout = repo.add_worktree(tmp_path / "wt", main)
    (checkout.path / "x").write_text("x\n")
    checkout.stage()
    checkout.commit("x", identity_for("my-app[bot]"))
    with pytest.raises(StaleHeadError, match="moved on while the healer worked; nothing was pushed"):
        checkout.push("x;$(touch${IFS}pwned)", token="", server_url="https://github.com", force=False)


def test_push_error_never_shows_the_token(repo: Repo, tmp_path: Path) -> None:
    git(repo.path, "remote", "set-url", "origin", "https://127.0.0.1:9/nowhere.git")
    main = git(repo.path, "rev-parse", "HEAD")
    checkout = repo.add_worktree(tmp_path / "wt", main)
    with pytest.raises(GitError) as info:
        checkout.push("x", token="ghs_supersecret", server_url="https://127.0.0.1:9")
    assert "ghs_supersecret" not in str(info.value)


def test_push_header_replaces_the_one_actions_checkout_persisted(repo: Repo) -> None:
    key = "http.https://github.com/.extraheader"
    git(repo.path, "config", "--local", key, "AUTHORIZATION: basic persisted")
    env = {**push_auth_env("tok", "https://github.com/"), "PATH": "/usr/bin:/bin"}
    out = subprocess.run(
        ["git", "config", "--get-all", key], cwd=repo.path, env=env, capture_output=True, text=True
    ).stdout.splitlines()
    # the empty value resets the list (git's documented behaviour for http.extraHeader), then ours follows
    assert out[-1] == "AUTHORIZATION: basic eC1hY2Nlc3MtdG9rZW46dG9r"
    assert push_auth_env("", "https://github.com") == {}


def test_identity_of_an_app_bot() -> None:
    assert identity_for("my-app[bot]").email == "my-app[bot]@users.noreply.github.com"


def test_an_agent_commit_is_folded_into_the_staged_change(repo: Repo, origin: Path, tmp_path: Path) -> None:
    sha = pr_sha(origin)
    repo.fetch_branch("x;$(touch${IFS}pwned)", sha)
    checkout = repo.add_worktree(tmp_path / "wt", sha)
    (checkout.path / "app.py").write_text("import sys\n")
    git(checkout.path, "-c", "user.name=a", "-c", "user.email=a@b", "commit", "-qam", "agent's own commit")
    (checkout.path / "more.txt").write_text("x\n")
    diff = checkout.stage()
    assert "-import os" in diff and "+++ b/more.txt" in diff
    commit = checkout.commit("Fix", identity_for("github-actions[bot]"))
    assert git(checkout.path, "rev-parse", f"{commit}^") == sha
