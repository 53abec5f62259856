"""A link checker's findings read one by one: every one a busy or slow server is the platform's (re-run), one
broken link keeps the step the code's; each checker's own lines, as its README shows them."""

from __future__ import annotations

import pytest

from healer.diagnosis.classify import classify
from healer.diagnosis.linkfindings import link_findings
from healer.diagnosis.rules import load_rules
from healer.model import Action, Evidence, Job, LogTail, Owner

RULES = load_rules()
STAMP = "2026-11-03T10:02:11.0000000Z "


def diagnose(command: str, output: str):  # noqa: ANN201
    lines = [f"##[group]Run {command}", command, "shell: /usr/bin/bash -e {0}", "##[endgroup]"]
    lines += output.strip("\n").splitlines() + ["##[error]Process completed with exit code 2."]
    text = "".join(f"{STAMP}{line}\n" for line in lines)
    job = Job(id=1, name="docs", status="completed", conclusion="failure")
    return classify(Evidence(job=job, log=LogTail(text=text, bytes_read=len(text), truncated=False)), RULES)


@pytest.mark.parametrize(
    ("output", "verdict"),
    [
        pytest.param(
            "  ✗ [429] https://github.com/a | Failed: Network error: Too Many Requests",
            "busy",
            id="lychee-429",
        ),
        pytest.param("   [TIMEOUT] https://example.org/slow | Timeout", "busy", id="lychee-timeout"),
        pytest.param(
            "   [404] https://example.com/gone | Rejected status code: Not Found", "broken", id="lychee-404"
        ),
        pytest.param(
            "(guide/install: line   40) timeout   https://developer.android.com/studio - "
            "HTTPSConnectionPool(host='developer.android.com', port=443): Read timed out. (read timeout=10)",
            "busy",
            id="sphinx-timeout",
        ),
        pytest.param(
            "(index: line    7) broken    https://docs.example.org/api - HTTPSConnectionPool(host="
            "'docs.example.org', port=443): Max retries exceeded (Caused by ConnectTimeoutError(<conn>))",
            "busy",
            id="sphinx-broken-by-a-timeout",
        ),
        pytest.param(
            "(index: line   12) broken    https://example.com/gone - 404 Client Error: Not Found for url: "
            "https://example.com/gone\n(index: line   14) ok        https://example.com/",
            "broken",
            id="sphinx-404",
        ),
        pytest.param("(faq: line 3) rate-limited https://api.github.com/x", "busy", id="sphinx-rate-limited"),
        pytest.param(
            "   [ERROR] https://gone.invalid/ | Network error: dns error: failed to lookup address",
            "broken",
            id="lychee-host-gone",
        ),
        pytest.param(
            # a network error whose words are 429's reason phrase: the server limited the rate
            "[ERROR] https://github.com/a/b/pull/88 | Network error: Too Many Requests (status code: 429)",
            "busy",
            id="lychee-network-error-too-many-requests",
        ),
        pytest.param(
            "[ERROR] https://www.iana.org/a | Network error: connection closed before message completed",
            "busy",
            id="lychee-server-hung-up",
        ),
        pytest.param(
            "[ERROR] https://www.unicode.org/r.html | Network error: error sending request for url "
            "(https://www.unicode.org/r.html): operation timed out",
            "busy",
            id="lychee-request-timed-out",
        ),
        pytest.param(
            "  [503] https://status.example.com/\nERROR: Detected 1 broken links.",
            "busy",
            id="linkinator-503",
        ),
        pytest.param("  [404] https://example.com/missing", "broken", id="linkinator-404"),
        pytest.param(
            "  [✖] https://slow.example.org/ → Status: 0 Error: ETIMEDOUT\n  ERROR: 1 dead links found!",
            "busy",
            id="markdown-link-check-timeout",
        ),
        pytest.param("  [✖] https://busy.example.org/ → Status: 503", "busy", id="markdown-link-check-503"),
        pytest.param(
            "  [✖] https://gone.invalid/ → Status: 0 Error: getaddrinfo ENOTFOUND gone.invalid",
            "broken",
            id="markdown-link-check-host-gone",
        ),
        pytest.param(
            "  External link https://slow.example.org/ failed: got a time out (response code 0)\n"
            "HTML-Proofer found 1 failure!",
            "busy",
            id="html-proofer-timeout",
        ),
        pytest.param(
            "  External link https://example.com/gone failed (status code 404)",
            "broken",
            id="html-proofer-404",
        ),
        pytest.param(
            "  External link https://slow.example.org/ failed: got a time out (response code 0)\n"
            "  image logo.png does not have an alt attribute\nHTML-Proofer found 2 failures!",
            None,
            id="a-count-larger-than-the-findings-read",
        ),
        pytest.param("error: unknown argument '--frobnicate'", None, id="no-finding"),
    ],
)
def test_each_finding_is_read(output: str, verdict: str | None) -> None:
    assert link_findings(output.splitlines()) == verdict


def test_a_checker_whose_every_finding_is_a_busy_server_is_rerun() -> None:
    diagnosis = diagnose(
        "lychee --no-progress docs/",
        "[docs/index.md]:\n   [TIMEOUT] https://example.org/slow | Timeout\n"
        "   [TIMEOUT] https://example.net/slower | Timeout",
    )
    assert (diagnosis.owner, diagnosis.action) == (Owner.PLATFORM, Action.RERUN)
    assert ("evidence", "the link checker's findings: a busy or slow server") in diagnosis.decided_by


def test_one_broken_link_among_busy_servers_is_the_documents() -> None:
    diagnosis = diagnose(
        "lychee --no-progress './**/*.md'",
        "[README.md]:\n  ✗ [429] https://github.com/a | Failed: Network error: Too Many Requests\n"
        "  ✗ [404] https://example.com/gone | Failed: Network error: Not Found",
    )
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)


def test_a_test_step_that_prints_a_checkers_lines_is_left_alone() -> None:
    diagnosis = diagnose(
        "npx jest",
        " FAIL  src/links.test.ts\n  ● links › reports busy hosts\n\n    expect(received).toEqual(expected)\n"
        '    Expected: "x"\n  [503] https://status.example.com/\nTests:       1 failed, 20 passed, 21 total',
    )
    assert diagnosis.owner is Owner.CODE


def test_lycheess_verbose_lines_are_not_findings_and_its_error_count_is_checked() -> None:
    lines = [
        "[WARN] https://github.com/a/b/issues/12 | Rate limited (429 Too Many Requests)",
        "[200] https://report.example.org/import",
        "[ERROR] https://github.com/a/b/blob/main/CONTRIBUTING.md | Network error: Too Many Requests",
        "[ERROR] https://github.com/a/b/pull/88 | Network error: Too Many Requests",
        "🔍 214 Total (in 6s) ✅ 212 OK 🚫 2 Errors",
    ]
    assert link_findings(lines) == "busy"
    # lychee counted an error whose line was not read: nothing to say
    assert link_findings([*lines[:-1], "🔍 215 Total (in 6s) ✅ 212 OK 🚫 3 Errors"]) is None
    # timeouts are counted apart from errors
    timeouts = ["[TIMEOUT] https://www.python.org/dev/peps/pep-0008/ | Timeout", *lines[2:4]]
    assert link_findings([*timeouts, "🔍 214 Total (in 3s) ✅ 211 OK 🚫 2 Errors ⏳ 1 Timeouts"]) == "busy"
    assert (
        link_findings([*lines[:2], "[404] https://example.org/gone | Rejected status code: Not Found"])
        == "broken"
    )
