"""``healer report`` in a terminal: the figures as plain text (no Markdown table, no mermaid source), with the
open escalations, fix pull requests and checks with nothing to try named. Pure.

Names from pull requests and logs are printed as they are, on one line each (control characters replaced):
a terminal renders no Markdown, so nothing needs defusing, but a newline or an escape sequence in a check name
must not move the cursor or forge a line."""

from __future__ import annotations

from healer.model import Figures
from healer.text.dashboard import figure_rows, fix_state
from healer.text.spans import one_line

_SHOWN = 20
_SHORTCODES = {":white_check_mark: ": "", ":x: ": "", ":hourglass_flowing_sand: ": ""}


def _plain(text: object, limit: int = 120) -> str:
    line = " ".join(one_line(str(text)).split())
    for code, word in _SHORTCODES.items():
        line = line.replace(code, word)
    return line if len(line) <= limit else line[: limit - 1] + "…"


def render_text(figures: Figures, *, repository: str) -> str:
    """The report for a terminal."""
    rows = [(label, _plain(value)) for label, value in figure_rows(figures)]
    width = max(len(label) for label, _ in rows)
    lines = [f"CI healer report: {_plain(repository)}, {figures.since[:10]} to {figures.until[:10]}", ""]
    lines += [f"  {label.ljust(width)}  {value}" for label, value in rows]
    waiting = [
        f"  #{e.pull} {_plain(e.check, 80)}: escalated on {e.sha[:7]}, {e.at[:10]}"
        for e in figures.open_escalations[:_SHOWN]
    ]
    waiting += [
        f"  #{pull} {_plain(check, 80)}: nothing to try (no fix rule, no agent-command)"
        for pull, check in figures.untried_checks[:_SHOWN]
    ]
    fixes = [
        f"  #{p.number} {_plain(p.title, 80)} (fixes #{p.for_pull}): {_plain(fix_state(p))}"
        for p in figures.fix_pulls
        if p.state == "open"
    ][:_SHOWN]
    for title, block in (("Waiting for a person", waiting), ("Open fix pull requests", fixes)):
        if block:
            lines += ["", title, *block]
    if figures.flaky_tests:
        lines += ["", "Flaky tests"]
        lines += [
            f"  {times}x {_plain(test, 100)}" for test, times in list(figures.flaky_tests.items())[:_SHOWN]
        ]
    lines += [f"note: {_plain(note, 300)}" for note in figures.notes]
    return "\n".join(lines) + "\n"
