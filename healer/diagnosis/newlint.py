"""Clippy's findings that only the Rust release this job installed could make: upstream's (pure).

A workflow that installs the ``stable`` (or ``beta``, ``nightly``) toolchain gets each new Rust release on
the day it ships, and with it Clippy's new lints and the lints it moved into a group that warns by default.
Under ``-D warnings`` (the usual ``cargo clippy -- -D warnings``) such a lint fails code that the release
before accepted, on the base branch as much as on the pull request: a new release of the tool broke the
unchanged project. So when every lint the failing Clippy run names is new in the release the job installed
(``clippylints.yml``, from Clippy's own record of each lint's release), the failure is upstream's, escalated
with the lint's name: the maintainers pin the toolchain or take the new lint on their base branch.

The release is the one the job's set-up last announced: rustup's ``stable-x86_64-unknown-linux-gnu
installed - rustc 1.84.0 (9fc6b4312 2025-01-07)`` (or ``updated``, ``unchanged``), rustc's ``--version``
line, rustup's ``latest update on 2025-01-09, rust version 1.84.0``, Clippy's ``clippy 0.1.84 (…)``. A
toolchain pinned by its number (``1.84.0-x86_64-unknown-linux-gnu installed``, a channel of ``1.84.0``)
is the repository's choice, which the pull request may have just made: left as it was. Clippy names each
lint it reports (``= help: for further information visit …/index.html#unnecessary_map_or``, ``= note:
`-D clippy::unnecessary-map-or` implied by `-D warnings```); a rustc lint among them (``-D unused-imports``)
or a compile error keeps the failure the code's.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path

from healer.diagnosis import yamltext
from healer.diagnosis.logs import clean_line
from healer.diagnosis.owner import reread, shown
from healer.model import Action, Diagnosis, Owner

TABLE = Path(__file__).with_name("clippylints.yml")

# the release a line announces (rustup's toolchain line, rustc's and Clippy's versions), and a toolchain
# rustup installed by its number rather than a channel
_RELEASE = re.compile(
    r"(?:^|installed - |updated - |unchanged - )rustc 1\.(?P<rustc>\d+)\.\d+(?:-(?:beta|nightly)\S*)? \("
    r"|\brust version 1\.(?P<update>\d+)\.\d+\b|^clippy 0\.1\.(?P<clippy>\d+)\b"
)
_PINNED = re.compile(
    r"^(?:info: syncing channel updates for '|info: installing toolchain ')?1\.\d+(?:\.\d+)?-[\w-]+"
    r"(?:' |'$| installed - | updated - | unchanged - )"
)
# the lints a Clippy run names: its link to each lint's page, and the flag that denied it
_CLIPPY_LINT = re.compile(
    r"rust-clippy/[\w./-]*#(?P<page>[a-z_]+)\b|`-D clippy::(?P<flag>[a-z-]+)` implied by"
)
_RUSTC_LINT = re.compile(r"`-D (?!clippy::)(?P<lint>[a-z-]+)` implied by|^error\[E\d{4}\]")


@cache
def lints_by_release() -> dict[int, frozenset[str]]:
    """The lints each Rust 1.N release's Clippy began to fire, by N (``clippylints.yml``)."""
    data = yamltext.safe_load(TABLE.read_text(encoding="utf-8"))
    return {int(release.split(".")[1]): frozenset(names) for release, names in data["releases"].items()}


def installed_release(lines: Sequence[str]) -> int | None:
    """The minor number of the Rust release the job's set-up last announced (``1.84.0`` → 84); None when it
    announced none, or pinned the toolchain by its number."""
    release = None
    for raw in lines:
        if "rust" not in raw and "clippy" not in raw:
            continue
        line = clean_line(raw).strip()
        if _PINNED.match(line):
            return None
        if found := _RELEASE.search(line):
            release = int(found["rustc"] or found["update"] or found["clippy"])
    return release


def denied_lints(lines: Sequence[str]) -> frozenset[str] | None:
    """The Clippy lints the step's lines name; None when they name none, or name a rustc lint or a compile
    error beside them (then not every finding is Clippy's)."""
    names: set[str] = set()
    for raw in lines:
        if "clippy" not in raw and "implied by" not in raw and "error[" not in raw:
            continue
        line = clean_line(raw).strip()
        if _RUSTC_LINT.search(line):
            return None
        names.update(
            (found["page"] or found["flag"]).replace("-", "_") for found in _CLIPPY_LINT.finditer(line)
        )
    return frozenset(names) or None


def new_in_this_toolchain(
    diagnosis: Diagnosis, step_lines: Sequence[str], earlier: Sequence[str]
) -> Diagnosis:
    """``diagnosis`` given to upstream when it is Clippy's findings for the code and every lint it names is
    new in the Rust release the job installed (``earlier``: the log before the failing step); else
    unchanged."""
    if diagnosis.rule != "rust.clippy" or diagnosis.owner is not Owner.CODE:
        return diagnosis
    lints = denied_lints(step_lines)
    release = installed_release([*earlier, *step_lines]) if lints else None
    if lints is None or release is None or not lints <= lints_by_release().get(release, frozenset()):
        return diagnosis
    names = shown(sorted(lints))
    verb = "is" if len(lints) == 1 else "are"
    said = f"Clippy's {names} {verb} new in Rust 1.{release}, the toolchain the job installed"
    return reread(diagnosis, Owner.UPSTREAM, diagnosis.category, Action.ESCALATE, said)
