"""``.github/ci-healer/rules/learned.yml`` → the learned rules of :class:`Config`.

The healer proposes each rule it learned in a pull request against the default branch, which adds it to this
file (see docs/learning.md); the file is read, like the config file, from the default branch only. Its rules
are validated like every repository rule (:mod:`healer.diagnosis.rules`) when the rule set is built; here the
file is only checked to be a bounded YAML mapping with a ``rules:`` list of mappings.
"""

from __future__ import annotations

from dataclasses import replace

import yaml

from healer.config.inputs import Config
from healer.config.values import ConfigError

LEARNED_RULES_FILE = ".github/ci-healer/rules/learned.yml"
# One rule is about a kilobyte; a file of a few hundred stays far below the contents API's 1 MB.
MAX_LEARNED_FILE_CHARS = 512 * 1024


def load_learned_file(text: str | None, base: Config, *, source: str = LEARNED_RULES_FILE) -> Config:
    """``base`` with the learned rules of ``text`` (None or empty: no file). Raises :class:`ConfigError`
    naming the file and the fix."""
    if text is None or not text.strip():
        return base
    if len(text) > MAX_LEARNED_FILE_CHARS:
        raise ConfigError(f"`{source}` is larger than {MAX_LEARNED_FILE_CHARS // 1024} KiB; remove old rules")
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"`{source}` is not valid YAML{where}; fix the syntax") from None
    if data is None:
        return base
    rules = data.get("rules") if isinstance(data, dict) else None
    if not isinstance(data, dict) or set(data) - {"rules"} or not isinstance(rules, (list, type(None))):
        raise ConfigError(f"`{source}` must be a mapping with one key, `rules:`, a list of rules")
    for number, rule in enumerate(rules or (), start=1):
        if not isinstance(rule, dict):
            raise ConfigError(f"`{source}`: `rules` item {number} must be a mapping")
    return replace(base, learned_rules=tuple(dict(rule) for rule in rules or ()))
