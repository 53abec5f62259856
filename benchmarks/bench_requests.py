"""Print how many API requests a run costs, and what job logs of 1, 41 and 200 MiB cost to read.

Part 1 models the reads of one healer run against fakes in GitHub's shapes and counts the client's requests:

* a green run with no healer history: the PR number comes from the payload, one comments listing shows no
  marker, and the run stops (a fork PR, absent from the payload, costs one more read to find);
* a failed run with one failed job, up to the point of acting: the PR (is its head still the run's commit?),
  the job listing, the comments (the ledger), the config file from the default branch, and the job's
  annotations and log (redirect + download);
* the same with five failed jobs;
* a whole run that re-runs one job, against the built-in GitHub stand-in (every request of the child
  ``healer run``, and the writes among them), on a pull request with no healer comment and on one with a
  comment the re-run is recorded in.

Part 2 serves job logs of 1, 41 and 200 MiB behind the log redirect from a local ``http.server`` on 127.0.0.1
(in a child process) that answers ``Range`` as Azure Blob Storage does (``bytes=a-`` and ``bytes=a-b``; the
suffix form gets the whole blob), or ignores ``Range`` entirely. The failure is at the very end of the log, or
2 MiB before it. For each it prints the bytes the server sent and the requests made (API hop included) for

* the evidence tail (``GitHub.download_log_tail``, the last 256 KiB), and
* the read-back the evidence uses (``healer.diagnosis.readback.read_back`` over ``GitHub.open_log``) within
the default
  ``log-read-limit`` (4 MiB): the last 256 KiB, then further back until the failing step's start is in view.

Run: ``python benchmarks/bench_requests.py``
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # GitHub's example bodies, via the contract helper

API = "https://api.github.com"
REPO = "octo-org/octo-repo"
BASE = f"{API}/repos/{REPO}"
SHA = "6dcb09b5b57875f334f61aebed695e2e4193db5e"
BOT = "github-actions[bot]"
MIB = 1024 * 1024
SIZES = (1 * MIB, 41 * MIB, 200 * MIB)
TAIL_LINE = b"2024-05-01T10:00:00.0000000Z ##[error]Process completed with exit code 1.\n"
FAILURE_START = b"2024-05-01T10:00:00.0000000Z FAILED tests/test_widgets.py::test_double - assert 3 == 4\n"
FAILURE = (  # starts with a newline: the filler before it may stop mid-line
    b"\n2024-05-01T10:00:00.0000000Z ##[group]Run python -m pytest\n"
    + b"2024-05-01T10:00:00.0000000Z ##[endgroup]\n"
    + FAILURE_START
    + b"2024-05-01T10:00:00.0000000Z E   assert 3 == 4\n"
)


# -- part 1: request counts ---------------------------------------------------------------------------------


def _event(*, conclusion: str, fork: bool = False) -> Any:
    from healer.model import RunEvent

    return RunEvent(
        repository=REPO,
        run_id=30433642,
        run_attempt=1,
        workflow_name="CI",
        head_sha=SHA,
        head_branch="new-topic",
        head_repository="contributor/octo-repo" if fork else REPO,
        is_fork=fork,
        event="pull_request",
        conclusion=conclusion,
        pull_requests=() if fork else (1347,),
        default_branch="main",
        head_owner="contributor" if fork else "octo-org",
    )


def _fake_github(rsps: Any, failed_jobs: int, *, fork: bool) -> None:
    """Register GitHub's answers (the OpenAPI description's examples, adjusted) for one PR and run."""
    import base64

    from openapi_contract import example_response, url_pattern

    pr = example_response("pulls/get")
    pr["head"]["sha"] = SHA
    if fork:
        pr["head"]["repo"]["full_name"] = "contributor/octo-repo"
    rsps.add("GET", url_pattern(f"{BASE}/pulls/1347"), json=pr)
    simple = example_response("pulls/list")[0]
    simple["head"] = copy.deepcopy(pr["head"])
    rsps.add("GET", url_pattern(f"{BASE}/pulls"), json=[simple])
    rsps.add(
        "GET", url_pattern(f"{BASE}/issues/1347/comments"), json=example_response("issues/list-comments")
    )
    template = example_response("actions/list-jobs-for-workflow-run-attempt")["jobs"][0]
    jobs = []
    for index in range(8):
        job = copy.deepcopy(template)
        job.update(
            id=100 + index, name=f"check {index}", conclusion="failure" if index < failed_jobs else "success"
        )
        jobs.append(job)
    listing = {"total_count": len(jobs), "jobs": jobs}
    rsps.add("GET", url_pattern(f"{BASE}/actions/runs/30433642/attempts/1/jobs"), json=listing)
    content = example_response("repos/get-content", name="response-if-content-is-a-file")
    content["content"] = base64.b64encode(b"max-attempts: 2\n").decode()
    rsps.add("GET", url_pattern(f"{BASE}/contents/.github/ci-healer.yml"), json=content)
    for index in range(failed_jobs):
        job_id = 100 + index
        rsps.add(
            "GET",
            url_pattern(f"{BASE}/check-runs/{job_id}/annotations"),
            json=example_response("checks/list-annotations"),
        )
        signed = f"https://results-receiver.actions.githubusercontent.com/logs/{job_id}?sig=x"
        rsps.add(
            "GET", url_pattern(f"{BASE}/actions/jobs/{job_id}/logs"), status=302, headers={"Location": signed}
        )
        body = b"...\n" + TAIL_LINE
        rsps.add(
            "GET",
            signed,
            body=body,
            status=206,
            headers={"Content-Range": f"bytes 0-{len(body) - 1}/{len(body)}"},
        )


def _run_reads(gh: Any, event: Any) -> str:
    """The reads of one run, in the order that lets a green run stop early. Returns where it stopped."""
    from healer.github import is_stale
    from healer.run.evidence import collect_run_jobs

    if event.conclusion == "success":
        # Only a check with a healer history needs a reset: the comments say whether there is any.
        number = event.pull_requests[0] if event.pull_requests else None
        if number is None:
            pr = gh.find_pull_request(event)
            if pr is None:
                return "no PR"
            number = pr.number
        comments = gh.list_comments(number, authors=[BOT])
        if not any("ci-healer:v1" in c.body for c in comments):
            return "green, no history: done"
        gh.list_jobs(event.run_id, event.run_attempt)
        return "green with history: resets"
    pr = gh.find_pull_request(event)
    if pr is None or is_stale(pr, event):
        return "no PR or stale head"
    gh.list_comments(pr.number, authors=[BOT])
    gh.get_file(".github/ci-healer.yml", event.default_branch)
    result = collect_run_jobs(gh, event)
    return f"ready to decide on {len(result.failed)} failed job(s)"


def count_requests() -> list[tuple[str, int, str]]:
    import responses
    from openapi_contract import check_calls

    from healer.github import GitHub

    scenarios: list[tuple[str, str, int, bool]] = [
        ("green run, no history (PR in payload)", "success", 0, False),
        ("green run, no history (fork PR, found by head)", "success", 0, True),
        ("failed run, 1 failed job (before acting)", "failure", 1, False),
        ("failed run, 5 failed jobs (before acting)", "failure", 5, False),
    ]
    rows = []
    for title, conclusion, failed, fork in scenarios:
        with responses.RequestsMock(assert_all_requests_are_fired=False) as rsps:
            _fake_github(rsps, failed, fork=fork)
            gh = GitHub("bench-token", REPO, api_url=API)
            where = _run_reads(gh, _event(conclusion=conclusion, fork=fork))
            assert gh.request_count == len(rsps.calls), (gh.request_count, len(rsps.calls))
            check_calls(rsps.calls, api_base=API)
            rows.append((title, gh.request_count, where))
    return rows


# -- part 1b: what a re-run costs, the whole run against the stand-in ---------------------------------------


def rerun_requests() -> list[tuple[str, int, str]]:
    """The requests of a whole ``healer run`` that re-runs one job (a DNS outage), against the built-in
    GitHub stand-in: on a pull request without a healer comment, and on one with a comment to record it in.
    Returns (scenario, requests, writes by operation)."""
    import tempfile
    from collections import Counter

    from healer.demo.sample import BASE_FILES, job_log
    from healer.demo.sandbox import Sandbox
    from healer.demo.standin import StandIn
    from healer.ledger.markers import Kind, Marker, comment_body

    dns = job_log(
        "test (3.12)",
        "git clone https://git.example-host.invalid/org/repo.git",
        ["fatal: unable to access 'https://git.example-host.invalid/org/repo.git/': Could not resolve host"],
        exit_code=128,
    )
    passed = job_log("lint", "ruff check .", ["All checks passed!"], exit_code=0)
    rows = []
    with StandIn(token="ghs_benchmarkToken0123456789") as standin, tempfile.TemporaryDirectory() as tmp:
        box = Sandbox.create(Path(tmp) / "rerun", standin, files=BASE_FILES)
        for n, title in enumerate(("re-run, no healer comment yet", "re-run, a healer comment to edit")):
            sha = box.commit(f"feature/net-{n}", {"README.md": f"# widgets\n\n{n}\n"}, "Touch the README")
            pull = box.open_pull(f"feature/net-{n}", sha)
            if n:
                earlier = Marker(Kind.RESET, "0" * 40, "lint", run_id=1, run_attempt=1)
                standin.add_comment(box.repo, pull.number, comment_body([earlier], "earlier"), author=BOT)
            run = box.add_run(pull, [("lint", "success", passed), ("test (3.12)", "failure", dns)])
            done = box.run_healer(run, timeout=120)
            standin.idle()
            if done.returncode != 0 or done.outputs.get("decision") != "rerun":
                raise SystemExit(f"the re-run scenario did not re-run:\n{done.stdout[-3000:]}")
            writes = Counter(r.operation for r in done.requests if r.is_write)
            said = ", ".join(f"{op} {k}" for op, k in sorted(writes.items()))
            rows.append((title, len(done.requests), said))
    return rows


# -- part 2: large logs on a local server ---------------------------------------------------------------

_BLOCK = b"".join(
    b"2024-05-01T10:00:%02d.0000000Z building module %05d of the project, nothing wrong here\n" % (i % 60, i)
    for i in range(1024)
)


def _layout(size: int, before_end: int) -> int:
    """Where the failing step's header starts in a log of ``size`` bytes whose failure is followed by
    ``before_end`` bytes of further output and the runner's closing line."""
    return size - len(TAIL_LINE) - before_end - len(FAILURE)


def _pieces(size: int, before_end: int, start: int, end: int) -> Any:
    """The bytes [start, end) of a virtual log (filler, the failing step, output, the closing line)."""
    at, closing = _layout(size, before_end), size - len(TAIL_LINE)
    position = start
    while position < end:
        if at <= position < at + len(FAILURE):
            piece = FAILURE[position - at : min(end, at + len(FAILURE)) - at]
        elif position >= closing:
            piece = TAIL_LINE[position - closing : end - closing]
        else:
            stop = min(end, at if position < at else closing, position + 64 * 1024)
            offset = position % len(_BLOCK)
            piece = _BLOCK[offset : offset + (stop - position)]
            if len(piece) < stop - position:  # wrapped around the block
                piece += _BLOCK[: stop - position - len(piece)]
        yield piece
        position += len(piece)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    sent: dict[str, int] = {}

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        parts = self.path.split("?")[0].strip("/").split("/")
        if parts[0] == "stats":
            body = json.dumps(_Handler.sent).encode()
            _Handler.sent = {}
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        mode, size, before_end = parts[0], int(parts[1]), int(parts[2])  # mode: "azure" or "none"
        if parts[3] == "repos":  # the API: redirect to the "signed" URL
            port = int(self.server.server_address[1])  # type: ignore[index]
            self.send_response(302)
            self.send_header("Location", f"http://127.0.0.1:{port}/{mode}/{size}/{before_end}/blob?sig=abc")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        start, end, status = 0, size, 200
        found = re.fullmatch(r"bytes=(\d+)-(\d*)", self.headers.get("Range", ""))
        if mode == "azure" and found:  # Azure: start-end forms only; anything else gets the whole blob
            start = int(found.group(1))
            end = min(int(found.group(2)) + 1, size) if found.group(2) else size
            status = 206
        self.send_response(status)
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{end - 1}/{size}")
        self.send_header("Content-Length", str(end - start))
        self.end_headers()
        sent = 0
        try:
            for piece in _pieces(size, before_end, start, end):
                self.wfile.write(piece)
                sent += len(piece)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        finally:
            _Handler.sent["bytes"] = _Handler.sent.get("bytes", 0) + sent


def serve() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


def _read_back(gh: Any, limit: int) -> tuple[bool, int]:
    """The diagnosis's own read-back over ``GitHub.open_log``: is the failure's first line in what it read?"""
    from healer.diagnosis.readback import read_back_counted

    result = read_back_counted(gh.open_log(1, limit=limit), limit=limit)
    return FAILURE_START.decode().strip() in result.tail.text, result.reads


def _stats(port: int) -> int:
    time.sleep(0.1)  # let the server finish counting an aborted transfer
    import urllib.request

    with urllib.request.urlopen(f"http://127.0.0.1:{port}/stats") as answer:  # noqa: S310 - loopback
        return int(json.load(answer).get("bytes", 0))


def big_logs() -> list[dict[str, Any]]:
    from healer.github import GitHub
    from healer.logsource import DEFAULT_READ_LIMIT

    server = subprocess.Popen([sys.executable, __file__, "--serve"], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        rows = []
        for mode in ("azure", "none"):
            for size in SIZES:
                for before_end in (0, 2 * MIB) if size > 2 * MIB else (0,):
                    api = f"http://127.0.0.1:{port}/{mode}/{size}/{before_end}"
                    gh = GitHub("bench-token", REPO, api_url=api)
                    _stats(port)
                    tail = gh.download_log_tail(1)
                    tail_sent, tail_requests = _stats(port), gh.request_count
                    gh = GitHub("bench-token", REPO, api_url=api)
                    found, reads = _read_back(gh, DEFAULT_READ_LIMIT)
                    rows.append(
                        {
                            "mode": mode,
                            "size": size,
                            "before_end": before_end,
                            "tail_sent": tail_sent,
                            "tail_requests": tail_requests,
                            "tail_has_failure": FAILURE_START.decode().strip() in tail.text,
                            "back_sent": _stats(port),
                            "back_requests": gh.request_count,
                            "back_found": found,
                        }
                    )
        return rows
    finally:
        server.terminate()
        server.wait()


def main() -> int:
    print("API requests per run (counted by the client, checked against the fake's call log)")
    for title, count, where in count_requests():
        print(f"  {title:<50} {count:>3}   ({where})")
    print()
    print("A whole run that re-runs one job (the stand-in; every request, and the writes among them)")
    for title, count, writes in rerun_requests():
        print(f"  {title:<50} {count:>3}   ({writes})")
    print()
    print(
        "Job logs behind the redirect, local http.server on 127.0.0.1 (bytes the server sent, requests made)"
    )
    print(
        f"  {'server':<7} {'log':>8} {'failure':<14} {'tail: KiB':>10} {'req':>4} {'failure in tail':<16}"
        f" {'read-back: KiB':>15} {'req':>4} {'failure found':<13}"
    )
    for row in big_logs():
        where = "at the end" if row["before_end"] == 0 else "2 MiB earlier"
        print(
            f"  {row['mode']:<7} {row['size'] // MIB:>4} MiB {where:<14} {row['tail_sent'] / 1024:>10,.0f}"
            f" {row['tail_requests']:>4} {str(row['tail_has_failure']):<16} {row['back_sent'] / 1024:>15,.0f}"
            f" {row['back_requests']:>4} {str(row['back_found']):<13}"
        )
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve()
    else:
        sys.exit(main())
