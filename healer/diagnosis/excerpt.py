"""Which log lines a diagnosis shows: the first failure first, then the run's summary, then what fits.

An excerpt is bounded (:data:`MAX_EXCERPT_LINES` lines, gap markers included, and :data:`MAX_EXCERPT_BYTES`
bytes), so the order in which lines are offered decides what survives a long log: the first failure's decisive
lines with their context, the last decisive line (usually the tool's summary), a competing reading's first
line, then the other decisive lines and the end of the failing step.
"""

from __future__ import annotations

from collections.abc import Sequence

MAX_EXCERPT_LINES = 60
MAX_EXCERPT_BYTES = 8 * 1024
# A single excerpt line is cut here so that one minified line cannot eat the whole excerpt budget.
MAX_EXCERPT_LINE_CHARS = 1000
MAX_DECISIVE = 20
GAP = "…"
# How far above the first failure's header a decisive line may sit and still lead (a file name above its
# first error, a test's name above its assertion).
LEAD_SLACK = 3
# Decisive lines this close above the first failure still belong to it.
NEAR_ABOVE = 40


def near_failure(indexes: Sequence[int], first_failure: int | None) -> list[int]:
    """``indexes`` without those far above the first failure (see :func:`priority`)."""
    if first_failure is None:
        return list(indexes)
    return [i for i in indexes if i >= first_failure - NEAR_ABOVE]


def clip(line: str) -> str:
    """A line cut to :data:`MAX_EXCERPT_LINE_CHARS`."""
    return line if len(line) <= MAX_EXCERPT_LINE_CHARS else line[:MAX_EXCERPT_LINE_CHARS] + "…"


def priority(decisive: Sequence[int], first_failure: int | None = None) -> list[int]:
    """The decisive lines in the order they claim room, at most :data:`MAX_DECISIVE`.

    The lead is the first decisive line at (or just above) ``first_failure``, the first failure header the
    tool printed in the failing step; without one, the first decisive line. Then the last decisive line (the
    summary), then the lines after the lead in order, then those at most :data:`NEAR_ABOVE` lines above it
    (a data race reported before the test that failed on it), nearest first. Lines caught further above are
    left out: output from before the failure (a noisy analyser's "Exception analyzing …") never outranks it.
    """
    ordered = sorted(set(decisive))
    if len(ordered) <= 1:
        return ordered
    lead_at = 0
    if first_failure is not None:
        lead_at = next((n for n, i in enumerate(ordered) if i >= first_failure - LEAD_SLACK), 0)
    lead = ordered[lead_at]
    after = [i for i in ordered[lead_at + 1 :] if i != ordered[-1]]
    near = [i for i in reversed(ordered[:lead_at]) if lead - i <= NEAR_ABOVE]
    out = [lead] + ([ordered[-1]] if ordered[-1] != lead else []) + after + near
    return out[:MAX_DECISIVE]


def build_excerpt(
    lines: Sequence[str],
    decisive: Sequence[int],
    context: tuple[int, int],
    end_of_step: Sequence[int],
    *,
    rival: Sequence[int] = (),
) -> list[int]:
    """Pick the line indexes of the excerpt: each decisive line (in the order given, see :func:`priority`)
    with its context, a rival reading's first line, then the end of the step."""
    chosen: set[int] = set()
    budget = {"bytes": 0}
    before, after = context

    def size(index: int) -> int:
        return len(clip(lines[index]).encode("utf-8", "replace")) + 1

    def cost(extra: set[int]) -> tuple[int, int]:
        merged = chosen | extra
        ordered = sorted(merged)
        gaps = sum(1 for a, b in zip(ordered, ordered[1:], strict=False) if b != a + 1)
        return len(merged) + gaps, budget["bytes"] + sum(size(i) for i in extra - chosen)

    def add(candidates: list[int]) -> bool:
        fresh = {i for i in candidates if i not in chosen}
        if not fresh:
            return True
        count, used = cost(fresh)
        if count > MAX_EXCERPT_LINES or used > MAX_EXCERPT_BYTES:
            return False
        budget["bytes"] = used
        chosen.update(fresh)
        return True

    for index in decisive:
        window = list(range(max(0, index - before), min(len(lines), index + after + 1)))
        # grow the window outwards from the decisive line so that a tight budget keeps the line itself
        ordered = sorted(window, key=lambda i: (abs(i - index), i))
        for n in range(len(ordered), 0, -1):
            if add(ordered[:n]):
                break
    for index in rival:
        window = [index, index - 1, index + 1, index + 2]
        if not add([i for i in window if 0 <= i < len(lines)]):
            add([index])
    tail = [i for i in end_of_step if lines[i].strip()]
    room = 8 if decisive else len(tail)
    for index in reversed(tail[-room:]):
        if not add([index]):
            break
    return sorted(chosen)


def render(lines: Sequence[str], chosen: Sequence[int]) -> tuple[str, ...]:
    """The chosen lines, with :data:`GAP` where lines were left out."""
    out: list[str] = []
    previous: int | None = None
    for index in chosen:
        if previous is not None and index != previous + 1:
            out.append(GAP)
        out.append(clip(lines[index]))
        previous = index
    return tuple(out)
