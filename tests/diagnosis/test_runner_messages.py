"""GitHub Actions' own messages: the runner, the workflow engine and the set-up actions. Each entry written
from the words users quote (its source is beside the entry in `rules/generic.yml`) has one case here with the
rule that reads it and the decision that follows; the traps are the code's own failures that mention them."""

from __future__ import annotations

import pytest

from healer.diagnosis.classify import classify
from healer.diagnosis.rules import load_rules
from healer.model import Action, Evidence, LogTail, Owner

RULES = load_rules()
STAMP = "2026-11-03T10:02:11.0000000Z "
SETUP = [
    "Current runner version: '2.321.0'",
    "##[group]Runner Image",
    "Image: ubuntu-24.04",
    "##[endgroup]",
    "Prepare workflow directory",
    "Prepare all required actions",
    "Getting action download info",
]
REPO, PLATFORM, CODE = (
    (Owner.REPOSITORY, Action.ESCALATE),
    (Owner.PLATFORM, Action.RERUN),
    (Owner.CODE, Action.AGENT),
)


def stamp(lines: list[str]) -> str:
    return "".join(f"{STAMP}{line}\n" for line in lines)


def setup_log(error: str) -> str:
    """A job that failed in 'Set up job': no step ran."""
    return stamp([*SETUP, f"##[error]{error}"])


def step_log(uses: str, output: str) -> str:
    """A job whose `uses:` step failed with `output`."""
    return stamp(
        [
            *SETUP,
            "Complete job name: build",
            f"##[group]Run {uses}",
            "with:",
            "##[endgroup]",
            *output.splitlines(),
            "Post job cleanup.",
            "Cleaning up orphan processes",
        ]
    )


def post_log(post: str, test_failed: bool = False) -> str:
    """A job whose post step (setup-node's) printed `post`; its test step passed unless `test_failed`."""
    lines = [
        *SETUP,
        "Complete job name: build",
        "##[group]Run actions/setup-node@v4",
        "with:",
        "##[endgroup]",
        "Found in cache @ /opt/hostedtoolcache/node/20.18.0/x64",
        "##[group]Run npm test",
        "npm test",
        "shell: /usr/bin/bash -e {0}",
        "##[endgroup]",
    ]
    if test_failed:
        lines += [
            "FAIL src/a.test.js",
            "  ● a › adds",
            "    expect(received).toBe(expected)",
            "    Expected: 1",
            "    Received: 2",
            "Tests:       1 failed, 11 passed, 12 total",
            "##[error]Process completed with exit code 1.",
        ]
    else:
        lines += ["Tests:       12 passed, 12 total"]
    return stamp([*lines, "Post job cleanup.", *post.splitlines(), "Cleaning up orphan processes"])


def diagnose(text: str):  # noqa: ANN201
    return classify(Evidence(job=None, log=LogTail(text=text, bytes_read=len(text), truncated=False)), RULES)


CASES = [
    (
        setup_log(
            "The actions some-org/deploy@v2 are not allowed in my-org/app because all actions must be from "
            "a repository owned by my-org."
        ),
        "config.workflow-invalid",
        REPO,
        "allow-list-owned-by",
    ),
    (
        setup_log(
            "actions/checkout@v2 is not allowed to be used in o/r. Actions in this workflow must be: within "
            "a repository owned by o."
        ),
        "config.workflow-invalid",
        REPO,
        "allow-list-must-be",
    ),
    (
        setup_log(
            "actions/checkout@v2 and actions/setup-node@v4 are not allowed to be used in o/r. Actions in "
            "this workflow must be: within a repository owned by o."
        ),
        "config.workflow-invalid",
        REPO,
        "allow-list-several",
    ),
    (
        setup_log(
            "System.ArgumentOutOfRangeException: Specified argument was out of the range of valid values. "
            "(Parameter ''using: node24' is not supported, use 'docker', 'node16' or 'node20' instead.')"
        ),
        "config.workflow-invalid",
        REPO,
        "runtime-not-supported",
    ),
    (
        setup_log("The job was not started because your account is locked due to a billing issue."),
        "config.repository-setting",
        REPO,
        "billing-locked",
    ),
    (
        stamp(
            [
                "Requested labels: ubuntu-latest",
                "Job defined at: o/r/.github/workflows/deploy.yml@refs/heads/main",
                "Waiting for a runner to pick up this job...",
                "##[error]The deployment was rejected or didn't satisfy other protection rules.",
            ]
        ),
        "config.repository-setting",
        REPO,
        "environment-rejected",
    ),
    (
        stamp(
            [
                "##[error]This request was automatically failed because there were no enabled runners online "
                "to process the request for more than 1 days."
            ]
        ),
        "config.runner-unavailable",
        REPO,
        "no-runners",
    ),
    (
        stamp(
            [
                "Current runner version: '2.304.0'",
                "An error occurred: Runner version v2.304.0 is deprecated and cannot receive messages.",
            ]
        ),
        "config.runner-unavailable",
        REPO,
        "runner-deprecated",
    ),
    (
        stamp(["An error occurred: Not configured. Run config.(sh/cmd) to configure the runner."]),
        "config.runner-unavailable",
        REPO,
        "runner-not-configured",
    ),
    (
        step_log(
            "actions/setup-java@v4", "##[error]No supported distribution was found for input adoptium-x"
        ),
        "config.setup-version",
        REPO,
        "java-distribution",
    ),
    (
        step_log(
            "actions/setup-dotnet@v4",
            "dotnet_install: Error: Could not find `.NET Core SDK` with version = "
            "9.0.999\n##[error]Failed to install dotnet, exit code: 1.",
        ),
        "config.setup-version",
        REPO,
        "dotnet-sdk-version",
    ),
    (
        post_log(
            "##[error]Cache folder path is retrieved for yarn but doesn't exist on disk: "
            "/home/runner/.cache/yarn/v6"
        ),
        "config.missing-input",
        REPO,
        "setup-node-post-cache-folder",
    ),
    (
        post_log(
            "##[error]Path Validation Error: Path(s) specified in the action for caching do(es) not exist, "
            "hence no cache is being saved."
        ),
        "config.missing-input",
        REPO,
        "setup-node-post-path",
    ),
    (
        step_log("actions/cache@v4", "##[error]getCacheEntry failed: Cache service responded with 503"),
        "network.cache-service",
        PLATFORM,
        "cache-service-503",
    ),
    (
        step_log("actions/cache/restore@v4", "Error: Cache service responded with 429"),
        "network.cache-service",
        PLATFORM,
        "cache-service-429",
    ),
]


@pytest.mark.parametrize(("text", "rule", "want"), [pytest.param(*c[:3], id=c[3]) for c in CASES])
def test_each_entry_reads_actions_words(text: str, rule: str, want: tuple) -> None:
    diagnosis = diagnose(text)
    assert (diagnosis.rule, diagnosis.owner, diagnosis.action) == (rule, *want)


def test_a_server_error_before_dotnet_install_gives_up_is_the_network() -> None:
    text = step_log(
        "actions/setup-dotnet@v4",
        "Unable to download https://builds.dotnet.microsoft.com/x.tar.gz. "
        "Returned HTTP status code: 503.\n##[error]Failed to install dotnet, exit code: 1. "
        "dotnet_install: Error: Could not find `.NET Core SDK` with version = 8.0.404",
    )
    diagnosis = diagnose(text)
    assert (diagnosis.owner, diagnosis.action) == PLATFORM


@pytest.mark.parametrize(
    "curl",
    [
        "curl: (56) Recv failure: Connection reset by peer",
        "curl: (35) OpenSSL SSL_connect: Connection reset by peer in connection to dotnetcli.azureedge.net",
        "curl: (22) The requested URL returned error: 503",
    ],
)
def test_a_download_curl_could_not_make_before_dotnet_install_gives_up_is_the_network(curl: str) -> None:
    text = step_log(
        "actions/setup-dotnet@v4",
        f"{curl}\ndotnet-install: Failed to download primary link "
        "https://dotnetcli.azureedge.net/dotnet/Sdk/9.0.101/dotnet-sdk-9.0.101-linux-x64.tar.gz\n"
        "dotnet_install: Error: Could not find `.NET Core SDK` with version = 9.0.101\n"
        "##[error]Failed to install dotnet, exit code: 1.",
    )
    assert (diagnose(text).owner, diagnose(text).action) == PLATFORM


def test_a_post_step_error_after_a_failed_test_does_not_decide() -> None:
    text = post_log(
        "##[error]Path Validation Error: Path(s) specified in the action for caching do(es) not "
        "exist, hence no cache is being saved.",
        test_failed=True,
    )
    diagnosis = diagnose(text)
    assert diagnosis.rule != "config.missing-input"
    assert (diagnosis.owner, diagnosis.action) == CODE


def test_a_test_quoting_the_runners_words_is_the_codes() -> None:
    text = stamp(
        [
            "##[group]Run npm test",
            "npm test",
            "shell: /usr/bin/bash -e {0}",
            "##[endgroup]",
            "FAIL test/resolve.test.js",
            "  ● resolves pinned versions",
            '    Expected: "Unable to resolve action `actions/checkout@v9`, unable to find version `v9`"',  # noqa: E501
            "    Received: undefined",
            "Tests:       1 failed, 4 passed, 5 total",
            "##[error]Process completed with exit code 1.",
        ]
    )
    diagnosis = diagnose(text)
    assert diagnosis.rule != "config.workflow-invalid"
    assert diagnosis.owner is Owner.CODE


def test_a_cache_warning_never_decides() -> None:
    text = stamp(
        [
            "##[group]Run pytest -q",
            "pytest -q",
            "shell: /usr/bin/bash -e {0}",
            "##[endgroup]",
            "FAILED tests/test_x.py::test_y - assert 1 == 2",
            "##[warning]Cache service responded with 503",
            "##[error]Process completed with exit code 1.",
        ]
    )
    assert diagnose(text).rule != "network.cache-service"
