"""A validated rule (:class:`Rule`), how its expressions are matched, and an ordered :class:`RuleSet`."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

from healer.diagnosis.rules.literals import any_required_words
from healer.model import Action, Category, Owner

DEFAULT_CONFIDENCE = 0.8
DEFAULT_CONTEXT = (3, 6)


class RuleError(Exception):
    """A rule file or rule is invalid. The message names the file, the rule id and the problem."""


@dataclass(frozen=True)
class Rule:
    """One validated rule (see the docstring of :mod:`healer.diagnosis.rules` for the meaning of each
    field)."""

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
    unless_command: re.Pattern[str] | None = None
    job: re.Pattern[str] | None = None
    exit_code: frozenset[int] | None = None
    context: tuple[int, int] = DEFAULT_CONTEXT
    description: str = ""
    source: str = ""
    repository: bool = False
    hint: str = ""  # what fixed this failure last time (learned rules; shown fenced in the heal frame)
    learned: bool = False  # from the repository's learned rules: ranked after its own rules
    owner: Owner | None = None  # whose failure it is, when the kind alone does not say (diagnosis.owner)
    # what matching derives from the expressions (the words every match holds, one alternation per list, its
    # block form) is built on first use, each a cached property: every healer process loads all the rules, and
    # a log holds the words of few of them, so most never need their alternation compiled

    @cached_property
    def _words(self) -> frozenset[str] | None:
        """The lower-cased words one of which every match of ``match`` holds (None: unknown)."""
        return any_required_words(self.match)

    @cached_property
    def _match_any(self) -> tuple[re.Pattern[str], ...]:
        return _combined(self.match)

    @cached_property
    def _match_block(self) -> tuple[re.Pattern[str], ...]:
        return _multiline(self._match_any)

    @cached_property
    def _unless_any(self) -> tuple[re.Pattern[str], ...]:
        return _combined(self.unless)

    @cached_property
    def _also_any(self) -> tuple[re.Pattern[str], ...]:
        return _combined(self.also)

    def applies_to(
        self, *, step: Sequence[str], command: str | None, job: str | None, exit_code: int | None
    ) -> bool:
        """Whether the rule's conditions on the step, command, job and exit code hold."""
        if self.step is not None and not any(self.step.search(name) for name in step if name):
            return False
        if self.command is not None and (command is None or not self.command.search(command)):
            return False
        if self.unless_command is not None and command is not None and self.unless_command.search(command):
            return False
        if self.job is not None and (job is None or not self.job.search(job)):
            return False
        return self.exit_code is None or exit_code in self.exit_code

    def hits(self, line: str) -> bool:
        """Whether any ``match`` expression is found in the line."""
        return _search(self._match_any, line)

    def may_hit(self, block: str, lowered: str | None = None) -> bool:
        """False when no ``match`` expression is found in ``block`` (lines joined by newlines), so that no
        line of it can hit: one scan of the block rules a rule out before any line-by-line search.
        ``lowered`` (the block lower-cased, once for all rules) lets an expression whose required words
        (:mod:`healer.diagnosis.rules.literals`) the block does not hold be ruled out without running."""
        words = self._words
        if lowered is not None and words is not None and not any(word in lowered for word in words):
            return False
        return any(pattern.search(block) is not None for pattern in self._match_block)

    def line_may_hit(self, lowered: str) -> bool:
        """False when the lower-cased line holds none of the words every ``match`` expression requires."""
        words = self._words
        return words is None or any(word in lowered for word in words)

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
    return tuple(
        # MULTILINE changes only what ^ and $ match: an expression with neither is its own block form
        re.compile(pattern.pattern, pattern.flags | re.MULTILINE)
        if "^" in pattern.pattern or "$" in pattern.pattern
        else pattern
        for pattern in patterns
    )


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
    """An ordered set of rules: the repository's own first, then its learned rules, then the shipped packs."""

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
