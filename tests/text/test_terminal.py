"""``healer report`` in a terminal: plain text, every figure, names on one line whatever they hold."""

from __future__ import annotations

from healer.model import Figures, FixPull, OpenEscalation
from healer.text.dashboard import figure_rows
from healer.text.terminal import render_text

FIGURES = Figures(
    since="2026-01-01T00:00:00Z",
    until="2026-02-01T00:00:00Z",
    pulls=3,
    attempts=2,
    fix_pulls=(FixPull(9, "Fix\nlint \x1b", "u", "open", 5, ci="failed"),),
    open_escalations=(OpenEscalation(5, "test\r\n(3.12)", "a" * 40, "2026-01-10T00:00:00Z", "u"),),
    untried_checks=((6, "docs"),),
    hours_to_green=(0.5, 24.0),
    flaky_tests={"t::a": 2},
)


def test_the_terminal_report_has_every_figure_and_names_what_waits_for_a_person() -> None:
    text = render_text(FIGURES, repository="o/r")
    assert text.startswith("CI healer report: o/r, 2026-01-01 to 2026-02-01\n")
    for label, _ in figure_rows(FIGURES):
        assert label in text
    assert "0.5 h and 24.0 h (2 failures)" in text
    assert "#5 test (3.12): escalated on aaaaaaa" in text
    assert "#6 docs: nothing to try" in text
    assert "#9 Fix lint (fixes #5): CI failed, do not merge it as it is" in text
    # no Markdown, and no control character from a name reaches the terminal
    assert "|" not in text and "`" not in text and "mermaid" not in text
    assert "\x1b" not in text and "\r" not in text
