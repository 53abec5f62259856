"""action.yml mirrors the inputs table, maps every input to its HEALER_* variable, keeps expressions out of
scripts, pins what it uses, and installs from a hash-checked lock that covers the package's dependencies."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from healer.config import INPUTS
from healer.run.app import DECISIONS

ROOT = Path(__file__).resolve().parent.parent
ACTION: dict[str, Any] = yaml.safe_load((ROOT / "action.yml").read_text())
STEPS: list[dict[str, Any]] = ACTION["runs"]["steps"]
RUN_STEP = next(step for step in STEPS if step.get("id") == "run")


def test_inputs_mirror_the_inputs_table() -> None:
    assert list(ACTION["inputs"]) == [spec.name for spec in INPUTS]
    for spec in INPUTS:
        declared = ACTION["inputs"][spec.name]
        assert declared["default"] == spec.default, spec.name
        assert declared["description"] == spec.description, spec.name
        assert declared.get("required", False) is False


def test_every_input_reaches_the_healer_as_its_env_variable() -> None:
    env = RUN_STEP["env"]
    for spec in INPUTS:
        if spec.name == "github-token":
            # an empty input falls back to the job's own token
            assert env[spec.env] == "${{ inputs.github-token || github.token }}"
        else:
            assert env[spec.env] == f"${{{{ inputs.{spec.name} }}}}"


def test_outputs_are_the_documented_seven_and_come_from_the_run_step() -> None:
    assert list(ACTION["outputs"]) == [
        "decision",
        "attempt",
        "category",
        "fix-pull-request",
        "frame-path",
        "agent-tokens",
        "bundle-path",
    ]
    for name, output in ACTION["outputs"].items():
        assert output["value"] == f"${{{{ steps.run.outputs.{name} }}}}"
    assert all(f"`{d}`" in ACTION["outputs"]["decision"]["description"] for d in DECISIONS)


@pytest.mark.parametrize("step", [s for s in STEPS if "run" in s], ids=lambda s: s["name"])
def test_no_expression_inside_a_script(step: dict[str, Any]) -> None:
    assert "${{" not in step["run"]
    assert step["shell"] == "bash"


def test_third_party_actions_are_pinned_by_sha_with_a_version_comment() -> None:
    text = (ROOT / "action.yml").read_text()
    uses = re.findall(r"uses: (\S+)(.*)", text)
    assert uses
    for ref, rest in uses:
        assert re.fullmatch(r"[\w.-]+/[\w.-]+(/[\w.-]+)?@[0-9a-f]{40}", ref), ref  # owner/repo[/path]@sha
        assert re.fullmatch(r"\s+# v\d+\.\d+\.\d+", rest), ref


def test_the_lock_pins_and_hashes_every_runtime_dependency() -> None:
    lock = (ROOT / "requirements" / "action.txt").read_text()
    pinned = dict(re.findall(r"^([a-z0-9._-]+)==(\S+) \\$", lock, re.MULTILINE))
    # (tomllib is 3.11+; the project's runtime list is simple enough to read with a pattern)
    block = re.search(r"^dependencies = \[(.*?)^\]", (ROOT / "pyproject.toml").read_text(), re.M | re.S)
    assert block is not None
    names = re.findall(r'^\s*"([A-Za-z0-9._-]+)', block.group(1), re.MULTILINE)
    assert names
    for name in names:
        assert name.lower() in pinned, name
    blocks = re.split(r"\n(?=[a-z0-9._-]+==)", lock.split("\n", 6)[-1])
    for block in blocks:
        if "==" in block:
            assert "--hash=sha256:" in block, block.splitlines()[0]
    install = next(s for s in STEPS if " pip " in s.get("run", ""))
    assert "--require-hashes" in install["run"] and "--only-binary=:all:" in install["run"]
    assert "/opt/" not in lock and "--find-links" not in lock


def test_every_package_under_healer_is_listed_for_installation() -> None:
    # setuptools installs only the packages pyproject.toml lists; a package left out works in an editable
    # checkout and is missing from `pip install .`
    line = re.search(r"^packages = \[(.*?)\]", (ROOT / "pyproject.toml").read_text(), re.M | re.S)
    assert line is not None
    listed = set(re.findall(r'"([\w.]+)"', line.group(1)))
    found = {
        ".".join(init.parent.relative_to(ROOT).parts)
        for init in (ROOT / "healer").rglob("__init__.py")
        if "__pycache__" not in init.parts
    }
    assert "healer.config" in found
    assert found <= listed, sorted(found - listed)
