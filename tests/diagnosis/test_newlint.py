"""Clippy's findings that only the Rust release the job installed could make are upstream's."""

from __future__ import annotations

import pytest
from joblogs import CODE, UPSTREAM, diagnose_log, job_log, stamped

from healer.diagnosis.newlint import denied_lints, installed_release, lints_by_release

CLIPPY = "cargo clippy --all-targets -- -D warnings"


def toolchain(release: str, channel: str = "stable") -> list[str]:
    return [
        "##[group]Run dtolnay/rust-toolchain@stable",
        "with:",
        "  toolchain: stable",
        "##[endgroup]",
        f"info: syncing channel updates for '{channel}-x86_64-unknown-linux-gnu'",
        f"info: latest update on 2025-01-09, rust version {release} (9fc6b4312 2025-01-07)",
        f"{channel}-x86_64-unknown-linux-gnu installed - rustc {release} (9fc6b4312 2025-01-07)",
    ]


def finding(lint: str) -> list[str]:
    return [
        "    Checking cleat v0.4.2 (/home/runner/work/cleat/cleat)",
        "error: this lint fired",
        "  --> src/align.rs:41:12",
        f"   = help: for further information visit https://rust-lang.github.io/rust-clippy/master/index.html#{lint}",
        f"   = note: `-D clippy::{lint.replace('_', '-')}` implied by `-D warnings`",
        "error: could not compile `cleat` (lib) due to 1 previous error",
    ]


def clippy_log(release: str, lint: str, channel: str = "stable", extra: tuple[str, ...] = ()) -> str:
    return stamped(toolchain(release, channel)) + job_log(CLIPPY, [*finding(lint), *extra], exit_code=101)


def diagnosed(release: str, lint: str, **kwargs: object) -> tuple:
    diagnosis = diagnose_log(clippy_log(release, lint, **kwargs), job="clippy")  # type: ignore[arg-type]
    return diagnosis.owner, diagnosis.action


@pytest.mark.parametrize("minor", sorted(lints_by_release()))
def test_each_releases_new_lints_are_upstreams_in_that_release_only(minor: int) -> None:
    lint = sorted(lints_by_release()[minor])[0]
    newer = [m for m in lints_by_release() if m > minor and lint in lints_by_release()[m]]
    assert diagnosed(f"1.{minor}.0", lint) == UPSTREAM
    # a release later, the lint has been there since the last one: the code's, unless that release moved it
    assert diagnosed(f"1.{minor + 1}.0", lint) == (UPSTREAM if minor + 1 in newer else CODE)


def test_the_table_holds_what_clippy_records() -> None:
    table = lints_by_release()
    assert "unnecessary_map_or" in table[84] and "manual_div_ceil" in table[83]
    # moved into a group that warns by default: new to most projects then
    assert "needless_borrow" in table[54] and "uninlined_format_args" in table[88]


def test_the_release_is_the_one_the_set_up_last_announced() -> None:
    assert installed_release(toolchain("1.84.0")) == 84
    assert installed_release(["rustc 1.86.0-nightly (a2d1234ef 2025-01-20)"]) == 86
    assert installed_release(["clippy 0.1.84 (9fc6b431 2025-01-07)"]) == 84
    updated = (
        "stable-x86_64-unknown-linux-gnu updated - rustc 1.85.0 (4d91de4e4 2025-02-17) (from rustc 1.84.1)"
    )
    assert installed_release(updated.splitlines()) == 85
    # pinned by its number: the repository's choice, maybe this pull request's
    assert (
        installed_release(["1.84.0-x86_64-unknown-linux-gnu installed - rustc 1.84.0 (9fc6b4312 2025-01-07)"])
        is None
    )
    assert installed_release(["info: syncing channel updates for '1.84.0-x86_64-unknown-linux-gnu'"]) is None
    assert installed_release(["Compiling serde v1.0.200"]) is None


def test_a_rustc_lint_or_a_compile_error_beside_clippys_keeps_it_the_codes() -> None:
    assert denied_lints(finding("unnecessary_map_or")) == frozenset({"unnecessary_map_or"})
    assert (
        denied_lints(
            [*finding("unnecessary_map_or"), "   = note: `-D unused-imports` implied by `-D warnings`"]
        )
        is None
    )
    assert denied_lints(["error[E0308]: mismatched types", *finding("unnecessary_map_or")]) is None
    rustc = ("error[E0425]: cannot find value `x` in this scope",)
    assert diagnosed("1.84.0", "unnecessary_map_or", extra=rustc) == CODE


def test_a_pinned_toolchain_keeps_a_new_lint_the_codes() -> None:
    assert diagnosed("1.84.0", "unnecessary_map_or") == UPSTREAM
    assert diagnosed("1.84.0", "unnecessary_map_or", channel="1.84.0") == CODE
