"""A job that runs the code against unreleased versions of its dependencies or toolchain: its test, build or
type-check failure is upstream's (`healer/diagnosis/prerelease.py`), and what keeps its own reading."""

from __future__ import annotations

import pytest
from joblogs import CODE, PLATFORM, UPSTREAM, diagnose_log, job_log, stamped

from healer.model import Owner

PYTEST_FAILED = [
    "FAILED tests/test_frame.py::test_resample - AttributeError: module 'numpy' has no attribute 'in1d'",
    "1 failed, 200 passed in 12.00s",
]


def two_steps(install: str, command: str, output: list[str]) -> str:
    """A job log: its first step runs ``install`` and passes, its second runs ``command`` and fails."""
    return stamped(
        [
            f"##[group]Run {install}",
            install,
            "shell: /usr/bin/bash -e {0}",
            "##[endgroup]",
            "Successfully installed numpy-2.4.0.dev0+git20261201 pandas-3.1.0.dev0",
            f"##[group]Run {command}",
            command,
            "shell: /usr/bin/bash -e {0}",
            "##[endgroup]",
            *output,
            "##[error]Process completed with exit code 1.",
        ]
    )


@pytest.mark.parametrize(
    "install",
    [
        "pip install --upgrade --pre -e .[test]",
        "python -m pip install --pre --extra-index-url "
        "https://pypi.anaconda.org/scientific-python-nightly-wheels/simple numpy pandas",
        "uv pip install --prerelease=allow -e .[test]",
    ],
)
def test_a_test_failure_after_a_pre_release_install_is_upstreams(install: str) -> None:
    diagnosis = diagnose_log(two_steps(install, "pytest", PYTEST_FAILED), job="test")
    assert (diagnosis.owner, diagnosis.action) == UPSTREAM
    assert "a step installs pre-releases" in dict(diagnosis.decided_by)["evidence"]


@pytest.mark.parametrize("job", ["upstream-dev (numpy)", "test (latest deps)", "nightly-deps", "dev wheels"])
def test_a_job_named_for_unreleased_dependencies_is_upstreams(job: str) -> None:
    diagnosis = diagnose_log(two_steps("pip install -e .[test]", "pytest", PYTEST_FAILED), job=job)
    assert (diagnosis.owner, diagnosis.action) == UPSTREAM


@pytest.mark.parametrize(
    "job",
    [
        "test (django-main)",
        "test (rails-edge)",
        "nightly (elixir main)",
        "jdk-ea (26-ea)",
        "gradle-rc",
        "Julia nightly - ubuntu-latest",
        "nightly (dotnet 10 preview)",
        "clippy (rust beta)",
        "test (ruby-head)",
        "build (flutter master)",
    ],
)
def test_a_job_named_for_a_toolchains_unreleased_channel_is_upstreams(job: str) -> None:
    diagnosis = diagnose_log(two_steps("pip install -e .[test]", "pytest", PYTEST_FAILED), job=job)
    assert (diagnosis.owner, diagnosis.action) == UPSTREAM
    assert "the job is named for unreleased dependencies" in dict(diagnosis.decided_by)["evidence"]


@pytest.mark.parametrize(
    "job",
    [
        "nightly",
        "test (main)",
        "deploy-preview",
        "test (edge)",
        "test (3.12, latest)",
        "release-rc",
        "build (maven snapshot)",
        "e2e (chrome edge)",
    ],
)
def test_a_bare_channel_word_names_no_unreleased_toolchain(job: str) -> None:
    # a scheduled run, a branch, a preview deployment, a browser, a release candidate or snapshot of the
    # project itself, two browsers
    diagnosis = diagnose_log(two_steps("pip install -e .[test]", "pytest", PYTEST_FAILED), job=job)
    assert (diagnosis.owner, diagnosis.action) == CODE


CONFTEST_IMPORT = [
    "ImportError while loading conftest '/home/runner/work/a/a/tests/conftest.py'.",
    "E   ImportError: /opt/hostedtoolcache/Python/3.14.0-alpha.5/x64/lib/python3.14/site-packages/msgspec/"
    "_core.cpython-314-x86_64-linux-gnu.so: undefined symbol: _PyUnicode_AsUTF8",
]


def setup_python(version: str, output: list[str] = PYTEST_FAILED) -> str:
    """A job log: setup-python set up ``version``, then pytest failed with ``output``."""
    return stamped(
        [
            "##[group]Run actions/setup-python@v5",
            "with:",
            "  python-version: 3.14-dev",
            "##[endgroup]",
            f"Successfully set up CPython ({version})",
            "##[group]Run pytest -x",
            "pytest -x",
            "##[endgroup]",
            *output,
            "##[error]Process completed with exit code 1.",
        ]
    )


def test_a_dependency_that_does_not_load_on_a_pre_release_python_is_upstreams() -> None:
    diagnosis = diagnose_log(setup_python("3.14.0-alpha.5", CONFTEST_IMPORT), job="test")
    assert (diagnosis.owner, diagnosis.action) == UPSTREAM
    assert "pre-release Python (3.14.0-alpha.5)" in dict(diagnosis.decided_by)["evidence"]
    # a job named for a Python in development, with no set-up in view (a capture of the failing step)
    exit_line = "##[error]Process completed with exit code 4."
    named = stamped(["##[group]Run pytest -x", "pytest -x", "##[endgroup]", *CONFTEST_IMPORT, exit_line])
    assert diagnose_log(named, job="nightly (3.15-dev)").owner is Owner.UPSTREAM
    # the same on a released Python is the code's
    assert diagnose_log(setup_python("3.13.1", CONFTEST_IMPORT), job="test").owner is Owner.CODE


def test_the_projects_own_test_failing_on_a_pre_release_python_stays_the_codes() -> None:
    # the interpreter's preview is not a dependency's pre-release: the project's test is its own to look at
    assert diagnose_log(setup_python("3.14.0-alpha.5"), job="test (3.14-dev)").owner is Owner.CODE


def test_go_tip_failing_to_build_the_code_is_upstreams() -> None:
    output = ["# example.com/app/internal/pool", "internal/pool/pool.go:41:9: undefined: sync.OnceValues2"]
    diagnosis = diagnose_log(two_steps("go install golang.org/dl/gotip@latest", "gotip test ./...", output))
    assert (diagnosis.owner, diagnosis.action) == UPSTREAM
    assert "gotip" in dict(diagnosis.decided_by)["evidence"]


@pytest.mark.parametrize(
    ("install", "command", "output", "job", "want"),
    [
        # released versions: the code's
        ("pip install -e .[test]", "pytest", PYTEST_FAILED, "test", CODE),
        # a toolchain's preview is not a dependency's pre-release: its test failure is the code's
        ("pip install -e .[test]", "pytest -W error", PYTEST_FAILED, "nightly (3.14)", CODE),
        # pip's hint naming --pre in its output is not a pre-release install
        (
            "pip install -e .[test]",
            "pytest",
            ["  pip install --pre fastjsonx  # to try the beta", *PYTEST_FAILED],
            "test",
            CODE,
        ),
        # the network in a pre-release job is still the network's
        (
            "pip install --pre -e .[test]",
            "pytest",
            [
                "FAILED tests/test_api.py::test_fetch - requests.exceptions.ConnectionError: "
                "HTTPSConnectionPool(host='api.example.com', port=443): Max retries exceeded",
                "1 failed, 20 passed in 3.00s",
            ],
            "test",
            PLATFORM,
        ),
    ],
)
def test_what_keeps_its_own_reading(install: str, command: str, output: list[str], job: str, want) -> None:
    diagnosis = diagnose_log(two_steps(install, command, output), job=job)
    assert (diagnosis.owner, diagnosis.action) == want


def test_a_linters_finding_in_a_pre_release_job_stays_the_codes() -> None:
    output = ["src/app/core.py:12:1: F401 [*] `os` imported but unused", "Found 1 error."]
    diagnosis = diagnose_log(two_steps("pip install --pre ruff", "ruff check .", output), job="lint")
    assert diagnosis.owner is Owner.CODE


NIGHTLY_FEATURE = [
    "error[E0658]: use of unstable library feature `portable_simd`",
    "  --> src/lanes.rs:3:5",
    "error: the feature `portable_simd` has been renamed to `std_simd_v2` in this nightly; see release notes",
    "error: could not compile `simd-hash` (lib) due to 2 previous errors",
]


def test_a_nightly_rust_compiler_refusing_an_unstable_feature_is_upstreams() -> None:
    log = two_steps(
        "rustup toolchain install nightly", "cargo +nightly build --features nightly", NIGHTLY_FEATURE
    )
    diagnosis = diagnose_log(log)
    assert (diagnosis.owner, diagnosis.action) == UPSTREAM
    assert "nightly Rust compiler" in dict(diagnosis.decided_by)["evidence"]


def test_rust_errors_that_are_no_feature_gate_or_not_on_nightly_stay_the_codes() -> None:
    type_error = ["error[E0308]: mismatched types", "  --> src/lanes.rs:9:5"]
    nightly = two_steps("rustup toolchain install nightly", "cargo +nightly build", type_error)
    assert diagnose_log(nightly).owner is Owner.CODE
    # the same feature gate on a stable compiler: the code uses what stable Rust does not have
    stable = two_steps("rustup toolchain install stable", "cargo build --features nightly", NIGHTLY_FEATURE)
    assert diagnose_log(stable).owner is Owner.CODE


def test_cargo_in_a_job_named_for_the_nightly_toolchain_is_read_as_nightly() -> None:
    removed = ["error[E0557]: feature has been removed", " --> src/lib.rs:1:12"]
    diagnosis = diagnose_log(two_steps("rustup default nightly", "cargo build", removed), job="rust: nightly")
    assert (diagnosis.owner, diagnosis.action) == UPSTREAM
    assert diagnose_log(
        two_steps("rustup default stable", "cargo build", removed), job="rust: stable"
    ).owner is (Owner.CODE)


@pytest.mark.parametrize("job", ["numpy-nightly", "Nightly upstream"])
def test_a_job_named_for_a_projects_nightly_is_run_against_unreleased_versions(job: str) -> None:
    log = two_steps("pip install -r requirements-dev.txt", "pytest -x", PYTEST_FAILED)
    assert (diagnose_log(log, job=job).owner, "named") == (Owner.UPSTREAM, "named")
    # a nightly run of the project's own tests is not a run against unreleased dependencies
    assert diagnose_log(log, job="nightly-tests").owner is Owner.CODE


TSC_FAILED = ["tsconfig.json(5,25): error TS5107: Option 'moduleResolution=node10' is deprecated."]


@pytest.mark.parametrize(
    ("install", "command"),
    [
        ("npm ci", "npm install --no-save typescript@next && npx tsc --noEmit"),
        ("npm install -D typescript@beta", "npx tsc --noEmit"),
    ],
)
def test_a_type_check_against_an_unreleased_typescript_is_upstreams(install: str, command: str) -> None:
    diagnosis = diagnose_log(two_steps(install, command, TSC_FAILED), job="typecheck")
    assert (diagnosis.owner, diagnosis.action) == UPSTREAM
    assert "an unreleased TypeScript" in dict(diagnosis.decided_by)["evidence"]
    # the released compiler's finding is the code's
    released = two_steps("npm ci", "npx tsc --noEmit", TSC_FAILED)
    assert diagnose_log(released, job="typecheck").owner is Owner.CODE


def setup_julia(version: str) -> str:
    """A job that sets up Julia ``version`` and whose tests then fail."""
    return stamped(
        [
            "##[group]Run julia-actions/setup-julia@v2",
            "with:",
            f"  version: {version}",
            "  arch: x64",
            "##[endgroup]",
            "##[group]Run julia-actions/julia-runtest@v1",
            "with:",
            "  coverage: true",
            "##[endgroup]",
            "Test Summary: | Pass  Fail  Total",
            "Grid          |   12     1     13",
            "ERROR: LoadError: Some tests did not pass: 12 passed, 1 failed, 0 errored, 0 broken.",
            "##[error]Process completed with exit code 1.",
        ]
    )


@pytest.mark.parametrize("version", ["nightly", "1.13-nightly", "'pre'"])
def test_tests_on_a_julia_not_yet_released_are_upstreams(version: str) -> None:
    diagnosis = diagnose_log(setup_julia(version), job="test")
    assert (diagnosis.owner, diagnosis.action) == UPSTREAM


@pytest.mark.parametrize("version", ["1.11", "lts", "1"])
def test_tests_on_a_released_julia_stay_the_codes(version: str) -> None:
    assert diagnose_log(setup_julia(version), job="test").owner is Owner.CODE


JEST_FAILED = [
    "FAIL test/errors.test.js",
    "  ● errors › names the missing file",
    "    expect(received).toMatch(expected)",
    "Tests:       1 failed, 40 passed, 41 total",
]


@pytest.mark.parametrize(
    ("version", "owner"),
    [
        ("v26.0.0-nightly20261104359dca457", Owner.UPSTREAM),  # a nightly build
        ("v25.0.0-v8-canary20261030a1b2c3d4e5", Owner.UPSTREAM),  # a V8-canary build
        ("v26.0.0-rc.1", Owner.UPSTREAM),  # a release candidate
        ("v24.11.1", Owner.CODE),  # a release
    ],
)
def test_a_test_failure_on_a_node_not_yet_released_is_upstreams(version: str, owner: Owner) -> None:
    log = two_steps("npm ci", "node --version\nnpm test", [version, *JEST_FAILED])
    assert diagnose_log(log, job="test").owner is owner


CLIPPY_FINDING = [
    "    Checking cleat v0.4.2 (/home/runner/work/cleat/cleat)",
    "error: this `if` has identical blocks",
    "  --> src/align.rs:41:12",
    "   = note: `-D clippy::if-same-then-else` implied by `-D warnings`",
    "error: could not compile `cleat` (lib) due to 1 previous error",
]


@pytest.mark.parametrize(
    ("command", "job"),
    [
        ("cargo +nightly clippy --all-targets -- -D warnings", "clippy"),
        ("cargo clippy --all-targets -- -D warnings", "clippy (beta)"),
        ("cargo clippy --all-targets -- -D warnings", "nightly-clippy"),
    ],
    ids=["plus-nightly", "job-beta", "job-nightly"],
)
def test_clippy_from_an_unreleased_rust_toolchain_is_upstreams(command: str, job: str) -> None:
    diagnosis = diagnose_log(job_log(command, CLIPPY_FINDING, exit_code=101), job=job)
    assert (diagnosis.owner, diagnosis.action) == UPSTREAM
    assert "clippy ran" in dict(diagnosis.decided_by)["evidence"]


def test_clippy_of_the_stable_toolchain_and_miri_on_nightly_stay_the_codes() -> None:
    stable = diagnose_log(job_log("cargo clippy -- -D warnings", CLIPPY_FINDING, exit_code=101), job="clippy")
    assert (stable.owner, stable.action) == CODE
    # Miri runs only on nightly: the undefined behaviour it finds is the code's
    miri = [
        "test reader::tests::reads_le ... error: Undefined Behavior: accessing memory with alignment 1, "
        "but alignment 4 is required",
        "test result: FAILED. 12 passed; 1 failed",
    ]
    ran = diagnose_log(job_log("cargo +nightly miri test", miri), job="miri (nightly miri)")
    assert (ran.owner, ran.action) == CODE
