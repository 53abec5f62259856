"""The rule engine: rules are data (YAML), validated when loaded, matched line by line.

Rule schema
===========

A rule file holds a mapping with a ``rules:`` list (a repository's ``.github/ci-healer.yml`` uses the same
``rules:`` key). Each rule is a mapping:

``id`` (required)
    A unique name, e.g. ``python.pytest-failed``. A repository rule with the id of a shipped rule
    replaces it.
``category`` (required)
    One of ``transient``, ``infrastructure``, ``timeout``, ``cancelled``, ``lint``, ``format``,
    ``typecheck``, ``test``, ``build``, ``dependency``, ``config``, ``unknown``.
``match`` (required)
    A regular expression (Python syntax) or a list of them. The rule matches when any of them is found in
    any line of the failing step's output (timestamps and colour codes removed; ``##[error]`` prefixes kept,
    so an expression without ``^`` also finds annotated lines). The lines that match are the decisive lines.
``also``
    A regular expression or a list: once the rule matched, the lines these find are decisive too (the
    ``file:line`` errors above a summary line, the assertion under a test header). They never make a rule
    match on their own.
``confidence`` (default ``0.8``)
    A number from 0 to 1. When several rules match, the highest confidence wins; on a tie, the rule listed
    first.
``unless``
    A regular expression or a list: the rule does not apply when any of them is found in the failing step.
    This is how a cause beats its symptom: pip's "No matching distribution" is a dependency error *unless*
    the step also says "Temporary failure in name resolution"; then the network rule (``transient``) wins.
``step``, ``command``, ``job``
    A regular expression that must be found in the failing step's name (the web UI's name, or the log's
    ``Run …`` header), its command (the echoed ``run:`` script), or the job (check) name.
``exit_code``
    An integer or a list of integers the failing step's exit code must be one of.
``action``
    ``rerun``, ``fix``, ``agent``, ``escalate`` or ``ignore``. Default: the category's default action
    (transient and infrastructure → rerun, timeout → escalate, format → fix, config → escalate, cancelled →
    ignore, else agent).
``fix``
    A list of shell commands that repair the failure deterministically in a checkout of the pull request's
    head (required when the action is ``fix``, not allowed otherwise). They come from the rule file, never
    from a log.
``context``
    Two integers ``[before, after]`` from 0 to 30: how many lines around each decisive line go into the
    excerpt (default ``[3, 6]``; a compiler error wants more after, a summary line more before).
``description``
    What this kind of failure is, in one short plain sentence (no Markdown): the escalation comment, the fix
    pull request and ``healer diagnose`` give it as the reason a check failed.

Unknown fields are an error (a typo must not silently disable a condition).

Repository rules come first: when one of them matches, it wins over every shipped rule. The shipped packs
live in ``healer/rules/*.yml``, one per ecosystem.

Example::

    rules:
      - id: acme.flaky-upload
        category: transient
        match: 'upload-artifact: .*ECONNRESET'
      - id: acme.docs-lint
        category: lint
        confidence: 0.95
        command: 'make docs-lint'
        match: ['^docs/.*: WARNING: ']
        action: fix
        fix: ['make docs-fix']
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

import yaml

from healer.model import DEFAULT_ACTIONS, Action, Category

PACKS = (
    "generic.yml",
    "python.yml",
    "javascript.yml",
    "go.yml",
    "rust.yml",
    "jvm.yml",
    "cpp.yml",
    "dotnet.yml",
    "ruby.yml",
    "php.yml",
    "apple.yml",
    "dart.yml",
    "haskell.yml",
    "r.yml",
    "julia.yml",
    "scala.yml",
    "elixir.yml",
    "zig.yml",
    "terraform.yml",
    "kubernetes.yml",
    "nix.yml",
    "bazel.yml",
    "lua.yml",
    "perl.yml",
)
DEFAULT_CONFIDENCE = 0.8
DEFAULT_CONTEXT = (3, 6)
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
        "job",
        "exit_code",
        "action",
        "fix",
        "context",
        "description",
    }
)
# A regex this long is a mistake, not a rule; keeping them short keeps matching cheap.
_MAX_PATTERN = 2000
_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.:/-]{0,99}$")


class RuleError(Exception):
    """A rule file or rule is invalid. The message names the file, the rule id and the problem."""


@dataclass(frozen=True)
class Rule:
    """One validated rule (see the module docstring for the meaning of each field)."""

    id: str
    category: Category
    confidence: float
    match: tuple[re.Pattern[str], ...]
    action: Action
    fix: tuple[str, ...] = ()
    unless: tuple[re.Pattern[str], ...] = ()
    also: tuple[re.Pattern[str], ...] = ()
    step: re.Pattern[str] | None = None
    command: re.Pattern[str] | None = None
    job: re.Pattern[str] | None = None
    exit_code: frozenset[int] | None = None
    context: tuple[int, int] = DEFAULT_CONTEXT
    description: str = ""
    source: str = ""
    repository: bool = False
    # each list of expressions combined into one alternation, built once
    _match_any: tuple[re.Pattern[str], ...] = field(default=(), init=False, repr=False, compare=False)
    _unless_any: tuple[re.Pattern[str], ...] = field(default=(), init=False, repr=False, compare=False)
    _also_any: tuple[re.Pattern[str], ...] = field(default=(), init=False, repr=False, compare=False)
    _match_block: tuple[re.Pattern[str], ...] = field(default=(), init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # frozen dataclass: the derived fields are set once, here
        object.__setattr__(self, "_match_any", _combined(self.match))
        object.__setattr__(self, "_unless_any", _combined(self.unless))
        object.__setattr__(self, "_also_any", _combined(self.also))
        object.__setattr__(self, "_match_block", _multiline(self._match_any))

    def applies_to(
        self, *, step: Sequence[str], command: str | None, job: str | None, exit_code: int | None
    ) -> bool:
        """Whether the rule's conditions on the step, command, job and exit code hold."""
        if self.step is not None and not any(self.step.search(name) for name in step if name):
            return False
        if self.command is not None and (command is None or not self.command.search(command)):
            return False
        if self.job is not None and (job is None or not self.job.search(job)):
            return False
        return self.exit_code is None or exit_code in self.exit_code

    def hits(self, line: str) -> bool:
        """Whether any ``match`` expression is found in the line."""
        return _search(self._match_any, line)

    def may_hit(self, block: str) -> bool:
        """False when no ``match`` expression is found in ``block`` (lines joined by newlines), so that no
        line of it can hit: one scan of the block rules a rule out before any line-by-line search."""
        return any(pattern.search(block) is not None for pattern in self._match_block)

    def vetoed(self, line: str) -> bool:
        """Whether any ``unless`` expression is found in the line."""
        return _search(self._unless_any, line)

    def supports(self, line: str) -> bool:
        """Whether any ``also`` expression is found in the line."""
        return _search(self._also_any, line)


def _search(patterns: tuple[re.Pattern[str], ...], line: str) -> bool:
    if len(patterns) == 1:
        return patterns[0].search(line) is not None
    return any(pattern.search(line) for pattern in patterns)


_LEADING_FLAGS = re.compile(r"^\(\?([aiLmsux]+)\)")


def _multiline(patterns: tuple[re.Pattern[str], ...]) -> tuple[re.Pattern[str], ...]:
    """The expressions with ``^`` and ``$`` at every line of a block, for :meth:`Rule.may_hit`."""
    return tuple(re.compile(pattern.pattern, pattern.flags | re.MULTILINE) for pattern in patterns)


def _combined(patterns: tuple[re.Pattern[str], ...]) -> tuple[re.Pattern[str], ...]:
    """One alternation for a rule's expressions: a single scan per line instead of one per expression.

    A leading global flag such as ``(?i)`` becomes a scoped group, which an alternation allows; anything
    that does not combine cleanly is kept as it is.
    """
    if len(patterns) < 2:
        return patterns
    parts = []
    for pattern in patterns:
        text = pattern.pattern
        flags = _LEADING_FLAGS.match(text)
        if flags:
            parts.append(f"(?{flags.group(1)}:{text[flags.end() :]})")
        else:
            parts.append(f"(?:{text})")
    try:
        return (re.compile("|".join(parts)),)
    except re.error:
        return patterns


@dataclass(frozen=True)
class RuleSet:
    """An ordered set of rules: the repository's first, then the shipped packs."""

    rules: tuple[Rule, ...]

    def __len__(self) -> int:
        return len(self.rules)

    def __iter__(self) -> Iterator[Rule]:
        return iter(self.rules)

    def get(self, rule_id: str) -> Rule | None:
        for rule in self.rules:
            if rule.id == rule_id:
                return rule
        return None


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


def parse_rule(data: Any, *, source: str, position: int, repository: bool = False) -> Rule:
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
        key: _compile(data[key], key, fail) if key in data else None for key in ("step", "command", "job")
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
        job=conditions["job"],
        exit_code=exit_code,
        context=context,
        description=description,
        source=source,
        repository=repository,
    )


def parse_rules(data: Any, *, source: str, repository: bool = False) -> list[Rule]:
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
        parse_rule(item, source=source, position=n, repository=repository) for n, item in enumerate(data, 1)
    ]
    seen: set[str] = set()
    for rule in rules:
        if rule.id in seen:
            raise RuleError(f"{source}: rule {rule.id!r}: the id is used twice in this file")
        seen.add(rule.id)
    return rules


class _StrictLoader(yaml.SafeLoader):
    """A safe loader that refuses duplicate keys: YAML keeps the last one silently, which would drop a
    condition or a list of expressions without a word."""


def _mapping_without_duplicates(loader: _StrictLoader, node: yaml.MappingNode) -> dict[Any, Any]:
    seen: set[Any] = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node)
        if key in seen:
            raise yaml.constructor.ConstructorError(None, None, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping_without_duplicates)


def _load_yaml(text: str, source: str) -> Any:
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
    return parse_rules(_load_yaml(text, source), source=source, repository=repository)


@lru_cache(maxsize=1)
def shipped_rules() -> tuple[Rule, ...]:
    """The packs under ``healer/rules/``, loaded and compiled once per process."""
    rules: list[Rule] = []
    package = resources.files("healer.rules")
    seen: dict[str, str] = {}
    for name in PACKS:
        source = f"healer/rules/{name}"
        for rule in parse_rules(
            _load_yaml(package.joinpath(name).read_text(encoding="utf-8"), source), source=source
        ):
            if rule.id in seen:
                raise RuleError(f"{source}: rule {rule.id!r}: the id is already used in {seen[rule.id]}")
            seen[rule.id] = source
            rules.append(rule)
    return tuple(rules)


def load_rules(
    extra: Sequence[Mapping[str, Any]] = (),
    *,
    files: Sequence[str | Path] = (),
    source: str = ".github/ci-healer.yml",
    shipped: bool = True,
) -> RuleSet:
    """Build the rule set: repository rules (``extra`` mappings, then ``files``) first, then the packs.

    A repository rule whose id equals a shipped rule's replaces it. Raises :class:`RuleError` for any
    invalid rule.
    """
    repository: list[Rule] = []
    if extra:
        repository.extend(parse_rules(list(extra), source=source, repository=True))
    for path in files:
        repository.extend(read_rule_file(path))
    ids = {rule.id for rule in repository}
    packs: Iterable[Rule] = shipped_rules() if shipped else ()
    return RuleSet(tuple(repository) + tuple(rule for rule in packs if rule.id not in ids))
