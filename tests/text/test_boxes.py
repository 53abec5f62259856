"""The dashboard's boxes: rendered with a reference the healer verifies, and ticks read back from an edit."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from healer.text.boxes import CLOSE, RETRY, Box, render_box, ticked_boxes, untick

REPO = "o/r"
RETRY_12 = Box(RETRY, 12, "lint / ruff")
CLOSE_101 = Box(CLOSE, 101)


def body(*lines: str) -> str:
    return "\n".join(["<!-- ci-healer:dashboard -->", "intro", "", *lines, "", "## Figures"]) + "\n"


def tick(line: str) -> str:
    return line.replace("- [ ]", "- [x]", 1)


def test_a_tick_of_a_box_the_healer_rendered_is_read_back() -> None:
    retry = render_box(RETRY_12, "#12 `t`: `/ci-healer retry lint / ruff`", repository=REPO)
    close = render_box(CLOSE_101, "close #101 `Fix`", repository=REPO)
    before = body(retry, close)
    assert ticked_boxes(before, body(tick(retry), close), repository=REPO) == [(RETRY_12, tick(retry))]
    assert ticked_boxes(before, body(retry, close.replace("[ ]", "[X]")), repository=REPO)[0][0] == CLOSE_101
    assert ticked_boxes(before, before, repository=REPO) == []  # an edit elsewhere ticks nothing


@pytest.mark.parametrize(
    "forge",
    [
        pytest.param(lambda line: line.replace("retry 12", "retry 13"), id="other-pull"),
        pytest.param(lambda line: line.replace("#12", "#13"), id="visible-text-changed"),
        pytest.param(lambda line: line[:-1] + "X", id="text-appended"),
        pytest.param(
            lambda line: line.replace("ci-healer:box retry", "ci-healer:box close"), id="other-action"
        ),
        pytest.param(lambda line: line.replace("- [ ]", "* [ ]"), id="other-list"),
        pytest.param(lambda line: "  " + line, id="indented"),
    ],
)
def test_a_changed_box_is_no_box_of_the_healers(forge) -> None:  # type: ignore[no-untyped-def]
    line = render_box(RETRY_12, "#12 `t`: retry", repository=REPO)
    forged = forge(line)
    assert ticked_boxes(body(forged), body(tick(forged)), repository=REPO) == []


def test_a_box_typed_and_ticked_in_one_edit_is_no_tick() -> None:
    line = render_box(RETRY_12, "#12", repository=REPO)
    assert ticked_boxes(body(), body(tick(line)), repository=REPO) == []
    # nor one changed as it was ticked (the old line differs from the ticked one)
    other = render_box(RETRY_12, "#12 again", repository=REPO)
    assert ticked_boxes(body(other), body(tick(line)), repository=REPO) == []


def test_with_a_ledger_key_only_boxes_signed_with_it_count() -> None:
    # a person with write access copies a box's line from another repository's dashboard, or computes the
    # plain digest of a box of their own: without the key no digest they can make verifies
    unsigned = render_box(RETRY_12, "#12", repository=REPO)
    signed = render_box(RETRY_12, "#12", repository=REPO, key="secret")
    assert ticked_boxes(body(unsigned), body(tick(unsigned)), repository=REPO, key="secret") == []
    assert ticked_boxes(body(signed), body(tick(signed)), repository=REPO, key="other") == []
    assert ticked_boxes(body(signed), body(tick(signed)), repository="o/other", key="secret") == []
    assert ticked_boxes(body(signed), body(tick(signed)), repository="O/R", key="secret") == [
        (RETRY_12, tick(signed))
    ]


def test_untick_claims_a_ticked_box_once() -> None:
    line = render_box(CLOSE_101, "close #101", repository=REPO)
    ticked = body(tick(line))
    after = untick(ticked, CLOSE_101, repository=REPO)
    assert after == body(line)
    assert untick(after, CLOSE_101, repository=REPO) is None  # a second run finds it unticked
    assert untick(ticked, Box(CLOSE, 102), repository=REPO) is None


@given(check=st.text(min_size=1, max_size=120), text=st.text(max_size=200))
def test_any_name_and_text_stay_inside_one_line_and_read_back(check: str, text: str) -> None:
    box = Box(RETRY, 7, check)
    line = render_box(box, text, repository=REPO)
    assert "\n" not in line and "\r" not in line
    assert line.count("-->") >= 1 and line.index("-->") > line.index("<!--")
    assert len(line.splitlines()) == 1  # every kind of line break folded, as `splitlines` reads them
    assert ticked_boxes(body(line), body(tick(line)), repository=REPO) == [(box, tick(line))]
