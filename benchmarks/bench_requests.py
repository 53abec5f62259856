"""Print how many API requests a run costs, and what a 100 MiB job log costs to read.

Part 1 models the reads of one healer run against fakes in GitHub's shapes and counts the client's requests:

* a green run with no healer history: the PR number comes from the payload, one comments listing shows no
  marker, and the run stops (a fork PR, absent from the payload, costs one more read to find);
* a failed run with one failed job, up to the point of acting: the PR (is its head still the run's commit?),
  the job listing, the comments (the ledger), the config file from the default branch, and the job's
  annotations and log (redirect + download);
* the same with five failed jobs.

Part 2 serves a 100 MiB log behind the log redirect from a local ``http.server`` on 127.0.0.1 (in a child
process) and downloads its tail in a fresh child process, with and without ``Range`` support on the server,
printing the bytes transferred and the growth of the downloader's resident memory.

Run: ``python benchmarks/bench_requests.py``
"""

from __future__ import annotations

import copy
import json
import resource
import subprocess
import sys
import time
from collections.abc import Callable
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
LOG_SIZE = 100 * 1024 * 1024
TAIL_LINE = b"2024-05-01T10:00:00.0000000Z ##[error]Process completed with exit code 1.\n"


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
        rsps.add("GET", signed, body=b"...\n" + TAIL_LINE, status=206)


def _run_reads(gh: Any, event: Any) -> str:
    """The reads of one run, in the order that lets a green run stop early. Returns where it stopped."""
    from healer.evidence import collect_run_jobs
    from healer.github import is_stale

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


# -- part 2: a 100 MiB log on a local server ----------------------------------------------------------------

_BLOCK = b"".join(
    b"2024-05-01T10:00:%02d.0000000Z building module %05d of the project, nothing wrong here\n" % (i % 60, i)
    for i in range(1024)
)


def _log_bytes(start: int, end: int) -> Callable[[], Any]:
    """The bytes [start, end) of a virtual 100 MiB log, produced in pieces (the server holds no 100 MiB)."""
    body_end = LOG_SIZE - len(TAIL_LINE)

    def pieces() -> Any:
        position = start
        while position < end:
            if position >= body_end:
                yield TAIL_LINE[position - body_end : end - body_end]
                return
            offset = position % len(_BLOCK)
            piece = _BLOCK[offset : offset + min(64 * 1024, body_end - position, end - position)]
            yield piece
            position += len(piece)

    return pieces


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    sent: dict[str, int] = {}

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        parts = self.path.strip("/").split("/")
        if parts[0] == "stats":
            body = json.dumps(_Handler.sent).encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        mode = parts[0]  # "range" or "full": whether the log server honours Range
        if parts[1] == "repos":  # the API: redirect to the "signed" URL
            port = int(self.server.server_address[1])  # type: ignore[index]
            self.send_response(302)
            self.send_header("Location", f"http://127.0.0.1:{port}/{mode}/signed/log?sig=abc")
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        start, end, status = 0, LOG_SIZE, 200
        wanted = self.headers.get("Range", "")
        if mode == "range" and wanted.startswith("bytes=-"):
            start, status = max(0, LOG_SIZE - int(wanted[len("bytes=-") :])), 206
        self.send_response(status)
        if status == 206:
            self.send_header("Content-Range", f"bytes {start}-{end - 1}/{LOG_SIZE}")
        self.send_header("Content-Length", str(end - start))
        self.end_headers()
        sent = 0
        try:
            for piece in _log_bytes(start, end)():
                self.wfile.write(piece)
                sent += len(piece)
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True
        finally:
            _Handler.sent[mode] = _Handler.sent.get(mode, 0) + sent


def serve() -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()


def _status_kib(field: str) -> int:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    raise RuntimeError(f"no {field} in /proc/self/status")


def _reset_peak() -> bool:
    """Reset the kernel's peak-RSS mark (VmHWM) so that the peak of the download alone can be read."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def fetch(api_url: str) -> None:
    """Child process: download the tail once and report bytes and memory as JSON."""
    from healer.github import GitHub

    gh = GitHub("bench-token", REPO, api_url=api_url)
    # warm up on a tiny download so that modules requests imports on first use are not counted as growth
    GitHub("bench-token", REPO, api_url=api_url.replace("/full", "/range")).download_log_tail(
        1, keep_bytes=64
    )
    before = _status_kib("VmRSS")
    # without a reset, the peak would include transient import-time memory from before the download
    reset = _reset_peak()
    started = time.perf_counter()
    tail = gh.download_log_tail(1)
    elapsed = time.perf_counter() - started
    peak = _status_kib("VmHWM") if reset else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(
        json.dumps(
            {
                "bytes_read": tail.bytes_read,
                "kept": len(tail.text.encode()),
                "truncated": tail.truncated,
                "first_line": tail.text.split("\n", 1)[0][:240],
                "ends_with_error": tail.text.endswith(TAIL_LINE.decode()),
                "rss_growth_kib": max(0, peak - before),
                "seconds": round(elapsed, 2),
                "requests": gh.request_count,
            }
        )
    )


def big_log() -> list[dict[str, Any]]:
    server = subprocess.Popen([sys.executable, __file__, "--serve"], stdout=subprocess.PIPE, text=True)
    try:
        assert server.stdout is not None
        port = int(server.stdout.readline())
        results = []
        for mode in ("range", "full"):
            out = subprocess.run(
                [sys.executable, __file__, "--fetch", f"http://127.0.0.1:{port}/{mode}"],
                capture_output=True,
                text=True,
                check=True,
            ).stdout
            result = json.loads(out)
            result["mode"] = mode
            results.append(result)
        time.sleep(0.2)  # let the server finish counting the aborted transfer
        import urllib.request

        with urllib.request.urlopen(f"http://127.0.0.1:{port}/stats") as answer:  # noqa: S310 - loopback
            sent = json.load(answer)
        for result in results:
            result["server_sent"] = sent.get(result["mode"], 0)
        return results
    finally:
        server.terminate()
        server.wait()


def main() -> int:
    print("API requests per run (counted by the client, checked against the fake's call log)")
    for title, count, where in count_requests():
        print(f"  {title:<50} {count:>3}   ({where})")
    print()
    print(f"A {LOG_SIZE // 2**20} MiB job log behind the redirect, local http.server on 127.0.0.1")
    for result in big_log():
        label = "server honours Range" if result["mode"] == "range" else "server ignores Range"
        print(
            f"  {label:<22} read {result['bytes_read'] / 1024:>9,.0f} KiB"
            f" (server sent {result['server_sent'] / 1024:,.0f} KiB),"
            f" kept {result['kept'] / 1024:,.0f} KiB,"
            f" RSS growth {result['rss_growth_kib'] / 1024:,.1f} MiB,"
            f" {result['seconds']} s, {result['requests']} requests"
        )
        print(f"  {'':<22} first line: {result['first_line']}")
        print(f"  {'':<22} log's last line kept: {result['ends_with_error']}")
    return 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["--serve"]:
        serve()
    elif sys.argv[1:2] == ["--fetch"]:
        fetch(sys.argv[2])
    else:
        sys.exit(main())
