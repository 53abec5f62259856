"""A failed install the pull request did not change is upstream's (healer.diagnosis.installinputs): the files
each package manager reads, one case per ecosystem of the table, and the failures the changed files never
move (a test's ImportError, an install whose inputs the pull request touched)."""

from __future__ import annotations

import pytest
from joblogs import diagnose_log, job_log

from healer.diagnosis.installinputs import applies, named_in, read_by_install, untouched_install
from healer.model import Action, Category, Diagnosis, Owner

NPM_PEERS = (
    "npm error code ERESOLVE\nnpm error ERESOLVE could not resolve\nnpm error\n"
    "npm error While resolving: web@1.0.0\nnpm error Found: react@18.3.1\n"
    'npm error Could not resolve dependency:\nnpm error peer react@"^19.0.0" from react-dom@19.0.0'
)


def install_failure(command: str = "npm ci", output: str = NPM_PEERS):  # noqa: ANN201
    return diagnose_log(job_log(command, output), job="build")


def upstream_unless_changed(diagnosis: Diagnosis, kept: list[str], *changed: str) -> list[Diagnosis]:
    """Assert that ``diagnosis`` is upstream's, escalated, and stays so when the pull request changed only
    ``kept``, and that each of ``changed`` changed beside them makes it the code's again (the changes stage);
    those re-read diagnoses, in order."""
    assert (diagnosis.owner, diagnosis.action) == (Owner.UPSTREAM, Action.ESCALATE)
    assert untouched_install(diagnosis, kept) is diagnosis
    given = [untouched_install(diagnosis, [*kept, path]) for path in changed]
    for path, again in zip(changed, given, strict=True):
        assert (again.owner, again.action) == (Owner.CODE, Action.AGENT), path
    return given


@pytest.mark.parametrize(
    "path",
    [
        "package.json",
        "apps/web/package-lock.json",
        "pnpm-lock.yaml",
        ".nvmrc",
        "requirements-dev.txt",
        "requirements/ci.in",
        "constraints.txt",
        "pyproject.toml",
        "poetry.lock",
        "uv.lock",
        ".python-version",
        "go.mod",
        "tools/go.sum",
        "crates/core/Cargo.toml",
        "rust-toolchain.toml",
        "Gemfile.lock",
        "acme.gemspec",
        "composer.lock",
        "pom.xml",
        ".mvn/wrapper/maven-wrapper.properties",
        "app/build.gradle.kts",
        "gradle/libs.versions.toml",
        "project/plugins.sbt",
        "src/Acme/Acme.csproj",
        "Directory.Packages.props",
        "mix.lock",
        "rebar.config",
        "acme.cabal",
        "stack.yaml",
        "pubspec.lock",
        "Package.resolved",
        "ios/Podfile.lock",
        "renv.lock",
        "Manifest.toml",
        "vcpkg.json",
        ".tool-versions",
        ".go-version",
        "api/.java-version",
        "flake.lock",
        ".github/workflows/ci.yml",
        ".github/actions/setup/action.yml",
        "docker/Dockerfile.ci",
        "compose.yaml",
        "scripts/bootstrap.sh",
        "Makefile",
        "CMakeLists.txt",
        "cmake/Warnings.cmake",
        "vendor/github.com/x/y/z.go",
        "./package.json",
    ],
)
def test_a_file_an_install_reads_or_takes_its_command_from(path: str) -> None:
    assert read_by_install(path)


@pytest.mark.parametrize(
    "path",
    [
        "src/app.py",
        "README.md",
        "docs/install.md",
        "web/src/components/Button.tsx",
        "src/main/java/com/acme/project/Foo.java",  # a `project/` folder below the top is not sbt's
        "tests/test_requirements_parser.py",
        "lib/acme/version.rb",
        "",
    ],
)
def test_a_file_no_install_reads(path: str) -> None:
    assert not read_by_install(path)


def test_the_failing_command_names_its_own_files() -> None:
    assert named_in(
        "pip install -r ci/deps.txt && ./tools/setup --config=conf/x.ini https://a.example/b"
    ) == {
        "ci/deps.txt",
        "tools/setup",
        "conf/x.ini",
    }
    assert named_in("npm ci") == frozenset()
    assert named_in("echo 'unbalanced") == frozenset()  # a command shlex cannot split is read by words


def test_a_failed_install_of_an_unchanged_project_is_upstreams_and_escalated() -> None:
    diagnosis = install_failure()
    assert applies(diagnosis)

    given = untouched_install(diagnosis, ["src/App.tsx", "README.md"])

    assert (given.owner, given.action, given.category) == (
        Owner.UPSTREAM,
        Action.ESCALATE,
        Category.DEPENDENCY,
    )
    decided = dict(given.decided_by)
    assert decided["changes"].startswith("the pull request changed 2 file(s) (src/App.tsx, README.md), none")
    assert decided["row"] == "(upstream, dependency) → escalate"
    assert decided["purpose"] == dict(diagnosis.decided_by)["purpose"]  # the earlier stages stay
    assert [stage for stage, _ in given.decided_by][-2:] == ["changes", "row"]


def test_many_changed_files_are_shown_by_the_first_three() -> None:
    given = untouched_install(install_failure(), [f"src/m{n}.ts" for n in range(5)])
    assert "(src/m0.ts, src/m1.ts, src/m2.ts and 2 more)" in dict(given.decided_by)["changes"]


@pytest.mark.parametrize(
    "changed",
    [
        ["src/App.tsx", "package.json"],  # the pull request changed a manifest: its own resolution failed
        ["src/App.tsx", ".github/workflows/ci.yml"],  # or the install's command
        ["src/App.tsx", ".npmrc"],  # or the registry's configuration
        [],  # nothing listed says nothing
    ],
)
def test_an_install_whose_inputs_the_pull_request_touched_stays_the_codes(changed: list[str]) -> None:
    diagnosis = install_failure()
    assert untouched_install(diagnosis, changed) is diagnosis


def test_a_file_the_failing_command_names_counts_as_read() -> None:
    diagnosis = install_failure(
        "pip install -r ci/pinned.lst",
        "ERROR: Cannot install acme==1.0 and requests==2.0 because these package versions have conflicting "
        "dependencies.\nERROR: ResolutionImpossible: for help visit "
        "https://pip.pypa.io/en/latest/topics/dependency-resolution/#dealing-with-dependency-conflicts",
    )
    assert applies(diagnosis)
    assert untouched_install(diagnosis, ["ci/pinned.lst"]) is diagnosis
    assert untouched_install(diagnosis, ["src/acme/core.py"]).owner is Owner.UPSTREAM


def test_a_tests_import_error_stays_the_codes_whatever_changed() -> None:
    # the code may import what no manifest lists: a test step's missing module is the pull request's
    diagnosis = diagnose_log(
        job_log(
            "pytest",
            "E   ModuleNotFoundError: No module named 'yaml'\n=== short test summary info ===\n"
            "ERROR tests/test_a.py - ModuleNotFoundError: No module named 'yaml'\n=== 1 error in 0.1s ===",
        ),
        job="test",
    )
    assert not applies(diagnosis)
    assert untouched_install(diagnosis, ["src/app.py"]) is diagnosis


def test_an_install_that_is_not_headed_for_the_agent_is_left_alone() -> None:
    # a registry that did not answer is re-run whatever the pull request changed
    diagnosis = install_failure(
        "npm ci",
        "npm error code E503\nnpm error 503 Service Unavailable - GET https://registry.npmjs.org/react",
    )
    assert diagnosis.action is Action.RERUN and not applies(diagnosis)
    assert untouched_install(diagnosis, ["src/App.tsx"]) is diagnosis


def buildkit_no_tag(image: str) -> str:
    """BuildKit's words when a FROM line names an image the registry does not serve."""
    ref = f"docker.io/library/{image}" if "/" not in image else f"docker.io/{image}"
    return (
        f"#3 [internal] load metadata for {ref}\n"
        f"#3 ERROR: {ref}: not found\n"
        f"ERROR: failed to build: failed to solve: {image}: failed to resolve source metadata for "
        f"{ref}: {ref}: not found"
    )


def test_an_image_the_registry_does_not_serve_is_upstreams_unless_the_pull_request_named_it() -> None:
    log = job_log("docker build -t svc .", buildkit_no_tag("node:20-bookwrom"))
    diagnosis = diagnose_log(log, job="docker")
    assert diagnosis.rule == "config.docker-image-gone"
    given = upstream_unless_changed(
        diagnosis, ["src/server.js"], "Dockerfile", "deploy/compose.yaml", "docker-bake.hcl", ".env"
    )
    assert "Dockerfile, read by the image's pull" in dict(given[0].decided_by)["changes"]


def test_a_missing_image_repository_is_upstreams_only_when_the_pull_request_named_nothing() -> None:
    output = (
        "Error response from daemon: name unknown: The repository with name 'builder' does not exist in the "
        "registry with id '123456789012'"
    )
    diagnosis = diagnose_log(job_log("docker pull acme/builder:2.1", output), job="docker")
    assert diagnosis.rule == "config.docker-image" and applies(diagnosis)
    given = untouched_install(diagnosis, ["src/server.js"])
    assert (given.owner, given.action) == (Owner.UPSTREAM, Action.ESCALATE)
    assert dict(given.decided_by)["changes"].endswith("its base branch pulls the same")
    for named_there in ("Dockerfile", "deploy/compose.yaml", "docker-bake.hcl", ".env"):
        assert untouched_install(diagnosis, ["src/server.js", named_there]) is diagnosis


@pytest.mark.parametrize(
    "image",
    [
        "node:16-buster",  # Debian 10, past its long-term support
        "python:3.8-slim-buster",
        "ruby:2.7-stretch",
        "node:14-alpine3.10",  # an Alpine branch whose support ended
        "openjdk:11-jre-slim",  # the deprecated official image, its tags deleted
        "bitnami/postgresql:14.9.0",  # Bitnami's docker.io images, moved to bitnamilegacy
        "nvidia/cuda:11.3.1-cudnn8-devel-ubuntu20.04",  # a CUDA whose images NVIDIA deleted at end of life
        "nvidia/cuda:10.2-cudnn7-devel-ubuntu18.04",
    ],
)
def test_an_image_its_publisher_retired_is_upstreams_from_the_log_unless_the_pull_request_named_it(
    image: str,
) -> None:
    diagnosis = diagnose_log(job_log("docker build -t svc .", buildkit_no_tag(image)), job="docker")
    assert (diagnosis.rule, diagnosis.owner, diagnosis.action) == (
        "config.docker-image-retired",
        Owner.UPSTREAM,
        Action.ESCALATE,
    )
    (given,) = upstream_unless_changed(diagnosis, ["src/server.js"], "Dockerfile")
    assert "Dockerfile, read by the image's pull" in dict(given.decided_by)["changes"]


@pytest.mark.parametrize(
    "image",
    [
        "python:3.12-slim-bookwrom",  # a typo
        "node:22-bullseye-slim-lts",  # a tag that never existed
        "node:22-alpine3.21",  # a supported Alpine branch
        "bitnamilegacy/redis:7.2.4",  # where Bitnami moved its images
        "eclipse-temurin:11-jre",
        "nvidia/cuda:12.4.1-cudnn-devel-ubuntu22.04",  # a CUDA still supported
        "nvidia/cuda:11.8.0-runtime-ubuntu22.04",
    ],
)
def test_an_image_that_names_no_retired_release_is_gone_not_retired(image: str) -> None:
    """A typo, a tag that never existed or a supported release the registry does not serve is read as gone
    upstream from the log alone; the changes stage gives it to a pull request that changed the Dockerfile."""
    diagnosis = diagnose_log(job_log("docker build -t svc .", buildkit_no_tag(image)), job="docker")
    assert diagnosis.rule == "config.docker-image-gone"
    upstream_unless_changed(diagnosis, ["src/server.js"], "Dockerfile")


def test_a_vcpkg_ports_source_that_answers_404_is_upstreams_unless_the_pull_request_moved_the_port() -> None:
    output = (
        "Downloading https://ftp.gnu.org/gnu/libmicrohttpd/libmicrohttpd-1.0.1.tar.gz\n"
        "error: https://ftp.gnu.org/gnu/libmicrohttpd/libmicrohttpd-1.0.1.tar.gz: failed: status code 404\n"
        "error: Failed to download libmicrohttpd-1.0.1.tar.gz.\n"
        "-- Running vcpkg install - failed\n"
        "CMake Error at /usr/local/share/vcpkg/scripts/buildsystems/vcpkg.cmake:938 (message):\n"
        "  vcpkg install failed.  See logs for more information:\n"
        "-- Configuring incomplete, errors occurred!"
    )
    diagnosis = diagnose_log(job_log("cmake --preset ci", output), job="build")
    assert diagnosis.rule == "cpp.vcpkg-source-gone"
    upstream_unless_changed(diagnosis, ["src/server.cpp"], "vcpkg.json", "vcpkg-configuration.json")


def test_a_vcpkg_download_that_met_a_server_error_is_the_networks() -> None:
    output = (
        "error: https://github.com/madler/zlib/archive/v1.3.1.tar.gz: failed: status code 502\n"
        "error: Failed to download zlib-1.3.1.tar.gz."
    )
    diagnosis = diagnose_log(job_log("cmake --preset ci", output), job="build")
    assert diagnosis.rule != "cpp.vcpkg-source-gone" and diagnosis.owner is not Owner.UPSTREAM


def test_a_service_containers_retired_image_is_upstreams() -> None:
    output = (
        "Error response from daemon: manifest for bitnami/redis:6.2.14-debian-11-r2 not found: "
        "manifest unknown: manifest unknown"
    )
    diagnosis = diagnose_log(job_log("docker compose up -d", output), job="integration")
    assert (diagnosis.rule, diagnosis.owner) == ("config.docker-image-retired", Owner.UPSTREAM)


def test_a_retired_image_testcontainers_could_not_pull_is_upstreams_not_the_tests() -> None:
    output = (
        "[INFO] Running com.example.catwalk.TopologyIT\n"
        "ERROR tc.bitnami/kafka:3.6.1 -- Failed to pull image: bitnami/kafka:3.6.1. Please check output of "
        "`docker pull bitnami/kafka:3.6.1`\n"
        'com.github.dockerjava.api.exception.NotFoundException: Status 404: {"message":"manifest for '
        'bitnami/kafka:3.6.1 not found: manifest unknown: manifest unknown"}\n'
        "[ERROR] Tests run: 1, Failures: 0, Errors: 1, Skipped: 0, Time elapsed: 1.902 s <<< FAILURE! -- in "
        "com.example.catwalk.TopologyIT\n"
        "[ERROR] Tests run: 41, Failures: 0, Errors: 1, Skipped: 0"
    )
    diagnosis = diagnose_log(job_log("mvn -B verify", output), job="it")
    assert (diagnosis.rule, diagnosis.owner, diagnosis.action) == (
        "config.docker-image-retired",
        Owner.UPSTREAM,
        Action.ESCALATE,
    )
    # an image of a publisher that retired nothing, gone the same way: the tests' rule reads it as before
    kept = diagnose_log(job_log("mvn -B verify", output.replace("bitnami/", "acme/")), job="it")
    assert kept.rule != "config.docker-image-retired"


NPM_AUDIT = (
    "# npm audit report\n\nsemver  <7.5.2\nSeverity: high\n"
    "semver vulnerable to Regular Expression Denial of Service - https://github.com/advisories/GHSA-c2qf-rxjj-qqgw\n"
    "fix available via `npm audit fix`\nnode_modules/semver\n\n1 high severity vulnerability"
)


def test_an_audits_findings_are_a_new_advisorys_unless_the_pull_request_changed_what_it_reads() -> None:
    # from the log alone: an advisory published against a dependency, a maintainer's call
    diagnosis = diagnose_log(job_log("npm audit --audit-level=high", NPM_AUDIT), job="audit")
    assert (diagnosis.rule, diagnosis.owner, diagnosis.action) == (
        "dependency.audit",
        Owner.UPSTREAM,
        Action.ESCALATE,
    )
    assert applies(diagnosis)
    # the base branch audits the same lock file: as it was; the pull request changed the lock file: the
    # findings may be its own new dependency's
    (given,) = upstream_unless_changed(diagnosis, ["src/App.tsx"], "package-lock.json")
    assert "package-lock.json, read by the audit" in dict(given.decided_by)["changes"]


def test_the_vulnerability_counts_npm_prints_after_an_install_are_not_an_audit() -> None:
    output = (
        "added 812 packages, and audited 813 packages in 14s\n\n"
        "5 vulnerabilities (3 moderate, 2 high)\n\n"
        "To address all issues, run:\n  npm audit fix\n\n"
        "> app@1.4.0 build\n> node scripts/bundle.mjs\n\n"
        "TypeError: Cannot read properties of undefined (reading 'map')\n"
        "    at bundle (/home/runner/work/app/app/scripts/bundle.mjs:22:31)"
    )
    diagnosis = diagnose_log(job_log("npm ci && npm run build", output), job="build")
    assert diagnosis.rule != "dependency.audit"
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)


APT_DROPPED = (
    "Package python2 is not available, but is referred to by another package.\n"
    "E: Package 'python2' has no installation candidate"
)
R_ARCHIVED = "package ‘rgeos’ is not available for this version of R"


def test_a_package_the_release_or_repository_no_longer_serves_is_the_pull_requests_when_it_named_it() -> None:
    dropped = diagnose_log(job_log("sudo apt-get install -y python2", APT_DROPPED), job="build")
    assert applies(dropped)
    named = ("Dockerfile", ".github/workflows/ci.yml", "scripts/deps.sh")
    for given in upstream_unless_changed(dropped, ["src/main.c"], *named):
        assert "it may name the package or move the image" in dict(given.decided_by)["changes"]

    archived = diagnose_log(job_log("Rscript -e 'remotes::install_deps()'", R_ARCHIVED), job="build")
    assert applies(archived)
    upstream_unless_changed(archived, ["R/area.R"], "DESCRIPTION")


CMAKE_4 = (
    "-- The C compiler identification is GNU 13.3.0\n"
    "CMake Error at third_party/zlib/CMakeLists.txt:1 (cmake_minimum_required):\n"
    "  Compatibility with CMake < 3.5 has been removed from CMake.\n\n"
    "  Update the VERSION argument <min> value.  Or, use the <min>...<max> syntax\n"
    "  to tell CMake that the project requires at least <min> but has been updated\n"
    "  to work with policies introduced by <max> or earlier.\n\n"
    "  Or, add -DCMAKE_POLICY_VERSION_MINIMUM=3.5 to try configuring anyway.\n\n"
    "-- Configuring incomplete, errors occurred!"
)


def test_cmake_4_refusing_an_old_minimum_is_upstreams_unless_the_pull_request_changed_a_cmakelists() -> None:
    diagnosis = diagnose_log(job_log("cmake -S . -B build", CMAKE_4), job="build")
    assert (diagnosis.rule, diagnosis.owner, diagnosis.action) == (
        "cpp.cmake-policy-removed",
        Owner.UPSTREAM,
        Action.ESCALATE,
    )
    upstream_unless_changed(
        diagnosis, ["src/main.c"], "third_party/zlib/CMakeLists.txt", "cmake/Warnings.cmake"
    )


SPHINX_EXTENSION = (
    "Running Sphinx v8.2.0\n\nExtension error:\n"
    "Could not import extension sphinx_autodoc_typehints (exception: cannot import name "
    "'stringify_signature' from 'sphinx.util.inspect' "
    "(/home/runner/.local/lib/python3.12/site-packages/sphinx/util/inspect.py))"
)


def test_a_sphinx_extension_a_new_release_broke_is_upstreams_unless_the_change_touched_the_pins() -> None:
    diagnosis = diagnose_log(job_log("sphinx-build -W -b html docs out", SPHINX_EXTENSION), job="docs")
    upstream_unless_changed(diagnosis, ["docs/usage.rst"], "docs/requirements.txt")


def test_an_extension_that_needs_a_newer_sphinx_is_upstreams_unless_the_change_touched_the_pins() -> None:
    output = (
        "Running Sphinx v4.5.0\n\nSphinx version error:\nThe sphinxcontrib.applehelp extension used by this "
        "project needs at least Sphinx v5.0; it therefore cannot be built with this version."
    )
    diagnosis = diagnose_log(job_log("make -C docs html", output), job="docs")
    upstream_unless_changed(diagnosis, ["src/pkg/core.py"], "docs/requirements.txt")


def test_ghcs_base_outside_a_dependencys_bounds_is_upstreams_unless_the_change_touched_them() -> None:
    output = (
        "Error: cabal: Could not resolve dependencies:\n[__0] trying: redstart-0.5.1 (user goal)\n"
        "[__1] trying: base-4.12.0.0/installed-4.12.0.0 (dependency of redstart)\n"
        "[__2] rejecting: aeson-2.2.3.0 (conflict: base==4.12.0.0/installed-4.12.0.0, aeson => "
        "base>=4.14 && <5)"
    )
    diagnosis = diagnose_log(job_log("cabal build --only-dependencies", output), job="build (ghc 8.6)")
    upstream_unless_changed(diagnosis, ["src/Redstart.hs"], "redstart.cabal", "cabal.project")


CHART_GONE = (
    "Saving 1 charts\n"
    'Error: can\'t get a valid version for 1 subchart(s): "redis" (repository '
    '"https://charts.bitnami.com/bitnami", version "17.3.14"). Make sure a matching chart version exists '
    "in the repo, or change the version constraint in Chart.yaml"
)
CHART_404 = (
    "Error: could not download https://charts.bitnami.com/bitnami/postgresql-12.1.2.tgz: failed to fetch "
    "https://charts.bitnami.com/bitnami/postgresql-12.1.2.tgz : 404 Not Found"
)


@pytest.mark.parametrize("output", [CHART_GONE, CHART_404])
def test_a_subchart_version_its_repository_no_longer_serves_is_upstreams_unless_the_chart_changed(
    output: str,
) -> None:
    diagnosis = diagnose_log(job_log("helm dependency update charts/api", output), job="lint")
    upstream_unless_changed(diagnosis, ["charts/api/templates/deployment.yaml"], "charts/api/Chart.yaml")


PRE_COMMIT_REV = (
    "[INFO] Initializing environment for https://github.com/acme/hooks.\n"
    "An unexpected error has occurred: CalledProcessError: command: ('/usr/bin/git', 'checkout', 'v0.9.1')\n"
    "return code: 1\nstdout: (none)\nstderr:\n"
    "    error: pathspec 'v0.9.1' did not match any file(s) known to git\n"
    "Check the log at /home/runner/.cache/pre-commit/pre-commit.log"
)


BAZEL_8 = (
    "Starting local Bazel server (8.4.2) and connecting to it...\n"
    "ERROR: Skipping '//...': error loading package 'src/codec': Unable to find package for "
    "@@[unknown repo 'com_google_absl' requested from @@]//absl/strings:strings: The repository "
    "'@@[unknown repo 'com_google_absl' requested from @@]' could not be resolved: No repository visible as "
    "'@com_google_absl' from main repository. Was the repository introduced in WORKSPACE? The WORKSPACE file "
    "is disabled by default in Bazel 8 (late 2024) and will be removed in Bazel 9 (late 2025), please "
    "migrate to Bzlmod. See https://bazel.build/external/migration.\n"
    "ERROR: Build did NOT complete successfully"
)


APT_KEY_EXPIRED = (
    "Get:5 https://dl.yarnpkg.com/debian stable InRelease [17.1 kB]\n"
    "Err:5 https://dl.yarnpkg.com/debian stable InRelease\n"
    "  The following signatures were invalid: EXPKEYSIG 23E7166788B63E1E Yarn Packaging <yarn@dan.cx>\n"
    "E: The repository 'https://dl.yarnpkg.com/debian stable InRelease' is not signed."
)


@pytest.mark.parametrize(
    ("command", "output", "job", "rule", "kept", "changed"),
    [
        # a hook rev the hook repository lacks, unless .pre-commit-config.yaml changed
        pytest.param(
            "pre-commit run --all-files",
            PRE_COMMIT_REV,
            "lint",
            "lint.pre-commit-rev-missing",
            "src/app.py",
            (".pre-commit-config.yaml",),
            id="pre-commit-rev",
        ),
        # a Bazel that no longer reads the WORKSPACE, unless the Bazel files changed
        pytest.param(
            "bazel build //...",
            BAZEL_8,
            "build",
            "bazel.workspace-disabled",
            "src/codec/codec.cc",
            (".bazelversion", "MODULE.bazel"),
            id="bazel-workspace",
        ),
        # an apt repository whose key expired, unless the change added it
        pytest.param(
            "sudo apt-get update",
            APT_KEY_EXPIRED,
            "build",
            "dependency.apt-key-expired",
            "src/app.ts",
            ("Dockerfile", ".github/workflows/ci.yml"),
            id="apt-key-expired",
        ),
    ],
)
def test_a_tool_or_source_that_moved_on_is_upstreams_unless_the_change_touched_what_it_reads(
    command: str, output: str, job: str, rule: str, kept: str, changed: tuple[str, ...]
) -> None:
    diagnosis = diagnose_log(job_log(command, output), job=job)
    assert diagnosis.rule == rule
    upstream_unless_changed(diagnosis, [kept], *changed)


def test_another_cmake_error_in_the_checkout_keeps_the_configure_the_codes() -> None:
    also = "CMake Error at CMakeLists.txt:12 (add_executable):\n  Cannot find source file:\n\n    src/main.cc"
    diagnosis = diagnose_log(job_log("cmake -S . -B build", f"{CMAKE_4}\n{also}"), job="build")
    assert diagnosis.rule != "cpp.cmake-policy-removed"
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)


@pytest.mark.parametrize(
    "output",
    [
        "go: github.com/acme/kv@v1.4.2: invalid version: unknown revision v1.4.2",
        "go: github.com/acme/kv@v1.4.2: reading github.com/acme/kv/go.mod at revision v1.4.2: "
        "unknown revision v1.4.2",
        "go: github.com/acme/kv v1.4.2: reading github.com/acme/kv/go.mod at revision v1.4.2: "
        "unknown revision v1.4.2",
        "go: github.com/acme/kv@v1.4.2: reading https://proxy.golang.org/github.com/acme/kv/@v/v1.4.2.info: "
        "410 Gone\n\tserver response: not found: github.com/acme/kv@v1.4.2: invalid version: "
        "unknown revision v1.4.2",
    ],
)
def test_a_module_version_its_origin_no_longer_serves_is_upstreams_unless_go_mod_changed(output: str) -> None:
    diagnosis = diagnose_log(job_log("go mod download", output), job="build")
    assert (diagnosis.rule, diagnosis.owner, diagnosis.action) == (
        "go.module-version-gone",
        Owner.UPSTREAM,
        Action.ESCALATE,
    )
    upstream_unless_changed(diagnosis, ["internal/kv/store.go"], "go.mod")


def test_a_module_the_network_did_not_fetch_is_re_run() -> None:
    output = (
        "go: github.com/acme/kv@v1.4.2: reading https://proxy.golang.org/github.com/acme/kv/@v/v1.4.2.mod: "
        "502 Bad Gateway\ngo: github.com/acme/kv@v1.4.2: unknown revision v1.4.2"
    )
    diagnosis = diagnose_log(job_log("go mod download", output), job="build")
    assert (diagnosis.owner, diagnosis.action) == (Owner.PLATFORM, Action.RERUN)
