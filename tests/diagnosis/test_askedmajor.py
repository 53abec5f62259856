"""GoReleaser 2 refusing a version 1 configuration (`go.goreleaser-v2-unasked`,
`healer/diagnosis/askedmajor.py`): upstream's where the workflow installed the newest release, the code's
where the step asked for GoReleaser 2 by name."""

from __future__ import annotations

import pytest
from joblogs import CODE, UPSTREAM, diagnose_log, stamped

REFUSED = (
    "  • starting release...",
    "  • only version: 2 configuration files are supported, yours is version: 0, please update your"
    " configuration",
    "  ⨯ release failed after 0s                  error=only version: 2 configuration files are supported,"
    " yours is version: 0, please update your configuration",
    "##[error]The process '/opt/hostedtoolcache/goreleaser-action/2.12.5/x64/goreleaser' failed with exit"
    " code 1",
)


def goreleaser_log(version: str | None, refused: tuple[str, ...] = REFUSED) -> str:
    inputs = ["with:", "  distribution: goreleaser"]
    if version is not None:
        inputs.append(f"  version: {version}")
    header = [
        "##[group]Run goreleaser/goreleaser-action@v6",
        *inputs,
        "  args: release --clean",
        "##[endgroup]",
    ]
    return stamped([*header, *refused])


@pytest.mark.parametrize("version", ["latest", None])
def test_goreleaser_2_installed_as_the_newest_under_a_version_1_file_is_upstreams(
    version: str | None,
) -> None:
    diagnosis = diagnose_log(goreleaser_log(version), job="release")
    assert diagnosis.rule == "go.goreleaser-v2-unasked"
    assert (diagnosis.owner, diagnosis.action) == UPSTREAM


@pytest.mark.parametrize("version", ["'~> v2'", '"~> v2"', "~> v2", "v2.12.5"])
def test_a_step_that_asked_for_goreleaser_2_leaves_the_file_to_the_code(version: str) -> None:
    diagnosis = diagnose_log(goreleaser_log(version), job="release")
    assert (diagnosis.owner, diagnosis.action) == CODE
    assert "asked for the new major itself" in diagnosis.decided_text()


def test_the_older_wording_of_the_refusal_is_read_the_same() -> None:
    older = tuple(
        line.replace(
            "only version: 2 configuration files are supported",
            "only configurations files on  version: 2  are supported",
        )
        for line in REFUSED
    )
    diagnosis = diagnose_log(goreleaser_log("latest", older), job="release")
    assert (diagnosis.rule, diagnosis.owner) == ("go.goreleaser-v2-unasked", UPSTREAM[0])


def golangci_log(version: str) -> str:
    header = [
        "##[group]Run golangci/golangci-lint-action@v8",
        "with:",
        f"  version: {version}",
        "##[endgroup]",
    ]
    output = [
        "Running [/home/runner/golangci-lint-2.1.6-linux-amd64/golangci-lint config verify] in [] ...",
        'jsonschema: "" does not validate with "/required": missing property \'version\'',
        "Failed executing command with error: the configuration contains invalid elements",
        "##[error]golangci-lint exit with code 3",
    ]
    return stamped([*header, *output])


def test_golangci_lint_2_keeps_its_reading_unless_the_step_asked_for_it() -> None:
    assert diagnose_log(golangci_log("latest"), job="lint").owner is UPSTREAM[0]
    asked = diagnose_log(golangci_log("v2.1"), job="lint")
    assert (asked.owner, asked.action) == CODE
