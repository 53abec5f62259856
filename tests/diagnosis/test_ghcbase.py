"""cabal's solver refusing GHC's own base on a dependency's bounds, or on the project's upper bound, is
upstream's (`healer/diagnosis/ghcbase.py`); the project's own lower bound stays the code's."""

from __future__ import annotations

import pytest
from joblogs import CODE, UPSTREAM, diagnose_log, job_log

from healer.diagnosis.ghcbase import _outside


def solver(*rejections: str, goal: str = "yamlette-0.6.2") -> list[str]:
    return [
        "Resolving dependencies...",
        "Error: cabal: Could not resolve dependencies:",
        f"[__0] trying: {goal} (user goal)",
        "[__1] next goal: base (dependency of yamlette)",
        *rejections,
        "[__1] fail (backjumping, conflict set: base, yamlette)",
        "After searching the rest of the dependency tree exhaustively, these were the goals I've had most "
        "trouble fulfilling: base, yamlette",
    ]


@pytest.mark.parametrize(
    "rejection",
    [
        # the project's own upper bound under a newer GHC
        "[__1] rejecting: base-4.22.0.0/installed-4.22.0.0 (conflict: yamlette => base>=4.14 && <4.22)",
        # a dependency's bounds that no longer admit this GHC, either way
        "[__2] rejecting: aeson-2.2.3.0 (conflict: base==4.12.0.0/installed-4.12.0.0, aeson => "
        "base>=4.14 && <5)",
        "[__2] rejecting: base-4.21.0.0/installed-4.21.0.0 (conflict: tagsoup-lite => base^>=4.18)",
    ],
    ids=["own-upper-bound", "dependency-lower-bound", "dependency-caret-bound"],
)
def test_ghcs_base_outside_bounds_not_the_projects_to_move_is_upstreams(rejection: str) -> None:
    diagnosis = diagnose_log(job_log("cabal build all", solver(rejection)), job="build (ghc latest)")
    assert (diagnosis.owner, diagnosis.action) == UPSTREAM
    assert "installed base-" in dict(diagnosis.decided_by)["evidence"]


def test_the_projects_own_lower_bound_above_the_installed_base_stays_the_codes() -> None:
    own = "[__1] rejecting: base-4.19.2.0/installed-4.19.2.0 (conflict: app => base>=4.20)"
    diagnosis = diagnose_log(job_log("cabal build all", solver(own, goal="app-0.1.0.0")), job="build")
    assert (diagnosis.owner, diagnosis.action) == CODE


def test_bounds_are_compared_as_versions() -> None:
    assert _outside((4, 22, 0, 0), ">=4.14 && <4.22") == (True, False)
    assert _outside((4, 21, 0, 0), ">=4.14 && <4.22") == (False, False)
    assert _outside((4, 19, 2, 0), ">=4.20") == (False, True)
    assert _outside((4, 19, 0, 0), "^>=4.18") == (True, False)
    assert _outside((4, 18, 2, 0), "^>=4.18") == (False, False)
