"""Credentials and the platform seen through another tool's output: a build tool's summary, a script's
traceback, a test runner's report. Each rule entry has one case, with the rule that must read it, and the
traps: the code's own failure that merely mentions the same words."""

from __future__ import annotations

import pytest
from joblogs import PLATFORM, REPO, diagnose_log, job_log

from healer.model import Owner


def run_log(command: str, output: list[str], exit_code: int = 1) -> str:
    return job_log(command, output, exit_code=exit_code, image="ubuntu-24.04", cleanup=True)


def diagnose(text: str):  # noqa: ANN201
    return diagnose_log(text)


@pytest.mark.parametrize(
    ("command", "lines", "rule", "want"),
    [
        pytest.param(
            "mvn -B deploy",
            "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-deploy-plugin:3.1.2:deploy "
            "(default-deploy) on project app: Failed to deploy artifacts: Could not transfer artifact "
            "io.acme:app:jar:2.0.0 from/to central (https://repo.acme.io/releases): status code: 403, reason "
            "phrase: Forbidden (403) -> [Help 1]",
            "config.credentials-refused",
            REPO,
            id="maven-resolver-403",
        ),
        pytest.param(
            "mvn deploy -P release",
            "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-deploy-plugin:2.8.2:deploy "
            "(default-deploy) on project lib: Failed to deploy artifacts: Could not transfer artifact "
            "org.acme:lib:pom:0.3.1 from/to ossrh "
            "(https://oss.sonatype.org/content/repositories/snapshots/): "
            "Failed to transfer file: https://oss.sonatype.org/x.pom. Return code is: 401, ReasonPhrase: "
            "Unauthorized. -> [Help 1]",
            "config.credentials-refused",
            REPO,
            id="maven-wagon-401",
        ),
        pytest.param(
            "mvn deploy",
            "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-deploy-plugin:2.7:deploy "
            "(default-deploy) on project x: Failed to deploy artifacts: Could "
            "not transfer artifact a:x:jar:1 "
            "from/to nexus (https://nexus.acme.io/repository/releases/): Access denied to: "
            "https://nexus.acme.io/repository/releases/a/x/1/x-1.jar, ReasonPhrase: Forbidden. -> [Help 1]",
            "config.credentials-refused",
            REPO,
            id="maven-wagon-403",
        ),
        pytest.param(
            "./gradlew publish",
            "   > Could not PUT 'https://s01.oss.sonatype.org/content/repositories/snapshots/x-1.0.jar'. "
            "Received status code 403 from server: Forbidden",
            "config.credentials-refused",
            REPO,
            id="gradle-publish-403",
        ),
        pytest.param(
            "docker pull ghcr.io/acme/private:latest",
            "Error response from daemon: Head "
            '"https://ghcr.io/v2/acme/private/manifests/latest": unauthorized',
            "config.credentials-refused",
            REPO,
            id="docker-daemon-unauthorized",
        ),
        pytest.param(
            "python deploy.py",
            "botocore.exceptions.ClientError: An error occurred (InvalidAccessKeyId) when calling the "
            "ListObjectsV2 operation: The AWS Access Key Id you provided does not exist in our records.",
            "config.credentials-refused",
            REPO,
            id="aws-credentials-refused",
        ),
        pytest.param(
            "az login --service-principal -u $ID -p $SECRET --tenant $TENANT",
            "ERROR: AADSTS7000222: The provided client secret keys for app '0000' are expired.",
            "config.credentials-refused",
            REPO,
            id="entra-secret-expired",
        ),
        pytest.param(
            "python scripts/upload_docs.py",
            "boto3.exceptions.S3UploadFailedError: Failed to upload site.tar.gz "
            "to docs/site.tar.gz: An error "
            "occurred (AccessDenied) when calling the PutObject operation: Access Denied",
            "config.cloud-permission",
            REPO,
            id="aws-access-denied-from-a-script",
        ),
        pytest.param(
            "python upload.py",
            "google.auth.exceptions.DefaultCredentialsError: Could not automatically determine credentials. "
            "Please set GOOGLE_APPLICATION_CREDENTIALS or explicitly create credentials and re-run the "
            "application.",
            "config.missing-input",
            REPO,
            id="gcp-adc-python",
        ),
        pytest.param(
            "go run ./cmd/publish",
            "google: could not find default credentials. See "
            "https://cloud.google.com/docs/authentication/external/set-up-adc for more information",
            "config.missing-input",
            REPO,
            id="gcp-adc-go",
        ),
        pytest.param(
            "node scripts/publish.js",
            "Error: Could not load the default credentials. Browse to "
            "https://cloud.google.com/docs/authentication/getting-started for more information.",
            "config.missing-input",
            REPO,
            id="gcp-adc-node",
        ),
        pytest.param(
            "cargo build --release",
            "sccache: error: Server startup failed: cache storage failed to read: ObjectPermissionDenied "
            '(permanent) at read => S3Error { code: "AccessDenied", message: "Access Denied" }\n'
            "error: could not compile `foo` (lib)",
            "config.build-cache-refused",
            REPO,
            id="sccache-permission-denied",
        ),
        pytest.param(
            "cargo build",
            "sccache: error: Server startup failed: cache storage failed to read: Unexpected (permanent) at "
            'read => {"code":"unauthorized","message":"Missing or invalid bearer token"}',
            "config.build-cache-refused",
            REPO,
            id="sccache-permanent-unauthorized",
        ),
        pytest.param(
            "bazel test //...",
            "ERROR: Failed to query remote execution capabilities: UNAUTHENTICATED: Request had invalid "
            "authentication credentials.",
            "config.build-cache-refused",
            REPO,
            id="bazel-remote-cache-unauthenticated",
        ),
        pytest.param(
            "cargo build",
            "sccache: error: Server startup failed: storage write check failed: RateLimited (temporary) at "
            'Writer::write => S3Error { code: "SlowDown", message: "Please reduce your request rate." }',
            "network.build-cache-unavailable",
            PLATFORM,
            id="sccache-temporary",
        ),
        pytest.param(
            "bazel build //...",
            "ERROR: Failed to query remote execution capabilities: UNAVAILABLE: io exception",
            "network.build-cache-unavailable",
            PLATFORM,
            id="bazel-remote-cache-unavailable",
        ),
        pytest.param(
            "cmake --build build",
            "[100%] Linking CXX executable bin/server\ncollect2: fatal error: ld terminated with signal 9 "
            "[Killed]\ncompilation terminated.\nmake[2]: *** "
            "[CMakeFiles/server.dir/build.make:230: bin/server] "
            "Error 1",
            "runner.out-of-memory",
            PLATFORM,
            id="linker-killed",
        ),
        pytest.param(
            "ninja -C build",
            "clang++: error: unable to execute command: Killed\nclang++: error: "
            "clang frontend command failed "
            "due to signal (use -v to see invocation)",
            "runner.out-of-memory",
            PLATFORM,
            id="clang-frontend-killed",
        ),
        pytest.param(
            "pytest tests/cuda",
            "FAILED tests/cuda/test_ops.py::test_add - RuntimeError: CUDA error: no CUDA-capable device is "
            "detected\nFAILED tests/cuda/test_ops.py::test_mul - RuntimeError: "
            "Found no NVIDIA driver on your "
            "system. Please check that you have an NVIDIA GPU and installed a driver\n"
            "==== 2 failed, 3 passed in 2.02s ====",
            "python.pytest-gpu-unavailable",
            PLATFORM,
            id="pytest-gpu-unavailable",
        ),
    ],
)
def test_a_refusal_or_the_machine_seen_through_a_tool(command: str, lines: str, rule: str, want) -> None:  # noqa: ANN001
    diagnosis = diagnose(run_log(command, lines.splitlines()))
    assert (diagnosis.rule, (diagnosis.owner, diagnosis.action)) == (rule, want)


@pytest.mark.parametrize(
    ("command", "lines"),
    [
        pytest.param(
            "pytest tests/cuda",
            "FAILED tests/cuda/test_ops.py::test_add - RuntimeError: CUDA error: no CUDA-capable device is "
            "detected\nFAILED tests/test_cpu.py::test_sum - AssertionError: assert 3 == 4",
            id="one-assertion-among-gpu-failures",
        ),
        pytest.param(
            "cmake --build build",
            "/usr/bin/ld: main.cpp.o: in function `main':\nmain.cpp:(.text+0x1f): undefined reference to "
            "`compute(int)'\ncollect2: error: ld returned 1 exit status",
            id="a-link-error-not-a-killed-linker",
        ),
        pytest.param(
            "./gradlew publish",
            "e: file:///home/runner/work/lib/src/main/kotlin/Auth.kt:12:5 Unresolved reference: unauthorized",
            id="a-compile-error-in-a-publish-job",
        ),
        pytest.param(
            "python -m pytest tests",
            "FAILED tests/test_store.py::test_get_missing - AssertionError: assert 'NoSuchKey' == "
            "'AccessDenied'",
            id="a-test-that-asserts-an-aws-error",
        ),
    ],
)
def test_the_codes_own_failure_that_mentions_the_words_stays_the_codes(command: str, lines: str) -> None:
    assert diagnose(run_log(command, lines.splitlines())).owner is Owner.CODE
