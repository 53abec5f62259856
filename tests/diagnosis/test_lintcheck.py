"""Lint, format, type-check and scan jobs whose failure is not a finding about the code
(`healer/diagnosis/rules/lintcheck.yml`): each entry, written from a tool's own words, has one case here with
the rule that must read it and the decision that follows; and the traps: a checker's finding about the code
that merely mentions the same words stays the code's."""

from __future__ import annotations

import pytest
from joblogs import PLATFORM, REPO, UPSTREAM, diagnose_log, job_log

from healer.model import Action, Owner


def diagnose(command: str, output: str, exit_code: int = 1):  # noqa: ANN201
    return diagnose_log(job_log(command, output, exit_code=exit_code), job="lint")


CASES = [
    (
        "golangci-lint run",
        'level=error msg="Timeout exceeded: try increasing it by passing --timeout option"',
        "lint.golangci-timeout",
        PLATFORM,
        "golangci-timeout",
    ),
    (
        "golangci-lint run",
        'level=error msg="Running error: context loading failed: failed to load packages: failed to load '
        "packages: failed to load with go/packages: err: exit status 1: stderr: go: go.mod requires go >= "
        '1.22 (running go 1.21.5; GOTOOLCHAIN=local)"',
        "lint.golangci-go-version",
        REPO,
        "golangci-go-version",
    ),
    (
        "codeql database finalize db",
        "CodeQL detected code written in Java/Kotlin but could not process any of it. For more information, "
        "review our troubleshooting guide at "
        "https://gh.io/troubleshooting-code-scanning/no-source-code-seen-during-build.",
        "scan.codeql-no-source",
        REPO,
        "codeql-no-source",
    ),
    (
        "semgrep --config p/ci .",
        "Fetching rules from https://semgrep.dev/registry.\n[ERROR] Failed to download config from "
        "https://semgrep.dev/c/p/ci: bad status code: 502 returned by config url: https://semgrep.dev/c/p/ci",
        "scan.semgrep-registry",
        PLATFORM,
        "semgrep-registry-5xx",
    ),
    (
        "trivy image --exit-code 1 --severity CRITICAL app:latest",
        "app:latest (debian 12.5)\n========================\nTotal: 1 (CRITICAL: 1)\n\n"
        "│ libssl3    │ CVE-2024-5535  │ CRITICAL │ fixed    │ 3.0.11-1~deb12u2  │ 3.0.13-1      │ openssl │",
        "scan.trivy-os-packages",
        UPSTREAM,
        "trivy-base-image",
    ),
    (
        "npx license-checker --production --failOn GPL-3.0",
        'Found license defined by the --failOn flag: "GPL-3.0". Exiting.',
        "license.dependency-refused",
        REPO,
        "license-checker-failon",
    ),
]


@pytest.mark.parametrize(
    ("command", "output", "rule", "want"), [pytest.param(*c[:4], id=c[4]) for c in CASES]
)
def test_each_entry_reads_its_tools_words(command: str, output: str, rule: str, want: tuple) -> None:
    diagnosis = diagnose(command, output)
    assert (diagnosis.rule, diagnosis.owner, diagnosis.action) == (rule, *want)


@pytest.mark.parametrize(
    ("command", "output"),
    [
        pytest.param(
            "golangci-lint run",
            "main.go:10:2: ineffectual assignment to err (ineffassign)\n"
            'level=error msg="Timeout exceeded: try increasing it by passing --timeout option"',
            id="golangci-finding-beside-its-timeout",
        ),
        pytest.param(
            "trivy fs --exit-code 1 .",
            "package-lock.json (npm)\n=======================\nTotal: 1 (HIGH: 1, CRITICAL: 0)\n\n"
            "│ lodash   │ CVE-2021-23337 │ HIGH     │ fixed  │ 4.17.20           │ 4.17.21       │ lodash │",
            id="trivy-lock-file-finding",
        ),
        pytest.param(
            "trivy image --exit-code 1 app:latest",
            "app:latest (alpine 3.19.1)\nTotal: 1 (HIGH: 1, CRITICAL: 0)\n\napp/package-lock.json (npm)\n"
            "Total: 1 (HIGH: 1, CRITICAL: 0)",
            id="trivy-image-with-a-lock-file-finding",
        ),
        pytest.param(
            "semgrep --config p/pythn .",
            "[ERROR] Failed to download config from https://semgrep.dev/c/p/pythn: bad status code: 404 "
            "returned by config url: https://semgrep.dev/c/p/pythn",
            id="semgrep-rule-set-not-found",
        ),
        pytest.param(
            "npx eslint .",
            "/w/src/net.js\n  12:3  error  Using setTimeout for network retries is not allowed  "
            "no-restricted-syntax\n\n✖ 1 problem (1 error, 0 warnings)",
            id="eslint-restricted-settimeout",
        ),
        pytest.param(
            "bandit -r app",
            ">> Issue: [B105:hardcoded_password_string] Possible hardcoded password: 'token'\n"
            "   Severity: Low   Confidence: Medium\n   Location: app/settings.py:10:11",
            id="bandit-hardcoded-password",
        ),
        pytest.param(
            "golangci-lint run",
            "pkg/client.go:20:3: G402: TLS InsecureSkipVerify set true. (gosec)\n1 issues:\n* gosec: 1",
            id="gosec-insecure-skip-verify",
        ),
        pytest.param(
            "ruff check .",
            'app/settings.py:3:9: S105 Possible hardcoded password assigned to: "token"\n'
            "app/net.py:5:1: S113 Probable use of `requests` call without timeout\nFound 2 errors.",
            id="ruff-password-and-timeout",
        ),
    ],
)
def test_the_codes_own_findings_stay_the_codes(command: str, output: str) -> None:
    diagnosis = diagnose(command, output)
    assert diagnosis.owner is Owner.CODE and diagnosis.action in (Action.AGENT, Action.FIX)
