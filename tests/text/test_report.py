"""The Actions side: workflow commands, step outputs and the job summary, read back as the runner would."""

from __future__ import annotations

import base64
import io
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from healer.text.frames import SUMMARY_LIMIT
from healer.text.report import Reporter, escape_data, write_outputs, write_summary


def read_outputs(path: Path) -> dict[str, str]:
    """Parse $GITHUB_OUTPUT the way the runner does (``name=value`` and ``name<<DELIM`` blocks)."""
    values: dict[str, str] = {}
    lines = path.read_text().split("\n")
    i = 0
    while i < len(lines):
        line = lines[i]
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            end = lines.index(delimiter, i + 1)
            values[name] = "\n".join(lines[i + 1 : end])
            i = end + 1
        elif line:
            name, value = line.split("=", 1)
            values[name] = value
            i += 1
        else:
            i += 1
    return values


@given(
    st.dictionaries(
        st.sampled_from(["decision", "attempt", "frame-path", "category"]),
        st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\r"), max_size=40),
    )
)
def test_outputs_round_trip(tmp_path_factory: pytest.TempPathFactory, outputs: dict[str, str]) -> None:
    path = tmp_path_factory.mktemp("out") / "output"
    write_outputs(str(path), outputs)
    assert read_outputs(path) == outputs


def test_outputs_append_and_skip_without_a_path(tmp_path: Path) -> None:
    path = tmp_path / "output"
    path.write_text("earlier=1\n")
    write_outputs(str(path), {"decision": "healed", "fix-pull-request": ""})
    assert read_outputs(path) == {"earlier": "1", "decision": "healed", "fix-pull-request": ""}
    write_outputs(None, {"decision": "x"})  # outside Actions: nothing to write, no error


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        pytest.param("100% done", "100%25 done", id="percent"),
        pytest.param("a\nb\r", "a%0Ab%0D", id="newlines"),
    ],
)
def test_escape_data(message: str, expected: str) -> None:
    assert escape_data(message) == expected


def test_error_is_one_line_whatever_the_message() -> None:
    out = io.StringIO()
    Reporter(out).error("bad input\n::add-mask::x", title="ci-healer: setup")
    assert out.getvalue() == "::error title=ci-healer%3A setup::bad input%0A::add-mask::x\n"


def test_mask_every_line_of_a_secret() -> None:
    out = io.StringIO()
    Reporter(out).mask("line1\nline2")
    assert out.getvalue().splitlines() == ["::add-mask::line1", "::add-mask::line2"]


def test_a_token_is_masked_with_its_base64_forms() -> None:
    out = io.StringIO()
    token = "ghs_" + "x" * 36
    Reporter(out).mask_token(token)
    masked = [line.removeprefix("::add-mask::") for line in out.getvalue().splitlines()]
    assert masked[0] == token and len(masked) == len(set(masked)) > 1
    # a basic-auth header (``x-access-token:<token>`` in base64, as git sends it) shows one of them
    header = base64.b64encode(f"x-access-token:{token}".encode()).decode()
    assert any(form in header for form in masked[1:])


def test_group_closes_even_on_error() -> None:
    out = io.StringIO()
    with pytest.raises(RuntimeError), Reporter(out).group("Act"):
        raise RuntimeError
    assert out.getvalue().splitlines() == ["::group::Act", "::endgroup::"]


def test_untrusted_text_is_printed_with_workflow_commands_off() -> None:
    out = io.StringIO()
    Reporter(out).untrusted("log says\n::add-mask::everything\n::error::fake")
    lines = out.getvalue().splitlines()
    token = re.fullmatch(r"::stop-commands::([0-9a-f]{32})", lines[0]).group(1)  # type: ignore[union-attr]
    assert lines[-1] == f"::{token}::"
    assert lines[1:-1] == ["log says", "::add-mask::everything", "::error::fake"]


def test_summary_is_appended_and_clipped(tmp_path: Path) -> None:
    path = tmp_path / "summary.md"
    write_summary(str(path), "# one\n")
    write_summary(str(path), "x" * (SUMMARY_LIMIT + 10))
    text = path.read_text()
    assert text.startswith("# one\n")
    assert len(text.encode()) <= SUMMARY_LIMIT + len("# one\n")
    write_summary(None, "ignored")
