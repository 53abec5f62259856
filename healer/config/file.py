"""The config file ``.github/ci-healer.yml`` → :class:`Config`, validated, and each check's settings.

The file (read by the app from the base repository's default branch, never from the PR head) gives repository
defaults with the same keys as the inputs, plus ``rules:``, ``checks:``, ``guard:`` and ``flaky-tests:``.
Precedence: an input given in the workflow with a value other than its default wins (:func:`explicit_inputs`);
then the file; then the default. A few inputs can only be set in the workflow (:data:`WORKFLOW_ONLY`).
"""

from __future__ import annotations

import difflib
from collections.abc import Collection, Mapping
from dataclasses import dataclass, replace
from fnmatch import fnmatchcase
from typing import Any

import yaml

from healer.config.inputs import INPUTS, Config, Input
from healer.config.values import ConfigError
from healer.model import Action

# Inputs the config file may not set, and why. The file can be changed by anything that can push to the
# default branch (a GITHUB_TOKEN included), while workflow files need the `workflows` permission: what reaches
# secrets and whose comments are trusted stays in the workflow.
WORKFLOW_ONLY: Mapping[str, str] = {
    "github-token": "a token never belongs in a file of the repository; pass it in the workflow's `with:`",
    "agent-token": "whether the agent gets the token is decided in the workflow's `with:`",
    "bot-login": "whose comments the healer trusts is decided in the workflow's `with:`",
    "config-file": "it names this file; set it in the workflow's `with:`",
    "ledger-key": "a secret never belongs in a file of the repository; pass it in the workflow's `with:`",
    "isolation": "whether code from a pull request shares a user with the token is decided in the workflow's "
    "`with:`",
    "agent-api-key": "a secret never belongs in a file of the repository; pass it in the workflow's `with:`",
    "model-api-url": "where the model key is sent is decided in the workflow's `with:`",
}
FILE_SECTIONS = ("rules", "checks", "guard", "flaky-tests")
CHECK_KEYS = ("enabled", "max-attempts", "max-reruns", "action", "setup-command", "verify-command")
MAX_CONFIG_FILE_CHARS = 64 * 1024
_SPECS: Mapping[str, Input] = {spec.name: spec for spec in INPUTS}
_DEFAULTS = Config()


@dataclass(frozen=True)
class CheckSettings:
    """The config file's settings for one check (``checks:``); None means "as configured for every check"."""

    enabled: bool = True
    max_attempts: int | None = None
    max_reruns: int | None = None
    action: Action | None = None
    setup_command: str | None = None
    verify_command: str | None = None


class _DuplicateKeyError(Exception):
    """A mapping of the config file gives one key twice."""


class _UniqueKeyLoader(yaml.SafeLoader):
    """A safe loader that refuses a key given twice: YAML keeps the last one without a word, so a second
    `rules:` or `checks:` would silently drop the first, and a rule's second `match:` its first."""


def _unique_mapping(loader: _UniqueKeyLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)
        if isinstance(key, (str, int, float, bool)) and key in seen:
            line = key_node.start_mark.line + 1
            raise _DuplicateKeyError(f"key `{key}` is given twice (again at line {line}); keep one")
        if isinstance(key, (str, int, float, bool)):
            seen.add(key)
    return loader.construct_mapping(node)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _unique_mapping)


def load_config_file(
    text: str | None, base: Config, *, source: str, explicit: Collection[str] = frozenset()
) -> Config:
    """``base`` with the settings of the config file ``text`` (None or empty: no file) applied.

    ``source`` names the file in error messages; ``explicit`` holds the input names the workflow set
    (:func:`explicit_inputs`), which keep the workflow's value. Raises :class:`ConfigError` naming the file,
    the key and the fix.
    """
    if text is None or not text.strip():
        return base
    if len(text) > MAX_CONFIG_FILE_CHARS:
        raise ConfigError(f"`{source}` is larger than {MAX_CONFIG_FILE_CHARS // 1024} KiB; keep it small")
    try:
        data = yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
    except _DuplicateKeyError as err:
        raise ConfigError(f"`{source}`: {err}") from None
    except yaml.YAMLError as err:
        mark = getattr(err, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark is not None else ""
        problem = getattr(err, "problem", None) or "a syntax error"
        raise ConfigError(f"`{source}` is not valid YAML ({problem}{where}); fix the syntax") from None
    if data is None:
        return base
    if not isinstance(data, dict):
        raise ConfigError(f"`{source}` must be a mapping of keys to values, not {_kind(data)}")
    changes: dict[str, Any] = {}
    for key, value in data.items():
        if not isinstance(key, str):
            raise ConfigError(f"`{source}`: key {key!r} must be text")
        if key in WORKFLOW_ONLY:
            raise ConfigError(f"`{source}`: `{key}` cannot be set in the config file: {WORKFLOW_ONLY[key]}")
        if key == "rules":
            changes["rules"] = _rules(value, source)
        elif key == "checks":
            changes["checks"] = _checks(value, source)
        elif key == "guard":
            changes["guard_allow"] = _guard(value, source)
        elif key == "flaky-tests":
            changes["flaky_tests"] = _flaky_tests(value, source)
        elif key in _SPECS:
            spec = _SPECS[key]
            parsed = _file_value(spec, value, f"`{source}`: `{key}`")
            if key not in explicit:
                changes[spec.attr] = parsed
        else:
            raise ConfigError(f"`{source}`: unknown key `{key}`; {_suggest(key, _file_keys())}")
    return replace(base, **changes)


def _flaky_tests(value: object, source: str) -> tuple[str, ...]:
    """``flaky-tests:``: a list of globs over test ids (``tests/test_net.py::*``, ``*Upload*retry*``)."""
    if not isinstance(value, list) or not all(isinstance(item, str) and item.strip() for item in value):
        raise ConfigError(
            f"`{source}`: `flaky-tests` must be a list of test ids or globs, e.g. `- 'tests/test_net.py::*'`"
        )
    if len(value) > 200:
        raise ConfigError(f"`{source}`: `flaky-tests` lists {len(value)} entries; at most 200")
    return tuple(item.strip() for item in value)


def check_settings(config: Config, check: str) -> CheckSettings:
    """The settings for ``check``: its exact name in ``checks:``, else the first glob pattern that matches."""
    entry = config.checks.get(check)
    if entry is None:
        entry = next((v for k, v in config.checks.items() if fnmatchcase(check, k)), None)
    if entry is None:
        return CheckSettings()
    action = entry.get("action")
    return CheckSettings(
        enabled=bool(entry.get("enabled", True)),
        max_attempts=entry.get("max_attempts"),
        max_reruns=entry.get("max_reruns"),
        action=Action(action) if action is not None else None,
        setup_command=entry.get("setup_command"),
        verify_command=entry.get("verify_command"),
    )


def _guard(value: object, source: str) -> tuple[str, ...]:
    """``guard: {allow: [globs]}``: paths whose tool configuration, git settings or binary content a fix may
    change on purpose (the fix PR says which were touched)."""
    where = f"`{source}`: `guard`"
    if not isinstance(value, dict):
        raise ConfigError(f"{where} must be a mapping such as `guard: {{allow: [pyproject.toml]}}`")
    unknown = [k for k in value if k != "allow"]
    if unknown:
        raise ConfigError(f"{where}: unknown key `{unknown[0]}`; the only key is `allow`")
    allow = value.get("allow") or []
    if isinstance(allow, str):
        allow = [allow]
    if not isinstance(allow, list) or not all(isinstance(p, str) and p.strip() for p in allow):
        raise ConfigError(f"{where}: `allow` must be a list of path globs")
    return tuple(p.strip() for p in allow)


def _file_keys() -> list[str]:
    return [name for name in _SPECS if name not in WORKFLOW_ONLY] + list(FILE_SECTIONS)


def _suggest(key: str, known: list[str]) -> str:
    dashed = key.replace("_", "-")
    if dashed in known:
        return f"did you mean `{dashed}`? (keys are kebab-case)"
    close = difflib.get_close_matches(key, known, n=1, cutoff=0.6)
    if close:
        return f"did you mean `{close[0]}`?"
    return "the known keys are " + ", ".join(f"`{name}`" for name in known)


def _kind(value: object) -> str:
    if isinstance(value, dict):
        return "a mapping"
    if isinstance(value, list):
        return "a list"
    return repr(value)


def _file_value(spec: Input, value: object, where: str) -> Any:
    """A config-file value of input ``spec``, checked with the input's own parser."""
    default = getattr(_DEFAULTS, spec.attr)
    if value is None:
        raise ConfigError(f"{where} has no value; give one or remove the key to keep the default")
    if isinstance(default, tuple) and isinstance(value, list):
        if not all(isinstance(item, (str, int)) and not isinstance(item, bool) for item in value):
            raise ConfigError(f"{where} must be a list of text items, not {value!r}")
        return tuple(str(item).strip() for item in value if str(item).strip())
    if isinstance(value, (dict, list)):
        raise ConfigError(f"{where} must be a single value, not {_kind(value)}")
    if isinstance(default, bool):
        if isinstance(value, bool):
            return value
    elif isinstance(value, bool):
        # YAML reads yes/no/on/off as booleans; for a text or number input that is almost always a slip.
        raise ConfigError(
            f"{where} must be {'a whole number' if isinstance(default, int) else 'text'}, "
            f"not {value!r}; quote it if you meant the word"
        )
    elif isinstance(default, int) and isinstance(value, float):
        raise ConfigError(f"{where} must be a whole number, not {value!r}")
    try:
        return spec.parse(spec.name, str(value))
    except ConfigError as err:
        message = str(err).removeprefix("input ").removeprefix(f"`{spec.name}` ")
        raise ConfigError(f"{where} {message}") from None


def _rules(value: object, source: str) -> tuple[Mapping[str, Any], ...]:
    """``rules:``: a list of rule mappings, passed on raw (``healer.diagnosis.rules`` validates their
    fields)."""
    if value is None:
        return ()
    if not isinstance(value, list):
        raise ConfigError(f"`{source}`: `rules` must be a list of rules (mappings), not {_kind(value)}")
    for number, rule in enumerate(value, start=1):
        if not isinstance(rule, dict):
            raise ConfigError(f"`{source}`: `rules` item {number} must be a mapping, not {_kind(rule)}")
    return tuple(dict(rule) for rule in value)


def _checks(value: object, source: str) -> Mapping[str, Mapping[str, Any]]:
    """``checks:``: check name (or glob) → ``false`` (off) or a mapping of :data:`CHECK_KEYS`."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise ConfigError(f"`{source}`: `checks` must map check names to settings, not {_kind(value)}")
    result: dict[str, Mapping[str, Any]] = {}
    for name, settings in value.items():
        if not isinstance(name, str) or not name:
            raise ConfigError(f"`{source}`: `checks` key {name!r} must be a check name; quote it")
        where = f"`{source}`: `checks` → `{name}`"
        if isinstance(settings, bool):
            result[name] = {"enabled": settings}
            continue
        if not isinstance(settings, dict):
            raise ConfigError(f"{where} must be true, false or a mapping of {', '.join(CHECK_KEYS)}")
        entry: dict[str, Any] = {}
        for key, item in settings.items():
            if key == "enabled":
                if not isinstance(item, bool):
                    raise ConfigError(f"{where}: `enabled` must be true or false, not {item!r}")
                entry["enabled"] = item
            elif key in ("max-attempts", "max-reruns", "setup-command", "verify-command"):
                entry[key.replace("-", "_")] = _file_value(_SPECS[key], item, f"{where}: `{key}`")
            elif key == "action":
                choices = [action.value for action in Action]
                if item not in choices:
                    raise ConfigError(f"{where}: `action` must be one of {', '.join(choices)}, not {item!r}")
                entry["action"] = item
            else:
                raise ConfigError(f"{where}: unknown key `{key}`; {_suggest(str(key), list(CHECK_KEYS))}")
        result[name] = entry
    return result
