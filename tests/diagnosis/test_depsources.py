"""Compiler and type-checker errors only in a dependency's own files are upstream's
(`healer/diagnosis/depsources.py`); one error in the checkout's files keeps them the code's."""

from __future__ import annotations

import pytest
from joblogs import CODE, UPSTREAM, diagnose_log, job_log

from healer.model import Owner

CLASH = [
    "node_modules/@types/node/web-globals/fetch.d.ts(29,5): error TS2717: Subsequent property declarations "
    "must have the same type.  Property 'body' must be of type 'ReadableStream<any> | null'.",
    "node_modules/@cloudflare/workers-types/index.d.ts(41,13): error TS2403: Subsequent variable "
    "declarations must have the same type.",
]
PRETTY = [
    "node_modules/@types/node/globals.d.ts:72:13 - error TS2403: Subsequent variable declarations must have "
    "the same type.",
    "",
    "Found 1 error in node_modules/@types/node/globals.d.ts:72",
]
RUST = [
    "   Compiling time v0.3.28",
    "error[E0282]: type annotations needed for `Box<_>`",
    "  --> /home/runner/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/time-0.3.28/src/lib.rs:83:9",
    "   |",
    "83 |     let items = format_items",
    "error: could not compile `time` (lib) due to 1 previous error",
]
CMAKE = [
    "CMake Error at build/_deps/tinyobj-src/CMakeLists.txt:40 (add_library):",
    "  Cannot find source file:",
    "",
    "    tiny_obj_loader.cc",
    "-- Configuring incomplete, errors occurred!",
]
GO = [
    "# example.com/app/internal/store",
    "../../../go/pkg/mod/github.com/acme/kv@v1.2.3/store.go:12:3: undefined: sync.OnceValue2",
]


@pytest.mark.parametrize(
    ("command", "output"),
    [
        ("npx tsc --noEmit", CLASH),
        ("npx tsc --noEmit", PRETTY),
        ("cargo test --locked", RUST),
        ("cmake -S . -B build", CMAKE),
        ("go build ./...", GO),
    ],
    ids=["tsc", "tsc-pretty", "rustc", "cmake-fetchcontent", "go-module-cache"],
)
def test_errors_only_in_dependencies_files_are_upstreams(command: str, output: list[str]) -> None:
    diagnosis = diagnose_log(job_log(command, output), job="build")
    assert (diagnosis.owner, diagnosis.action) == UPSTREAM
    assert "in a dependency's own files" in dict(diagnosis.decided_by)["evidence"]


@pytest.mark.parametrize(
    ("command", "output", "extra"),
    [
        ("npx tsc --noEmit", CLASH, "src/server.ts(12,7): error TS2322: Type 'string' is not assignable."),
        ("npx tsc --noEmit", CLASH, "e2e/app.e2e-spec.ts (5,1): Cannot find name 'describe'. (2304)"),
        ("cargo build", RUST, "error[E0308]: mismatched types\n  --> src/main.rs:4:5"),
        ("cmake -S . -B build", CMAKE, "CMake Error at CMakeLists.txt:12 (add_executable):"),
        ("go build ./...", GO, "internal/store/store.go:9:2: undefined: kv.Open"),
    ],
    ids=["tsc", "ts-node", "rustc", "cmake", "go"],
)
def test_one_error_in_the_checkouts_files_keeps_it_the_codes(
    command: str, output: list[str], extra: str
) -> None:
    diagnosis = diagnose_log(job_log(command, [*output, *extra.splitlines()]), job="build")
    assert (diagnosis.owner, diagnosis.action) == CODE


# getrandom 0.2's refusal of the wasm32-unknown-unknown target without its `js` feature (its lib.rs)
GETRANDOM = "/home/runner/.cargo/registry/src/index.crates.io-1949cf8c6b5b557f/getrandom-0.2.15/src/lib.rs"
REFUSED = [
    "   Compiling getrandom v0.2.15",
    'error: the wasm*-unknown-unknown targets are not supported by default, you may need to enable the "js" '
    "feature. For more information see: https://docs.rs/getrandom/#webassembly-support",
    f"   --> {GETRANDOM}:342:9",
    "    |",
    '342 | /         compile_error!("the wasm*-unknown-unknown targets are not supported by \\',
    '343 | |                         default, you may need to enable the \\"js\\" feature. \\',
    "    | |________________________________________________________________________^",
    "",
    "error[E0433]: failed to resolve: use of undeclared crate or module `imp`",
    f"   --> {GETRANDOM}:398:9",
    "error: could not compile `getrandom` (lib) due to 2 previous errors",
]


def test_a_crates_compile_error_is_its_word_to_the_project() -> None:
    diagnosis = diagnose_log(
        job_log("cargo build --target wasm32-unknown-unknown -p app-wasm", REFUSED), job="wasm"
    )
    assert (diagnosis.owner, diagnosis.action) == CODE
    # the same errors without the macro's call under them are the dependency's own
    plain = [line for line in REFUSED if "compile_error!" not in line]
    diagnosis = diagnose_log(job_log("cargo build --target wasm32-unknown-unknown", plain), job="wasm")
    assert (diagnosis.owner, diagnosis.action) == UPSTREAM


def sdist_build(error: str) -> list[str]:
    return [
        "Collecting PyYAML==5.4.1",
        "  Downloading PyYAML-5.4.1.tar.gz (175 kB)",
        "  Installing build dependencies: started",
        "  Installing build dependencies: finished with status 'done'",
        "  Getting requirements to build wheel: started",
        "  Getting requirements to build wheel: finished with status 'error'",
        "  error: subprocess-exited-with-error",
        "  × Getting requirements to build wheel did not run successfully.",
        "  │ exit code: 1",
        "  ╰─> [62 lines of output]",
        *(f"      {line.strip()}" for line in error.splitlines()),
        "      [end of output]",
        "  note: This error originates from a subprocess, and is likely not a problem with pip.",
        "error: subprocess-exited-with-error",
    ]


@pytest.mark.parametrize(
    "error",
    [
        "AttributeError: cython_sources",
        "ModuleNotFoundError: No module named 'pkg_resources'",
        # the newest Cython the isolated build pulled refuses the release's .pyx
        "Error compiling Cython file:\n      ------------------------------------------------------------\n"
        "      yaml/_yaml.pyx:9:19: Cannot assign type 'void *' to 'Node'",
    ],
)
def test_a_pinned_dependency_todays_build_tools_cannot_build_is_upstreams(error: str) -> None:
    diagnosis = diagnose_log(job_log("pip install -r requirements.txt", sdist_build(error)), job="install")
    assert (diagnosis.owner, diagnosis.action) == UPSTREAM
    assert "the pinned PyYAML==5.4.1" in dict(diagnosis.decided_by)["evidence"]


@pytest.mark.parametrize(
    ("command", "error"),
    [
        # a compiler's error in the dependency's build is not the build tools' API
        (
            "pip install -r requirements.txt",
            "src/_yaml.c:12:10: fatal error: yaml.h: No such file or directory",
        ),
    ],
)
def test_a_compilers_error_in_a_dependencys_build_keeps_its_reading(command: str, error: str) -> None:
    diagnosis = diagnose_log(job_log(command, sdist_build(error)), job="install")
    assert diagnosis.owner is not Owner.UPSTREAM


@pytest.mark.parametrize(
    ("command", "output"),
    [
        (
            "pip install -r requirements.lock",
            [
                "ERROR: Ignored the following yanked versions: 2.21.3",
                "ERROR: Could not find a version that satisfies the requirement fastjsonschema==2.21.3 (from "
                "versions: 2.19.1, 2.20.0, 2.21.1, 2.21.2)",
                "ERROR: No matching distribution found for fastjsonschema==2.21.3",
            ],
        ),
        (
            "cargo fetch --locked",
            [
                'error: failed to select a version for the requirement `time = "=0.3.35"`',
                "candidate versions found which didn't match: 0.3.36, 0.3.34",
                "location searched: crates.io index",
                "note: version 0.3.35 of `time` is yanked",
            ],
        ),
        (
            "cargo build --locked",
            [
                "warning: package `hashbrown v0.15.1` in Cargo.lock is yanked in registry "
                "`crates-io`, consider running without --locked",
                'error: failed to select a version for the requirement `hashbrown = "=0.15.1"`',
            ],
        ),
        (
            "mvn -B verify",
            [
                "[ERROR] Failed to execute goal on project core: Could not resolve dependencies for project "
                "dev.ff:core:jar:1.0: Could not transfer artifact org.tooling:codegen:jar:4.1.0 "
                "from/to vendor (https://repo.vendor.example/maven2): status code: 410, reason phrase: Gone",
            ],
        ),
        (
            "npm ci",
            [
                "npm error code ETARGET",
                "npm error notarget No matching version found for ansi-styles-lite@4.2.1.",
                "npm error notarget In most cases you or one of your dependencies are requesting",
                "npm error notarget a package version that doesn't exist.",
            ],
        ),
    ],
)
def test_a_release_its_registry_withdrew_is_upstreams(command: str, output: list[str]) -> None:
    diagnosis = diagnose_log(job_log(command, output), job="install")
    assert (diagnosis.owner, diagnosis.action) == UPSTREAM


@pytest.mark.parametrize(
    ("command", "output"),
    [
        # a misspelled package: nothing of that name, yanked or not
        (
            "pip install -r requirements.txt",
            [
                "ERROR: Could not find a version that satisfies the requirement nbconvet==7.1 "
                "(from versions: none)",
                "ERROR: No matching distribution found for nbconvet==7.1",
            ],
        ),
        # another version was yanked than the one the pin asks for, which never existed
        (
            "pip install -r requirements.txt",
            [
                "ERROR: Ignored the following yanked versions: 1.0.1",
                "ERROR: Could not find a version that satisfies the requirement attrs==9.9 "
                "(from versions: 1.0.0)",
                "ERROR: No matching distribution found for attrs==9.9",
            ],
        ),
        # the lock needs updating after the pull request's Cargo.toml edit: no yanked crate
        (
            "cargo build --locked",
            [
                "error: the lock file /home/runner/work/a/a/Cargo.lock needs to be updated but --locked was "
                "passed to prevent this",
            ],
        ),
        # npm install resolves package.json anew: the pull request may ask for a version never published
        (
            "npm install --no-audit",
            [
                "npm error code ETARGET",
                "npm error notarget No matching version found for left-pad@9.9.9.",
            ],
        ),
        # go get of a version the pull request names: it may never have been tagged
        (
            "go get github.com/kvlite/kvlite@v1.4.0",
            ["go: github.com/kvlite/kvlite@v1.4.0: invalid version: unknown revision v1.4.0"],
        ),
        # a misspelled package: no version of it
        (
            "npm install",
            [
                "npm error 404 Not Found - GET https://registry.npmjs.org/lodash.debunce - Not found",
                "npm error 404  'lodash.debunce@^4.0.8' is not in this registry.",
            ],
        ),
    ],
)
def test_a_version_that_never_existed_stays_the_codes(command: str, output: list[str]) -> None:
    assert diagnose_log(job_log(command, output), job="install").owner is Owner.CODE


def project_build(*frames: str, error: str) -> list[str]:
    return [
        "Obtaining file:///home/runner/work/bloom/bloom",
        "  Installing build dependencies: started",
        "  Installing build dependencies: finished with status 'done'",
        "  Getting requirements to build editable: started",
        "  Building wheel for pyfastbloom (pyproject.toml): started",
        "  error: subprocess-exited-with-error",
        "  ╰─> [14 lines of output]",
        "      Traceback (most recent call last):",
        *(f'        File "{path}", line 331, in run_setup' for path in frames),
        f"      {error}",
        "      [end of output]",
    ]


SETUPTOOLS = "/tmp/pip-build-env-k2j1/overlay/lib/python3.12/site-packages/setuptools/build_meta.py"


def test_the_build_tools_failing_inside_themselves_on_the_projects_build_are_upstreams() -> None:
    error = "AttributeError: module 'setuptools.command.build_ext' has no attribute 'new_compiler'"
    diagnosis = diagnose_log(job_log("pip install -e .[test]", project_build(SETUPTOOLS, error=error)))
    assert (diagnosis.owner, diagnosis.action) == UPSTREAM
    assert "failed inside themselves" in dict(diagnosis.decided_by)["evidence"]


def test_a_collected_release_that_needs_a_rust_compiler_here_is_upstreams() -> None:
    # setuptools-rust's own words; the release pip found no wheel of for this old pip or Python
    rust = [
        "Collecting cryptography>=3.4 (from paramiko>=2.7->-r requirements.txt (line 3))",
        "  Downloading cryptography-3.4.tar.gz (544 kB)",
        "    Preparing wheel metadata: finished with status 'error'",
        "    running dist_info",
        "    error: can't find Rust compiler",
        "ERROR: Command errored out with exit status 1: python setup.py egg_info Check the logs for full "
        "command output.",
    ]
    diagnosis = diagnose_log(job_log("pip install -r requirements.txt", rust), job="test (3.6)")
    assert (diagnosis.owner, diagnosis.action) == UPSTREAM
    assert "needs a Rust compiler" in dict(diagnosis.decided_by)["evidence"]
    # the project's own Rust extension, built from the checkout: not a release pip collected
    own = ["Processing /home/runner/work/fastfold/fastfold", *rust[2:]]
    diagnosis = diagnose_log(job_log("pip install .", own), job="test (3.6)")
    assert (diagnosis.owner, diagnosis.action) != UPSTREAM


def test_the_projects_own_build_script_failing_is_the_codes() -> None:
    error = "ModuleNotFoundError: No module named 'pkg_resources'"
    frames = (SETUPTOOLS, "/home/runner/work/bloom/bloom/setup.py")
    diagnosis = diagnose_log(job_log("pip install -e .[test]", project_build(*frames, error=error)))
    assert diagnosis.owner is not Owner.UPSTREAM


def test_cython_refusing_the_projects_own_pyx_is_the_codes() -> None:
    output = [
        *project_build(error="Error compiling Cython file:")[:-1],
        "      bloom/_bits.pyx:9:19: Cannot assign",
    ]
    diagnosis = diagnose_log(job_log("pip install -e .[test]", output), job="build")
    assert diagnosis.owner is not Owner.UPSTREAM


def test_a_pinned_dependency_built_while_installing_the_project_is_still_the_dependencys() -> None:
    output = sdist_build("ModuleNotFoundError: No module named 'pkg_resources'")
    diagnosis = diagnose_log(job_log("pip install -e .[test]", output), job="install")
    assert (diagnosis.owner, diagnosis.action) == UPSTREAM
    assert "the pinned PyYAML==5.4.1" in dict(diagnosis.decided_by)["evidence"]


def test_the_projects_build_whose_short_error_names_a_build_tools_module_is_upstreams() -> None:
    output = [
        "Processing /home/runner/work/wimble/wimble",
        "  Getting requirements to build wheel: started",
        "  Getting requirements to build wheel: finished with status 'error'",
        "  ╰─> [6 lines of output]",
        "      AttributeError: module 'setuptools.dist' has no attribute 'check_test_suite'",
        "      [end of output]",
    ]
    diagnosis = diagnose_log(job_log("pip install .", output))
    assert (diagnosis.owner, diagnosis.action) == UPSTREAM
    # the project's own module missing an attribute is the code's
    own = [line.replace("setuptools.dist", "wimble.build") for line in output]
    assert diagnose_log(job_log("pip install .", own)).owner is not Owner.UPSTREAM


def test_a_setup_cfg_key_a_new_setuptools_refuses_is_upstreams_for_a_dependency_and_the_project() -> None:
    # setuptools 78 refuses a key spelling its older releases accepted: a new release of the build tool, not a
    # change of the pull request, whether the setup.cfg is a pinned dependency's or the project's own
    refused = (
        "setuptools.errors.InvalidConfigError: Invalid dash-separated key 'description-file' in "
        "'metadata' (setup.cfg), please use the underscore name 'description_file' instead."
    )
    dependency = diagnose_log(job_log("pip install -r requirements.txt", sdist_build(refused)), job="install")
    assert (dependency.owner, dependency.action) == UPSTREAM
    output = [
        "Processing /home/runner/work/app/app",
        *sdist_build(
            "setuptools.errors.InvalidConfigError: Invalid dash-separated key 'description-file' in "
            "'metadata' (setup.cfg), please use the underscore name 'description_file' instead."
        )[2:],
    ]
    diagnosis = diagnose_log(job_log("pip install .", output), job="install")
    assert (diagnosis.owner, diagnosis.action) == UPSTREAM
    assert diagnosis.rule == "python.setuptools-key-refused"


def npm_script(folder: str) -> list[str]:
    """npm ci whose native install script, run in ``folder``, failed to compile."""
    return [
        f"> sunbird-native@2.3.1 install {folder}",
        "> node-gyp rebuild",
        "  CXX(target) Release/obj.target/binding/src/binding.o",
        "../src/binding.cc:41:33: error: 'class v8::Object' has no member named 'GetPrototype'",
        "gyp ERR! build error",
        "npm ERR! code 1",
        f"npm ERR! path {folder}",
        "npm ERR! command failed",
        "npm ERR! command sh -c node-gyp rebuild",
    ]


def test_a_dependencys_install_script_npm_ran_in_its_folder_is_upstreams() -> None:
    folder = "/home/runner/work/sunbird/sunbird/node_modules/sunbird-native"
    diagnosis = diagnose_log(job_log("npm ci", npm_script(folder)), job="install")
    assert (diagnosis.owner, diagnosis.action) == UPSTREAM
    assert "in a dependency's folder" in dict(diagnosis.decided_by)["evidence"]


def test_the_projects_own_install_script_stays_the_codes() -> None:
    diagnosis = diagnose_log(
        job_log("npm ci", npm_script("/home/runner/work/sunbird/sunbird")), job="install"
    )
    assert diagnosis.owner is not Owner.UPSTREAM


def cabal_build(failed: str, plan: str) -> list[str]:
    """cabal-install's plan, then the build of one package that failed with a GHC error."""
    return [
        "Resolving dependencies...",
        "Build profile: -w ghc-9.10.1 -O1",
        "In order, the following will be built (use -v for more details):",
        " - base-orphans-0.9.3 (lib) (requires download & build)",
        f" - {failed} (lib) ({plan})",
        "Starting     base-orphans-0.9.3 (lib)",
        "Completed    base-orphans-0.9.3 (lib)",
        f"Building     {failed} (lib)",
        "src/TextShow/Data/Array/Byte.hs:23:1: error: [GHC-87110]",
        "    Could not load module 'Data.Array.Byte'.",
        f"Failed to build {failed}.",
        f"cabal: Failed to build {failed} (which is required by test:spec from wend-0.3.0).",
    ]


def test_cabal_failing_to_build_a_release_its_plan_downloads_is_upstreams() -> None:
    command = "cabal build --only-dependencies --enable-tests"
    diagnosis = diagnose_log(job_log(command, cabal_build("text-show-3.11", "requires download & build")))
    assert (diagnosis.owner, diagnosis.action) == UPSTREAM
    assert "text-show-3.11, a release its plan downloads" in dict(diagnosis.decided_by)["evidence"]


def test_cabal_failing_to_build_a_package_of_the_project_stays_the_codes() -> None:
    diagnosis = diagnose_log(job_log("cabal build all", cabal_build("wend-0.3.0", "first run")))
    assert diagnosis.owner is not Owner.UPSTREAM
