"""Which rules match a scope of a parsed log, best first: the rules' conditions (step, command, job, exit
code), one scan of the scope's distinct lines to rule a rule out, then the lines it hits, its vetoes and its
supporting lines."""

from __future__ import annotations

import re
from dataclasses import dataclass

from healer.diagnosis.logs import JobLog
from healer.diagnosis.rules import Rule, RuleSet

# The runner's "Process completed with exit code N" and an action's own "The process '/usr/bin/xvfb-run'
# failed with exit code N" say only that something failed: they are decisive only when nothing better is.
GENERIC_EXIT = re.compile(
    r"Process completed with exit code|^##\[error\]The process '[^']{1,300}' failed with exit code"
)
# What wraps a tool's own line: the runner's rendering of a ``::error``/``::warning`` workflow command (ruff
# --output-format=github, a script's annotation), BuildKit's ``#12 3.456`` step-and-time prefix around a
# Dockerfile RUN line, Ant's right-aligned task names (``    [junit] ``, ``[ant:checkstyle] ``), and the
# prefixes of the tools that run many others: ``docker compose`` (``app-1  | ``), ``pnpm -r``
# (``packages/core test: ``) and turborepo (``@app/web:lint: ``). Rules written for the tool's line
# (``^src/x.py:1:2: F401``) see it without them.
_WRAPPER = re.compile(
    r"^(?:##\[(?:error|warning|notice)\]"
    r"|#\d{1,4} \d{1,6}\.\d{1,3} "
    r"|\s{1,20}\[[\w:-]{1,40}\] |\[ant:\w{1,40}\] "
    r"|[\w.-]{1,100}[-_]\d{1,3} {1,40}\| "
    r"|[\w@.-]{1,100}(?:/[\w@.-]{1,100}){1,8} [\w:.-]{1,100}[:$] "
    r"|(?:@[\w.-]{1,100}/)?[\w.-]{1,100}:[a-z][\w-]{0,100}(?::[\w-]{1,100}){0,4}: )"
)


@dataclass(frozen=True)
class Found:
    rule: Rule
    lines: tuple[int, ...]
    confidence: float


def rank_rules(
    rules: RuleSet, lines: list[str], scope: list[int], step_names: list[str], log: JobLog, job: str | None
) -> list[Found]:
    """Every rule that matches in ``scope``, best first: the repository's own rules, then its learned rules,
    then confidence, then order."""
    if not scope:
        return []
    found: list[Found] = []
    scope_lines = [(i, _views(lines[i])) for i in scope if lines[i]]
    # whether a rule can hit depends on the distinct lines only: a repeated line is scanned once
    block = "\n".join(dict.fromkeys(view for _, views in scope_lines for view in views))
    lowered = block.lower()
    low_views = [" ".join(views).lower() for _, views in scope_lines]
    for rule in rules:
        if not rule.applies_to(step=step_names, command=log.command, job=job, exit_code=log.exit_code):
            continue
        if not rule.may_hit(block, lowered):
            continue
        hits = tuple(
            i
            for (i, views), low in zip(scope_lines, low_views, strict=True)
            if rule.line_may_hit(low) and any(rule.hits(view) for view in views)
        )
        if not hits:
            continue
        if rule.unless and any(rule.vetoed(view) for _, views in scope_lines for view in views):
            continue
        if rule.also:
            also = {i for i, views in scope_lines if any(rule.supports(view) for view in views)}
            hits = tuple(sorted(set(hits) | also))
        # the generic exit-code line only counts when a rule asks for nothing else
        better = tuple(i for i in hits if not GENERIC_EXIT.search(lines[i])) or hits
        found.append(Found(rule, better, rule.confidence))
    # sorted() is stable: on equal confidence the rule listed first stays first
    return sorted(found, key=lambda f: (not f.rule.repository, f.rule.learned, -f.confidence))


def unwrapped(line: str) -> str:
    """The line as the tool printed it, without the wrapper prefix of the tool that ran it; a line that is
    only the prefix (its trailing space cut) is the tool's empty line."""
    inner = _WRAPPER.match(f"{line} ")
    return line[inner.end() :] if inner else line


def _views(line: str) -> tuple[str, ...]:
    """The line as the log shows it and, when a wrapper prefix is present, as the tool printed it."""
    inner = _WRAPPER.match(line)
    return (line, line[inner.end() :]) if inner else (line,)
