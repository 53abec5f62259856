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
``unless_command``
    A regular expression: the rule does not apply when it is found in the failing step's command (a
    version the command itself names is the command's, not what the rule blames).
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

``owner``
    Whose failure this is, when the category alone does not say: ``code``, ``metadata``, ``repository``,
    ``platform``, ``upstream``, ``history`` or ``nobody`` (by default the category's: the network is the
    platform's, a missing secret the repository's, a test, compiler or linter report the code's). Only the
    pull request's code goes to fix rules or the agent (``docs/diagnosis.md``, "Whose failure it is").
``hint``
    What fixed this failure last time, and where (only with ``action: agent``): the heal frame shows it to
    the agent, fenced as untrusted text. Learned rules carry one (``docs/learning.md``).

Unknown fields are an error (a typo must not silently disable a condition).

Repository rules come first: when one of them matches, it wins over every shipped rule. The repository's
learned rules (``.github/ci-healer/rules/learned.yml``, proposed by the healer and merged by a person) come
next: a rule the repository's people wrote wins over a learned one, a learned one over every shipped rule.
The shipped packs live in ``healer/diagnosis/rules/*.yml``, one per ecosystem.

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

from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any

from healer.diagnosis.rules.parse import load_yaml, parse_rule, parse_rules, read_rule_file
from healer.diagnosis.rules.rule import DEFAULT_CONFIDENCE, DEFAULT_CONTEXT, Rule, RuleError, RuleSet

__all__ = [
    "DEFAULT_CONFIDENCE",
    "DEFAULT_CONTEXT",
    "LEARNED_RULES",
    "PACKS",
    "Rule",
    "RuleError",
    "RuleSet",
    "load_rules",
    "parse_rule",
    "parse_rules",
    "read_rule_file",
    "shipped_rules",
]

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
    "ocaml.yml",
    "terraform.yml",
    "kubernetes.yml",
    "nix.yml",
    "bazel.yml",
    "lua.yml",
    "perl.yml",
    "platforms.yml",
    "testenv.yml",
    "lintcheck.yml",
    "buildenv.yml",
    "depinstall.yml",
)


@lru_cache(maxsize=1)
def shipped_rules() -> tuple[Rule, ...]:
    """The packs under ``healer/diagnosis/rules/``, loaded and compiled once per process."""
    rules: list[Rule] = []
    package = resources.files("healer.diagnosis.rules")
    seen: dict[str, str] = {}
    for name in PACKS:
        source = f"healer/diagnosis/rules/{name}"
        for rule in parse_rules(
            load_yaml(package.joinpath(name).read_text(encoding="utf-8"), source), source=source
        ):
            if rule.id in seen:
                raise RuleError(f"{source}: rule {rule.id!r}: the id is already used in {seen[rule.id]}")
            seen[rule.id] = source
            rules.append(rule)
    return tuple(rules)


LEARNED_RULES = ".github/ci-healer/rules/learned.yml"


def load_rules(
    extra: Sequence[Mapping[str, Any]] = (),
    *,
    files: Sequence[str | Path] = (),
    source: str = ".github/ci-healer.yml",
    shipped: bool = True,
    learned: Sequence[Mapping[str, Any]] = (),
    learned_source: str = LEARNED_RULES,
) -> RuleSet:
    """Build the rule set: repository rules (``extra`` mappings, then ``files``) first, then the learned
    rules (``learned`` mappings, from ``learned_source``), then the packs.

    A repository rule whose id equals a shipped rule's replaces it; a learned rule whose id a repository
    rule has is left out. Raises :class:`RuleError` for any invalid rule.
    """
    repository: list[Rule] = []
    if extra:
        repository.extend(parse_rules(list(extra), source=source, repository=True))
    for path in files:
        repository.extend(read_rule_file(path))
    ids = {rule.id for rule in repository}
    if learned:
        taught = parse_rules(list(learned), source=learned_source, repository=True, learned=True)
        repository.extend(rule for rule in taught if rule.id not in ids)
        ids |= {rule.id for rule in taught}
    packs: Iterable[Rule] = shipped_rules() if shipped else ()
    return RuleSet(tuple(repository) + tuple(rule for rule in packs if rule.id not in ids))
