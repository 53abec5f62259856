"""The failure finder that needs no rule: the evidence in the failing command's output, and an excerpt of it.

:func:`find_evidence` reads each line of a scope (the failing step, the failing Travis or GitLab command, or
a plain log) with :func:`healer.diagnosis.shapes.read_line`; :func:`first_real_failure` is the first line that
is a failure's own report (strength 3), else the first error. :func:`rule_free_excerpt` spends the excerpt
budget on them: the first real failure with what follows it (the assertion under a test's name, the notes
under a compiler error), the last report (the run's summary), the reports in between, then the end of the
command's output.

The rule-free excerpt may be larger than a rule's: no rule said which lines decide, so the agent gets more to
read, up to :data:`RULE_FREE_BYTES` (8 KiB) and :data:`RULE_FREE_LINES` lines. 120 lines is what 8 KiB holds
at the typical length of a log line (about 70 bytes): with fewer, short lines would end the excerpt long
before its bytes; with more, a flood of one-word lines could fill it with nothing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from healer.diagnosis.shapes import Evidence, candidates, read_line
from healer.model import Category

RULE_FREE_BYTES = 8 * 1024
RULE_FREE_LINES = 120
# How much of a line the excerpt shows, as for rule excerpts (one minified line must not eat the budget).
MAX_LINE_CHARS = 1000
# The windows around evidence: (before, after) lines.
LEAD_WINDOW = (3, 14)
SUMMARY_WINDOW = (3, 6)
OTHER_WINDOW = (1, 4)
TAIL_LINES = 8
# At most this many evidence lines get a window of their own (the budget usually ends it first).
MAX_WINDOWS = 400
MAX_DECISIVE = 20
# The finder reads at most this many lines of a step (its start and its end), so its cost stays bounded.
MAX_FINDER_LINES = 12_000


@dataclass(frozen=True)
class Found:
    """What the finder found in a scope: the evidence lines in order and the first real failure."""

    evidence: tuple[Evidence, ...]
    first: int | None

    def strong(self) -> list[Evidence]:
        return [e for e in self.evidence if e.strength >= 2]


def find_evidence(lines: Sequence[str], scope: Iterable[int]) -> Found:
    """Every evidence line of ``scope`` (indexes into ``lines``), and the first real failure among them."""
    found = []
    scope = list(scope)
    if len(scope) > MAX_FINDER_LINES:
        # a huge step: its start (where the first failure usually is) and its end (the summary)
        half = MAX_FINDER_LINES // 2
        scope = scope[:half] + scope[-half:]
    # a line's reading depends on its text only, and long outputs repeat their lines (progress, warnings,
    # passing tests): each distinct text is read once
    seen: dict[str, tuple[int, Category | None]] = {}
    for index in candidates(lines, scope):
        text = lines[index]
        reading = seen.get(text)
        if reading is None:
            reading = seen[text] = read_line(text, candidate=True)
        strength, category = reading
        if strength:
            found.append(Evidence(index, strength, category))
    return Found(tuple(found), first_real_failure(found))


def first_real_failure(evidence: Sequence[Evidence]) -> int | None:
    """The first failure's own report; else the first error; else the last weak evidence (weak words are
    everywhere in a long output, and the failure is at its end); else None."""
    for floor in (3, 2):
        for item in evidence:
            if item.strength >= floor:
                return item.index
    return evidence[-1].index if evidence else None


def _window(index: int, span: tuple[int, int], low: int, high: int) -> list[int]:
    before, after = span
    return list(range(max(low, index - before), min(high, index + after + 1)))


def rule_free_excerpt(
    lines: Sequence[str],
    found: Found,
    scope: Sequence[int],
    tail: Sequence[int] = (),
    *,
    max_lines: int = RULE_FREE_LINES,
    max_bytes: int = RULE_FREE_BYTES,
) -> tuple[list[int], list[int]]:
    """The line indexes of the excerpt (sorted) and its decisive lines, within the budget. ``tail``: the end
    of the failing command's output, shown after the evidence (with the step's header when it said little);
    by default the last lines of ``scope``."""
    if not scope and not tail:
        return [], []
    low, high = (scope[0], scope[-1] + 1) if scope else (0, 0)
    inside = set(scope).union(tail)
    chosen: set[int] = set()
    used = [0]

    def size(index: int) -> int:
        return min(len(lines[index]), MAX_LINE_CHARS) + 1

    def add(candidates: list[int]) -> bool:
        fresh = sorted(i for i in candidates if i in inside and i not in chosen and lines[i].strip())
        if not fresh:
            return True
        merged = sorted(chosen.union(fresh))
        gaps = sum(1 for a, b in zip(merged, merged[1:], strict=False) if b != a + 1)
        extra = sum(size(i) for i in fresh)
        if len(merged) + gaps > max_lines or used[0] + extra > max_bytes:
            return False
        used[0] += extra
        chosen.update(fresh)
        return True

    def add_window(index: int, span: tuple[int, int]) -> bool:
        window = _window(index, span, low, high)
        ordered = sorted(window, key=lambda i: (abs(i - index), i))
        return any(add(ordered[:n]) for n in range(len(ordered), 0, -1))

    strong = found.strong() or list(found.evidence)
    decisive: list[int] = []
    if found.first is not None:
        add_window(found.first, LEAD_WINDOW)
        decisive.append(found.first)
    if strong and strong[-1].index != found.first:
        add_window(strong[-1].index, SUMMARY_WINDOW)
        decisive.append(strong[-1].index)
    after = [e.index for e in strong if found.first is None or e.index > found.first]
    for index in after[:MAX_WINDOWS]:
        if index in decisive:
            continue
        if index not in chosen and not add_window(index, OTHER_WINDOW):
            break  # the budget is spent
        decisive.append(index)
    ending = [i for i in (tail or scope[-TAIL_LINES * 4 :]) if lines[i].strip()][-TAIL_LINES:]
    if tail and tail[0] not in ending and lines[tail[0]].startswith("##[group]Run "):
        ending.insert(0, tail[0])  # a step that said little: its header says what it ran
    for index in reversed(ending):
        if not add([index]):
            break
    shown = sorted(chosen)
    kept = [i for i in sorted(decisive) if i in chosen][:MAX_DECISIVE]
    return shown, kept
