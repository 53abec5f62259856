"""Rule mappings (from YAML) → validated :class:`~healer.diagnosis.rules.rule.Rule` objects, or a
:class:`RuleError`
naming the file, the rule id and the problem; the strict YAML loader of rule files."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from healer.diagnosis import yamltext
from healer.diagnosis.rules.rule import DEFAULT_CONFIDENCE, DEFAULT_CONTEXT, Rule, RuleError
from healer.model import DEFAULT_ACTIONS, Action, Category, Owner

_KEYS = frozenset(
    {
        "id",
        "category",
        "confidence",
        "match",
        "unless",
        "also",
        "step",
        "command",
        "unless_command",
        "job",
        "exit_code",
        "action",
        "fix",
        "context",
        "description",
        "hint",
        "owner",
    }
)
# A hint is a short account of what fixed a failure last time (a learned rule's), not a document.
MAX_HINT = 2000
# A regex this long is a mistake, not a rule; keeping them short keeps matching cheap.
_MAX_PATTERN = 2000
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,99}$")


def _as_list(value: Any, what: str, fail: Any) -> list[Any]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and value:
        return value
    fail(f"`{what}` must be a string or a non-empty list of strings")
    return []  # pragma: no cover - fail raises


def _compile(pattern: Any, what: str, fail: Any) -> re.Pattern[str]:
    if not isinstance(pattern, str) or not pattern:
        fail(f"`{what}` must hold non-empty strings, got {pattern!r}")
    if len(pattern) > _MAX_PATTERN:
        fail(f"a `{what}` expression is longer than {_MAX_PATTERN} characters")
    try:
        return re.compile(pattern)
    except re.error as error:
        fail(f"`{what}` expression {pattern!r} is not a valid regular expression: {error}")
    raise AssertionError("unreachable")  # pragma: no cover


def parse_rule(
    data: Any, *, source: str, position: int, repository: bool = False, learned: bool = False
) -> Rule:
    """Validate one rule mapping and compile it.

    Raises :class:`RuleError` naming the file, the rule and the problem.
    """
    label = f"rule #{position}"
    if isinstance(data, Mapping) and isinstance(data.get("id"), str):
        label = f"rule {data['id']!r}"

    def fail(problem: str) -> None:
        raise RuleError(f"{source}: {label}: {problem}")

    if not isinstance(data, Mapping):
        fail(f"a rule must be a mapping of fields, got {type(data).__name__}")
    unknown = sorted(str(key) for key in data if key not in _KEYS)
    if unknown:
        fail(f"unknown field(s) {', '.join(unknown)}; allowed: {', '.join(sorted(_KEYS))}")
    rule_id = data.get("id")
    if not isinstance(rule_id, str) or not _ID.match(rule_id):
        fail("`id` is required: letters, digits and . _ : / - (at most 100 characters)")
    try:
        category = Category(data.get("category"))
    except ValueError:
        fail(
            f"`category` must be one of {', '.join(c.value for c in Category)}, got {data.get('category')!r}"
        )
    confidence = data.get("confidence", DEFAULT_CONFIDENCE)
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 <= confidence <= 1:
        fail(f"`confidence` must be a number from 0 to 1, got {confidence!r}")
    if "match" not in data:
        fail("`match` is required: a regular expression or a list of them")
    match = tuple(_compile(p, "match", fail) for p in _as_list(data["match"], "match", fail))
    unless, also = (
        tuple(_compile(p, key, fail) for p in _as_list(data[key], key, fail)) if key in data else ()
        for key in ("unless", "also")
    )
    conditions = {
        key: _compile(data[key], key, fail) if key in data else None
        for key in ("step", "command", "unless_command", "job")
    }

    exit_code: frozenset[int] | None = None
    if "exit_code" in data:
        raw = data["exit_code"]
        codes = raw if isinstance(raw, list) else [raw]
        if not codes or not all(isinstance(c, int) and not isinstance(c, bool) for c in codes):
            fail(f"`exit_code` must be an integer or a list of integers, got {raw!r}")
        exit_code = frozenset(codes)

    try:
        action = Action(data["action"]) if "action" in data else DEFAULT_ACTIONS[category]
    except ValueError:
        fail(f"`action` must be one of {', '.join(a.value for a in Action)}, got {data.get('action')!r}")
    fix: tuple[str, ...] = ()
    if "fix" in data:
        raw_fix = data["fix"]
        if isinstance(raw_fix, str):
            raw_fix = [raw_fix]
        if (
            not isinstance(raw_fix, list)
            or not raw_fix
            or not all(isinstance(c, str) and c.strip() for c in raw_fix)
        ):
            fail("`fix` must be a non-empty list of shell commands")
        fix = tuple(raw_fix)
    if action is Action.FIX and not fix:
        fail(
            "the action is `fix` (the default for this category) but no `fix` commands are given; "
            "add `fix:` or set another `action`"
        )
    if fix and action is not Action.FIX:
        fail(f"`fix` commands are only used with `action: fix`, but the action is `{action.value}`")

    context = DEFAULT_CONTEXT
    if "context" in data:
        raw_context = data["context"]
        if (
            not isinstance(raw_context, list)
            or len(raw_context) != 2
            or not all(isinstance(n, int) and not isinstance(n, bool) and 0 <= n <= 30 for n in raw_context)
        ):
            fail(f"`context` must be two integers from 0 to 30, [before, after], got {raw_context!r}")
        context = (raw_context[0], raw_context[1])
    description = data.get("description", "")
    if not isinstance(description, str):
        fail("`description` must be text")
    hint = data.get("hint", "")
    if not isinstance(hint, str) or len(hint) > MAX_HINT:
        fail(f"`hint` must be text of at most {MAX_HINT} characters")
    if hint and action is not Action.AGENT:
        fail(f"a `hint` is only shown to the agent (`action: agent`), but the action is `{action.value}`")

    owner = None
    if "owner" in data:
        try:
            owner = Owner(data["owner"])
        except ValueError:
            fail(f"`owner` must be one of {', '.join(o.value for o in Owner)}, got {data.get('owner')!r}")

    return Rule(
        id=rule_id,
        category=category,
        confidence=float(confidence),
        match=match,
        action=action,
        fix=fix,
        unless=unless,
        also=also,
        step=conditions["step"],
        command=conditions["command"],
        unless_command=conditions["unless_command"],
        job=conditions["job"],
        exit_code=exit_code,
        context=context,
        description=description,
        source=source,
        repository=repository,
        hint=hint,
        learned=learned,
        owner=owner,
    )


def parse_rules(data: Any, *, source: str, repository: bool = False, learned: bool = False) -> list[Rule]:
    """Validate a rule file's content: a mapping with a ``rules:`` list (or the bare list)."""
    if isinstance(data, Mapping):
        if "rules" not in data:
            raise RuleError(f"{source}: no `rules:` list found")
        data = data["rules"]
    if data is None:
        return []
    if not isinstance(data, list):
        raise RuleError(f"{source}: `rules` must be a list of rules, got {type(data).__name__}")
    rules = [
        parse_rule(item, source=source, position=n, repository=repository, learned=learned)
        for n, item in enumerate(data, 1)
    ]
    seen: set[str] = set()
    for rule in rules:
        if rule.id in seen:
            raise RuleError(f"{source}: rule {rule.id!r}: the id is used twice in this file")
        seen.add(rule.id)
    return rules


class _StrictLoader(yamltext.SafeLoader):  # type: ignore[misc,valid-type]
    """A safe loader (libyaml's where present, :mod:`healer.diagnosis.yamltext`) that refuses duplicate keys:
    YAML keeps the last one silently, which would drop a condition or a list of expressions without a word."""


def _mapping_without_duplicates(loader: _StrictLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)
        if key in seen:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_without_duplicates)


def load_yaml(text: str, source: str) -> Any:
    try:
        return yaml.load(text, Loader=_StrictLoader)  # noqa: S506 - a SafeLoader subclass
    except yaml.YAMLError as error:
        raise RuleError(f"{source}: not valid YAML: {' '.join(str(error).split())}") from None


def read_rule_file(path: str | Path, *, repository: bool = True) -> list[Rule]:
    """Load and validate one rule file from disk."""
    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise RuleError(f"{source}: cannot read the rule file: {error}") from None
    return parse_rules(load_yaml(text, source), source=source, repository=repository)
