"""Inputs and ``.github/ci-healer.yml`` → :class:`Config`, validated, with one table of defaults.

The action's inputs arrive as ``HEALER_<NAME>`` environment variables (composite actions get no ``INPUT_*``).
``INPUTS`` below is the single source of the defaults: ``action.yml`` and the README's inputs table mirror it,
and a test checks that they agree.

The config file (read by the app from the base repository's default branch, never from the PR head) gives
repository defaults with the same keys as the inputs, plus ``rules:`` and ``checks:``. Precedence: an input
given in the workflow with a value other than its default wins; then the file; then the default.
A few inputs can only be set in the workflow (:data:`WORKFLOW_ONLY`).

The package splits by concern: :mod:`.values` parses input values, :mod:`.inputs` holds the table of inputs
and :class:`Config`, :mod:`.file` reads the config file, :mod:`.learned` the learned
rules. Import from ``healer.config``.
"""

from healer.config.file import (
    CHECK_KEYS,
    FILE_SECTIONS,
    MAX_CONFIG_FILE_CHARS,
    WORKFLOW_ONLY,
    CheckSettings,
    check_settings,
    load_config_file,
)
from healer.config.inputs import INPUTS, Config, Input, config_from_env, explicit_inputs, with_overrides
from healer.config.learned import LEARNED_RULES_FILE, load_learned_file
from healer.config.values import DELIVERIES, FORK_POLICIES, UNKNOWN_ACTIONS, ConfigError

__all__ = [
    "CHECK_KEYS",
    "DELIVERIES",
    "FILE_SECTIONS",
    "FORK_POLICIES",
    "INPUTS",
    "LEARNED_RULES_FILE",
    "MAX_CONFIG_FILE_CHARS",
    "UNKNOWN_ACTIONS",
    "WORKFLOW_ONLY",
    "CheckSettings",
    "Config",
    "ConfigError",
    "Input",
    "check_settings",
    "config_from_env",
    "explicit_inputs",
    "load_config_file",
    "load_learned_file",
    "with_overrides",
]
