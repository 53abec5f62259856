"""The two jobs of a heal, as the reusable workflow runs them, for the end-to-end tests: ``stage: heal`` with
a token that may only read (the stand-in answers any write with GitHub's 403; the ``read_token`` fixture of
conftest.py), then ``stage: deliver`` with the write token and the heal bundle the first job wrote, handed
over as the artifact's folder.

Why not through the workflow in a real engine, as test_called_workflow.py runs it: nektos/act ignores
``permissions:`` and gives every job the same ``GITHUB_TOKEN``, so a heal job holding GitHub's read-only job
token beside a deliver job holding the writing one cannot be run there, nor can a job's ``timeout-minutes``
(act does not enforce it). These helpers run the healer's two stages directly, each with its own token."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path

from harness import assert_no_token, check_contract, record_bodies

from healer.change.bundle import BUNDLE_NAME
from healer.demo.running import HealerRun
from healer.demo.sandbox import Sandbox
from healer.demo.state import Run
from healer.ledger.markers import Kind, Marker, decode_markers

READ_TOKEN = "ghs_E2eReadOnlyTokenOfTheHealJob0123456789"


def heal_job(box: Sandbox, run: Run, inputs: Mapping[str, str] | None = None) -> HealerRun:
    """The heal job: ``stage: heal``, the read-only token."""
    result = box.run_healer(
        run,
        inputs={"stage": "heal", **(inputs or {})},
        secrets={"HEALER_GITHUB_TOKEN": READ_TOKEN},
        timeout=120,
        tag=f"heal-{run.id}",
    )
    box.standin.idle()
    detail = f"\n--- stdout ---\n{result.stdout[-4000:]}\n--- stderr ---\n{result.stderr[-3000:]}"
    assert result.returncode == 0, detail
    assert "Traceback" not in result.stdout + result.stderr, detail
    check_contract(result.requests, box.standin.api_url)
    return result


def deliver_job(box: Sandbox, run: Run, bundle: str, inputs: Mapping[str, str] | None = None) -> HealerRun:
    """The deliver job: ``stage: deliver``, the write token, the artifact's folder as ``bundle-path``."""
    result = box.run_healer(
        run,
        inputs={"stage": "deliver", "bundle-path": bundle, **(inputs or {})},
        timeout=120,
        tag=f"deliver-{run.id}",
    )
    box.standin.idle()
    detail = f"\n--- stdout ---\n{result.stdout[-4000:]}\n--- stderr ---\n{result.stderr[-3000:]}"
    assert result.returncode == 0, detail
    assert_no_token(box, result)
    check_contract(result.requests, box.standin.api_url)
    return result


def attempts(box: Sandbox, number: int) -> list[Marker]:
    return [m for body in record_bodies(box, number) for m in decode_markers(body) if m.kind is Kind.ATTEMPT]


def artifact_of(healed: HealerRun, where: Path) -> Path:
    """The folder the deliver job downloads the heal job's artifact to, holding its bundle."""
    folder = where / "artifact"
    folder.mkdir()
    shutil.copyfile(healed.outputs["bundle-path"], folder / BUNDLE_NAME)
    return folder
