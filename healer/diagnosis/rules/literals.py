"""The words an expression cannot match without: a cheap pre-filter before a rule's expressions run.

For an expression such as ``^npm ERR! code E(?:RESOLVE|404)`` every match contains ``npm err! code e``
(lower-cased); for ``(?i)connection reset|ECONNRESET`` one of ``connection reset`` and ``econnreset``.
:func:`required_words` finds such a set from the expression's parse tree (Python's own parser); a block of
lines that holds none of them (a plain substring search of its lower-cased text, far cheaper than running
the expression) cannot match, so the rule is ruled out without its expression ever running. When no such set
can be told (a character class first, an optional part), the expression runs as before: the pre-filter only
ever spares work, it never changes what matches.
"""

from __future__ import annotations

import re
from typing import Any

try:  # Python 3.11+
    from re import _constants as _c  # type: ignore[attr-defined]
    from re import _parser as _p  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as _c  # type: ignore[no-redef]
    import sre_parse as _p  # type: ignore[no-redef]

# shorter words than this are in nearly every block: not worth looking for (a rare sign such as ``✖`` is)
MIN_WORD = 3
MAX_WORDS = 64


def required_words(pattern: re.Pattern[str]) -> frozenset[str] | None:
    """Lower-cased words one of which every match of ``pattern`` holds; None when that cannot be told."""
    try:
        tree = _p.parse(pattern.pattern, pattern.flags)
    except Exception:  # noqa: BLE001 - a pattern Python compiled parses; anything odd means "cannot tell"
        return None
    words = _sequence(list(tree))
    if not words or len(words) > MAX_WORDS or any(len(w) < MIN_WORD and w.isascii() for w in words):
        return None
    return frozenset(words)


def any_required_words(patterns: tuple[re.Pattern[str], ...]) -> frozenset[str] | None:
    """Lower-cased words one of which every match of any of ``patterns`` holds (the union of each one's
    :func:`required_words`); None when that cannot be told for one of them."""
    union: set[str] = set()
    for pattern in patterns:
        words = required_words(pattern)
        if words is None:
            return None
        union |= words
    return frozenset(union) if union and len(union) <= MAX_WORDS else None


def _sequence(items: list[tuple[Any, Any]]) -> set[str] | None:
    """The best requirement of a sequence: its longest literal run, or a part's own requirement."""
    best: set[str] | None = None
    run: list[str] = []

    def consider(candidate: set[str] | None) -> None:
        nonlocal best
        if candidate and (best is None or min(map(len, candidate)) > min(map(len, best))):
            best = candidate

    for op, av in items:
        if op is _c.LITERAL:
            run.append(chr(av).lower())
            continue
        consider({"".join(run)} if run else None)
        run = []
        if op is _c.SUBPATTERN:
            consider(_sequence(list(av[-1])))
        elif op is _c.BRANCH:
            consider(_branch(av[1]))
        elif op in (_c.MAX_REPEAT, _c.MIN_REPEAT) and av[0] >= 1:
            consider(_sequence(list(av[2])))
    consider({"".join(run)} if run else None)
    return best


def _branch(branches: list[Any]) -> set[str] | None:
    words: set[str] = set()
    for branch in branches:
        found = _sequence(list(branch))
        if not found:
            return None
        words |= found
    return words
