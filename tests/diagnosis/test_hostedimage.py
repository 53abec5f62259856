"""A tool GitHub's hosted image stopped shipping (`healer/diagnosis/hostedimage.py`): the image changed under
an unchanged workflow, upstream's; the same words on another image or for another tool keep their reading."""

from __future__ import annotations

import pytest
from joblogs import UPSTREAM, diagnose_log, job_log

from healer.diagnosis.hostedimage import DROPPED, hosted_image

MONO = "mono packages/NUnit.ConsoleRunner/tools/nunit3-console.exe tests/bin/Release/net48/App.Tests.dll"
NOT_FOUND = "/home/runner/work/_temp/5c2e1d0a.sh: line 1: {tool}: command not found"


def test_the_image_comes_from_the_set_up_section() -> None:
    log = job_log("make", "ok", image="ubuntu-24.04").splitlines()
    assert hosted_image(log) == "ubuntu-24.04"
    assert hosted_image(job_log("make", "ok", image="ubuntu24").splitlines()) == "ubuntu-24.04"
    assert hosted_image(job_log("make", "ok").splitlines()) is None


@pytest.mark.parametrize("tool", sorted(DROPPED["ubuntu-24.04"]))
def test_a_tool_the_2404_image_no_longer_ships_is_upstreams(tool: str) -> None:
    log = job_log(f"{tool} --version", NOT_FOUND.format(tool=tool), exit_code=127, image="ubuntu-24.04")
    diagnosis = diagnose_log(log)
    assert (diagnosis.owner, diagnosis.action) == UPSTREAM
    assert "ubuntu-24.04" in diagnosis.decided_text()


def test_the_same_tool_missing_on_another_image_keeps_its_reading() -> None:
    missing = NOT_FOUND.format(tool="mono")
    on_2204 = diagnose_log(job_log(MONO, missing, exit_code=127, image="ubuntu-22.04"))
    on_2404 = diagnose_log(job_log(MONO, missing, exit_code=127, image="ubuntu-24.04"))
    assert on_2204.rule == on_2404.rule == "config.command-not-found"
    assert (on_2204.owner, on_2204.action) != UPSTREAM
    assert (on_2404.owner, on_2404.action) == UPSTREAM


def test_another_tool_missing_on_the_2404_image_keeps_its_reading() -> None:
    log = job_log("shfmt -d .", NOT_FOUND.format(tool="shfmt"), exit_code=127, image="ubuntu-24.04")
    assert (diagnose_log(log).owner, diagnose_log(log).action) != UPSTREAM
