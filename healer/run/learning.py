"""The run's side of learning (docs/learning.md): the learned rules read with the config, and the rule pull
request proposed when a person merges a fix pull request.

Kept apart from the stages so that they only call in: :func:`with_learned_rules` from the config stage,
:func:`on_merged_fix` from the closed-pull-request stage.
"""

from __future__ import annotations

from collections.abc import Callable

from healer.config import LEARNED_RULES_FILE, Config, load_learned_file
from healer.github import GitHub


def with_learned_rules(gh: GitHub, config: Config, branch: str, say: Callable[[str], None]) -> Config:
    """``config`` with the learned rules of the default branch (one request; none when there is no file)."""
    text = gh.get_file(LEARNED_RULES_FILE, branch)
    if text is None:
        return config
    config = load_learned_file(text, config)
    say(f"{len(config.learned_rules)} learned rule(s) from {LEARNED_RULES_FILE} on {branch}")
    return config
