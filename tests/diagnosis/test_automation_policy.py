"""Project automation, dependency bots and pull-request policy checks, whole logs through the diagnosis: each
table entry added for them reads a failure in the tool's own words to the decision that follows, and the
traps: the code's own failure inside a job named for a policy."""

from __future__ import annotations

import pytest
from joblogs import diagnose_log, job_log

from healer.model import Action, Owner


def run_log(command: str, output: str) -> str:
    return job_log(command, output, image="ubuntu-24.04")


def diagnose(text: str, job: str):  # noqa: ANN201
    return diagnose_log(text, job=job)


@pytest.mark.parametrize(
    ("job", "command", "output", "purpose", "owner", "action"),
    [
        pytest.param(
            "codeowners",
            "mszostok/codeowners-validator@v0.7.4",
            "==> Executing File Exist Checker (1.2ms)\n"
            '    [err] line 5: "docs/old/*" does not match any files in repository\n\n'
            "1 check(s) with errors",
            "lint",
            Owner.CODE,
            Action.AGENT,
            id="codeowners-validator-the-files-pattern",
        ),
        pytest.param(
            "zizmor",
            "zizmorcore/zizmor-action@v0.1.1",
            "warning[artipacked]: credential persistence through GitHub Actions artifacts\n"
            "  --> ./.github/workflows/ci.yml:14:9\n\n"
            "2 findings: 0 unknown, 0 informational, 0 low, 2 medium, 0 high",
            "security-scan",
            Owner.CODE,
            Action.AGENT,
            id="zizmor-a-workflows-finding",
        ),
        pytest.param(
            "label",
            "actions/labeler@v5",
            "The configuration file (path: .github/labeler.yml) was not found locally, fetching via the api\n"
            "##[error]Error: found unexpected type for label 'area: docs' (should be array of config"
            " options)",
            "automation",
            Owner.CODE,
            Action.AGENT,
            id="labeler-5-refuses-the-version-4-format",
        ),
        pytest.param(
            "analyze",
            "github/codeql-action/analyze@v3",
            "Uploading results\nSuccessfully uploaded results\nWaiting for processing to finish\n"
            "Analysis upload status is failed.\n"
            "##[error]Code Scanning could not process the submitted SARIF file:\n"
            "CodeQL analyses from advanced configurations cannot be processed when the default setup is"
            " enabled",
            "security-scan",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="codeql-default-setup-beside-an-advanced-workflow",
        ),
        pytest.param(
            "validate-renovate-config",
            "npx --yes --package renovate -- renovate-config-validator --strict",
            " INFO: Validating renovate.json\n ERROR: renovate.json contains errors",
            "lint",
            Owner.CODE,
            Action.AGENT,
            id="renovate-config-validator-the-checkouts-file",
        ),
        pytest.param(
            "check",
            "towncrier check --compare-with origin/main",
            "Looking at these files:\n----\n1. src/a.py\n----\nNo new newsfragments found on this branch.",
            "pr-policy",
            Owner.METADATA,
            Action.ESCALATE,
            id="towncrier-check-the-news-fragment",
        ),
        pytest.param(
            "danger",
            "npx danger ci",
            "Danger: ✖ Failing the build, there is 1 fail.\n## Failures\n"
            "`Please add a changelog entry for your changes.`",
            "pr-policy",
            Owner.METADATA,
            Action.ESCALATE,
            id="danger-the-dangerfiles-fail",
        ),
        pytest.param(
            "branch-naming",
            "deepakputhraya/action-branch-name@master",
            "Error: Branch name my_branch does not match any of the allowed patterns: feature/*, fix/*",
            "pr-policy",
            Owner.METADATA,
            Action.ESCALATE,
            id="branch-name",
        ),
        pytest.param(
            "draft-check",
            'if [ "$DRAFT" = "true" ]; then echo "This PR is a draft"; exit 1; fi',
            "This PR is a draft",
            "pr-policy",
            Owner.METADATA,
            Action.ESCALATE,
            id="a-job-named-for-the-draft-state",
        ),
        pytest.param(
            "Dependabot",
            "github/dependabot-action@main",
            "updater | ERROR <job_1> Error processing mylib (Dependabot::GitDependenciesNotReachable)\n"
            "Dependabot encountered an error performing the update",
            "dependency-bot",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="dependabots-own-job",
        ),
        # traps: a job named for a policy whose command checks the code
        pytest.param(
            "draft-check",
            "pytest -q",
            "FAILED tests/test_api.py::test_list - AssertionError: assert 2 == 3\n"
            "1 failed, 40 passed in 1.20s",
            "test",
            Owner.CODE,
            Action.AGENT,
            id="trap-tests-in-a-job-named-for-the-draft-state",
        ),
        pytest.param(
            "news",
            "towncrier build --draft --version 1.0",
            "Traceback (most recent call last):\n"
            '  File "/home/runner/work/r/r/changes/template.py", line 3, in <module>\n'
            '    raise ValueError("bad fragment type: misc")\n'
            "ValueError: bad fragment type: misc",
            "",
            Owner.CODE,
            Action.AGENT,
            id="trap-towncrier-build-raising-in-the-checkout",
        ),
    ],
)
def test_each_entry_decides_from_the_tools_words(
    job: str, command: str, output: str, purpose: str, owner: Owner, action: Action
) -> None:
    got = diagnose(run_log(command, output), job)
    assert (got.purpose, got.owner, got.action) == (purpose, owner, action), got.decided_by
