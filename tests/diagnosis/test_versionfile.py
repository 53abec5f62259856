"""A toolchain version the set-up could not find: the workflow's when the workflow named it, the code's when
a version file of the tree did, and back to the base branch when the pull request changed neither."""

from __future__ import annotations

import pytest
from joblogs import CODE, diagnose_log, stamped

from healer.diagnosis.installinputs import applies, untouched_install
from healer.model import Action, Category, Owner

NODE_MISSING = [
    "Attempting to download 22.99.0...",
    "##[error]Unable to find Node version '22.99.0' for platform linux and architecture x64.",
]
PYTHON_MISSING = [
    "Version 3.19.0 was not found in the local cache",
    "##[error]The version '3.19.0' with architecture 'x64' was not found for Ubuntu 24.04.",
]


def setup_log(action: str, inputs: list[str], output: list[str]) -> str:
    """A job whose failing step is the set-up ``action`` with ``inputs`` under its ``with:`` header."""
    header = [f"##[group]Run {action}", "with:", *(f"  {line}" for line in inputs), "##[endgroup]"]
    return stamped([*header, *output, "Post job cleanup."])


@pytest.mark.parametrize(
    ("action", "inputs", "output"),
    [
        ("actions/setup-node@v4", ["node-version-file: .nvmrc", "check-latest: false"], NODE_MISSING),
        # setup-node's own line says which file it read
        ("actions/setup-node@v4", ["check-latest: false"], ["Resolved .node-version as 22.9", *NODE_MISSING]),
        ("actions/setup-python@v5", ["python-version-file: .python-version"], PYTHON_MISSING),
    ],
)
def test_a_version_read_from_a_file_of_the_tree_is_the_codes(
    action: str, inputs: list[str], output: list[str]
) -> None:
    diagnosis = diagnose_log(setup_log(action, inputs, output), job="build")
    assert diagnosis.rule == "config.setup-version"
    assert (diagnosis.owner, diagnosis.action) == CODE
    assert diagnosis.category is Category.CONFIG
    assert "a file of the repository's tree" in dict(diagnosis.decided_by)["evidence"]


@pytest.mark.parametrize(
    "inputs",
    [
        ["node-version: 22.99.0"],
        # an explicit version wins over the file (setup-node warns when both are given)
        ["node-version: 22.99.0", "node-version-file: .nvmrc"],
    ],
)
def test_a_version_the_workflow_names_stays_the_workflows(inputs: list[str]) -> None:
    diagnosis = diagnose_log(setup_log("actions/setup-node@v4", inputs, NODE_MISSING), job="build")
    assert diagnosis.rule == "config.setup-version"
    assert diagnosis.owner is not Owner.CODE and diagnosis.action is Action.ESCALATE


def test_an_unchanged_version_file_is_the_base_branchs_too() -> None:
    log = setup_log("actions/setup-node@v4", ["node-version-file: .nvmrc"], NODE_MISSING)
    diagnosis = diagnose_log(log, job="build")
    assert applies(diagnosis)
    # the pull request changed only its sources: the base branch sets up the same version
    given = untouched_install(diagnosis, ["src/index.ts"])
    assert (given.owner, given.action) == (Owner.UPSTREAM, Action.ESCALATE)
    assert dict(given.decided_by)["changes"].endswith("its base branch sets up the same")
    # it changed the version file, or the workflow: its own
    assert untouched_install(diagnosis, ["src/index.ts", ".nvmrc"]) is diagnosis
    assert untouched_install(diagnosis, [".github/workflows/ci.yml"]) is diagnosis
