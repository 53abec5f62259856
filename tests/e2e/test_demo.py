"""`healer demo`: the README's "try it" command heals its sample lint failure with only git installed."""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
from pathlib import Path

from harness import check_contract

from healer.demo import command


def test_the_demo_heals_its_lint_failure_without_ruff_or_flake8(tmp_path: Path, monkeypatch) -> None:
    git_dir = str(Path(shutil.which("git") or "/usr/bin/git").parent)
    assert shutil.which("ruff", path=git_dir) is None and shutil.which("flake8", path=git_dir) is None
    recorded = []
    monkeypatch.setattr(command, "_report", _spy(command._report, recorded))
    out = io.StringIO()

    code = command.run_demo(tmp_path, out=out, path=git_dir)

    text = out.getvalue()
    assert code == 0, text
    for stage in (
        "[1] The event",
        "[2] healer run",
        "[3] Outcome",
        "[4] The heal frame",
        "[5] The fix pull request",
        "[6] The comment",
        "[7] The requests",
    ):
        assert stage in text
    assert "decision        healed" in text and "-import os" in text
    [(box, result)] = recorded
    check_contract(result.requests, box.standin.api_url)
    assert "::add-mask::" not in text and box.standin.token not in text


def _spy(real, recorded):
    def report(box, result, *args, **kwargs):
        recorded.append((box, result))
        return real(box, result, *args, **kwargs)

    return report


def test_healer_demo_is_a_subcommand() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "healer", "demo", "--help"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0 and "--keep" in done.stdout
