"""The held-out sets stay as they were frozen: each README's sha256 of `labels.json` and of `SHA256SUMS.logs`,
and that file's sha256 of every log, still hold (a set is reported once; an edited label or log would make a
later figure a different set's)."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

import pytest

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SETS = sorted(path.parent for path in FIXTURES.glob("fresh*/SHA256SUMS.logs"))
_FROZEN = re.compile(
    r"^- `(?P<file>labels\.json|SHA256SUMS\.logs)`.*? sha256: `(?P<sum>[0-9a-f]{64})`$", re.M
)


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_every_held_out_set_is_found() -> None:
    names = {path.name for path in SETS}
    assert {"fresh", "fresh2", "fresh5"} <= names
    assert len(SETS) >= 7


@pytest.mark.parametrize("folder", SETS, ids=[path.name for path in SETS])
def test_a_frozen_set_is_unchanged(folder: Path) -> None:
    frozen = {m.group("file"): m.group("sum") for m in _FROZEN.finditer((folder / "README.md").read_text())}
    assert set(frozen) == {"labels.json", "SHA256SUMS.logs"}
    for name, expected in frozen.items():
        assert sha256(folder / name) == expected, f"{folder.name}/{name} changed after it was frozen"
    listed = [line.split("  ", 1) for line in (folder / "SHA256SUMS.logs").read_text().splitlines() if line]
    assert listed, "no log is listed"
    # the earlier sets list each log by its name, the later ones by its path under the set
    paths = {name: folder / (name if name.startswith("logs/") else f"logs/{name}") for _, name in listed}
    for expected, name in listed:
        assert sha256(paths[name]) == expected, f"{folder.name}/{name} changed after it was frozen"
    assert set(paths.values()) == set((folder / "logs").glob("*.log"))
