"""Judging a staged change with the guard (:mod:`healer.change.guard`): what the heal stage does before it
hands a change over, and what the deliver stage does again with the change of a heal bundle, which it does
not trust.
"""

from __future__ import annotations

from collections.abc import Callable

from healer.change.guard import GuardVerdict, judge_diff
from healer.change.workspace import Checkout, GitError
from healer.config import Config
from healer.text.frames import OVERRIDE_DIR


def healer_protected_paths(config: Config) -> tuple[str, ...]:
    """The maintainer's protected paths plus the healer's own settings and templates: a fix that edits the
    healer's config would change how the next run treats the PR once merged, so a person must make it."""
    return (*config.protected_paths, config.config_file, f"{OVERRIDE_DIR}/**")


def staged_reader(checkout: Checkout) -> Callable[[str, bool], str | None]:
    """The guard's view of a changed file: the PR head's version (``HEAD``) or the staged one (the index)."""

    def read(path: str, new: bool) -> str | None:
        try:
            return checkout.git("show", f"{':' if new else 'HEAD:'}{path}")
        except (GitError, UnicodeDecodeError):
            return None

    return read


def judge_staged(checkout: Checkout, diff: str, config: Config) -> GuardVerdict:
    """The guard's verdict on the change staged in ``checkout`` (``diff``: its staged diff)."""
    return judge_diff(
        diff,
        protected_paths=healer_protected_paths(config),
        max_lines=config.max_diff_lines,
        allow=config.guard_allow,
        read=staged_reader(checkout),
    )
