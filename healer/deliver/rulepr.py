"""Delivering a learned rule: one commit on ``ci-healer/rule-<hash>`` that appends the rule to
``.github/ci-healer/rules/learned.yml`` of the default branch, and one pull request into the default branch.

Like a fix pull request, the branch is made with git (fetch, a worktree, a commit, a push with the token for
that one process: :mod:`healer.change.workspace`) and the pull request through the API. The commit changes
that one file and nothing else (checked before it is pushed); an existing file keeps its content and gets the
rule appended (checked by reading the result back).
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from healer.change.workspace import Repo, identity_for
from healer.deliver.fixpr import DeliveryError, delete_fix_branch
from healer.github import GitHub, GitHubError
from healer.model import PullRequest

HEADER = (
    "# Rules ci-healer learned from fixes that people merged (docs/learning.md of ci-healer).\n"
    "# Each came in a pull request of its own; edit or remove them like any rule.\n"
)


class LearnedFileError(Exception):
    """The learned-rules file on the default branch cannot take another rule; the message says why."""


def rule_yaml(rule: Mapping[str, Any]) -> str:
    """The rule as one YAML list item (``- id: …``), under comments that say what its less obvious fields
    mean (a reviewer reads them in the rule pull request)."""
    category = rule.get("category", "")
    said = (
        "no shipped rule knew this failure, so it has no category of its own"
        if category == "unknown"
        else "the category the failure was diagnosed with"
    )
    notes = (
        f"# category: {said}\n"
        "# confidence: how sure a match makes the healer; 0.9, as the match lines are this failure's own\n"
    )
    return notes + yaml.safe_dump([dict(rule)], sort_keys=False, allow_unicode=True, width=100_000)


def with_rule(existing: str | None, rule: Mapping[str, Any]) -> str:
    """The learned-rules file with ``rule`` appended: a new file with a header, or ``existing`` kept as it
    is and the rule added at its end. Raises :class:`LearnedFileError` when the file is not a ``rules:``
    list the rule can be appended to, or already holds a rule of that id."""
    item = "".join(f"  {line}\n" for line in rule_yaml(rule).splitlines())
    if existing is None or not existing.strip():
        return f"{HEADER}rules:\n{item}"
    old = _rules(existing)
    if any(isinstance(r, dict) and r.get("id") == rule["id"] for r in old):
        raise LearnedFileError(f"it already holds the rule `{rule['id']}`")
    text = existing if existing.endswith("\n") else existing + "\n"
    if not old:  # `rules:` with nothing under it, or `rules: []`
        text = "".join(line for line in text.splitlines(keepends=True) if not line.startswith("rules:"))
        text += "rules:\n"
    text += item
    try:
        appended = _rules(text)
    except LearnedFileError:
        appended = None
    if appended != [*old, dict(rule)]:
        raise LearnedFileError("the rule cannot be appended to its `rules:` list (the list is not last)")
    return text


def _rules(text: str) -> list[Any]:
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        raise LearnedFileError("it is not valid YAML") from None
    if data is None:
        return []
    if not isinstance(data, dict) or not isinstance(data.get("rules") or [], list):
        raise LearnedFileError("it is not a mapping with a `rules:` list")
    return list(data.get("rules") or [])


@dataclass(frozen=True)
class RuleDelivery:
    branch: str
    commit: str
    pull: PullRequest


def deliver_rule(
    gh: GitHub,
    repo: Repo,
    *,
    rule: Mapping[str, Any],
    path: str,
    branch: str,
    base: str,
    title: str,
    body: str,
    bot_login: str,
    token: str,
    server_url: str,
    work_dir: Path,
) -> RuleDelivery:
    """Commit ``rule`` into ``path`` on top of the tip of ``base``, push ``branch`` and open the pull request.
    Raises :class:`LearnedFileError`, :class:`DeliveryError` or a
    :class:`~healer.change.workspace.GitError`."""
    tip = repo.fetch_tip(base, token=token, server_url=server_url)
    worktree = work_dir / "rule"
    if worktree.exists():
        repo.remove_worktree(worktree)
        shutil.rmtree(worktree, ignore_errors=True)
    checkout = repo.add_worktree(worktree, tip)
    try:
        target = checkout.path / path
        existing = (
            target.read_text(encoding="utf-8") if target.is_file() and not target.is_symlink() else None
        )
        if existing is None and (target.is_symlink() or target.exists()):
            raise LearnedFileError(f"{path} on {base} is not a regular file")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(with_rule(existing, rule), encoding="utf-8")
        checkout.git("add", "--", path)
        changed = checkout.git("diff", "--cached", "--name-only", "--no-renames").split()
        if changed != [path]:
            raise DeliveryError(f"the rule commit would change {', '.join(changed)}, not only {path}")
        commit = checkout.commit(
            f"{title}\n\nMade by ci-healer from a fix a person merged.", identity_for(bot_login)
        )
        checkout.push(branch, token=token, server_url=server_url, force=False)
    finally:
        repo.remove_worktree(worktree)
        shutil.rmtree(worktree, ignore_errors=True)
    try:
        pull = gh.create_pull(head=branch, base=base, title=title, body=body)
    except GitHubError as exc:
        deleted = delete_fix_branch(gh, branch)
        left = "the branch was deleted again" if deleted else f"delete the branch {branch} by hand"
        raise DeliveryError(
            f"pushed {branch} but could not open the rule pull request: {exc}; {left}"
        ) from None
    return RuleDelivery(branch, commit, pull)
