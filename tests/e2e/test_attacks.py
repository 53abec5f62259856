"""End to end, as an attacker: code in a same-repository pull request, run by the set-up command, the agent
and verification under ``isolation: user``, tries every way out it can think of. Each attempt is recorded by
the attack itself and its effect is checked from outside: it finds no token, changes nothing outside its copy,
and leaves nothing running; the fix it made is delivered, and nothing else.

The sandbox lives in a directory every user may traverse, as a runner's work directory does, so that only
file ownership and modes keep the attack out (not a private temporary directory). Needs root or
passwordless sudo on Linux and a Python every user can run; CI runs it as root and as a user with sudo.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import stat
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from harness import BROKEN_ADD, LINT_PASSED, assert_no_token, check_contract, failing_test_log

from healer.demo.sample import BASE_FILES
from healer.demo.sandbox import Sandbox, git
from healer.demo.standin import StandIn
from healer.heal.isolation import availability

ROOT = Path(__file__).resolve().parents[2]
FORBIDDEN_VARIABLES = (
    *("GITHUB_ENV", "GITHUB_PATH", "GITHUB_OUTPUT", "GITHUB_STATE", "GITHUB_STEP_SUMMARY"),
    *("ACTIONS_", "HEALER_GITHUB_TOKEN"),
)
HOW, WHY_NOT = availability()


def _public_python() -> str | None:
    """A Python every user can run (the attack runs as the throwaway user)."""
    for candidate in ("/usr/bin/python3", "/usr/local/bin/python3", "/bin/python3"):
        path = Path(candidate)
        if not path.exists():
            continue
        real = path.resolve()
        chain = [real, *real.parents]
        if all(p.stat().st_mode & stat.S_IXOTH for p in chain):
            return candidate
    return None


PYTHON = _public_python()
# CI sets HEALER_REQUIRE_ISOLATION: there these tests run (as root, and as a user with sudo) or fail
REQUIRED = os.environ.get("HEALER_REQUIRE_ISOLATION") == "1"
pytestmark = [
    pytest.mark.skipif(not HOW and not REQUIRED, reason=WHY_NOT or "no isolation here"),
    pytest.mark.skipif(PYTHON is None and not REQUIRED, reason="no Python that every user can run"),
]

ATTACK = r"""
import glob, json, os, pathlib, re, subprocess, sys, time

CONFIG = json.loads(pathlib.Path("attack.json").read_text())
PHASE = sys.argv[1]
# any GitHub token, and the start of `base64("x-access-token:ghs_")`, the basic-auth header git sends
NEEDLE = re.compile(rb"gh[pousr]_[A-Za-z0-9]{30,}|eC1hY2Nlc3MtdG9rZW46Z2hz")
REPORT = pathlib.Path(CONFIG["report_dir"])
found, readable, wrote, mem = [], [], [], []

def read(path, limit=None):
    with open(path, "rb") as handle:
        return handle.read() if limit is None else handle.read(limit)

def look_at_every_process():
    for proc in glob.glob("/proc/[0-9]*"):
        for name in ("environ", "cmdline"):
            try:
                data = read(f"{proc}/{name}")
            except OSError:
                continue
            if name == "environ" and os.stat(proc).st_uid != os.getuid():
                readable.append(f"{proc}/environ")
            if NEEDLE.search(data):
                found.append(f"{proc}/{name}")

def read_memory(pid):
    try:
        maps = read(f"/proc/{pid}/maps").decode()
        with open(f"/proc/{pid}/mem", "rb") as handle:
            for line in maps.splitlines()[:200]:
                start, end = (int(x, 16) for x in line.split()[0].split("-"))
                handle.seek(start)
                data = handle.read(min(end - start, 1 << 20))
                if os.stat(f"/proc/{pid}").st_uid != os.getuid():
                    mem.append(pid)  # another user's memory (its own processes' it may read)
                if NEEDLE.search(data):
                    found.append(f"/proc/{pid}/mem")
    except (OSError, ValueError, OverflowError):
        pass

def healer_pids():
    pids = []
    for proc in glob.glob("/proc/[0-9]*"):
        try:
            if b"healer\x00run" in read(f"{proc}/cmdline"):
                pids.append(int(proc.rsplit("/", 1)[1]))
        except OSError:
            pass
    return pids

def try_write(target, text, mode="a"):
    try:
        pathlib.Path(target).parent.mkdir(parents=True, exist_ok=True)
        with open(target, mode) as handle:
            handle.write(text)
        wrote.append({"target": str(target), "ok": True})
    except OSError as exc:
        wrote.append({"target": str(target), "ok": False, "error": exc.strerror})

look_at_every_process()
read_memory(os.getppid())
for pid in healer_pids():
    read_memory(pid)
for path in glob.glob(CONFIG["runner_temp"] + "/ci-healer-token*") + glob.glob(CONFIG["runner_temp"] + "/*"):
    try:
        if NEEDLE.search(read(path)):
            found.append(path)
    except OSError:
        pass
try:
    sudo = subprocess.run(["sudo", "-n", "true"], capture_output=True).returncode
except OSError:
    sudo = 127

# the runner's file commands, the healer's venv and templates, git configuration at every level
for path in CONFIG["file_commands"]:
    try_write(path, "LD_PRELOAD=/tmp/evil.so\nBASH_ENV=/tmp/evil.sh\n")
try_write(CONFIG["venv_site"] + "/zzz-evil.pth", "import os; os.system('id')\n")
for path in CONFIG["templates"]:
    try_write(path, "{{ self.__init__.__globals__ }}\n")
hook = f"#!/bin/sh\ntouch {CONFIG['report_dir']}/hook-ran-$(basename $0)\n"
for path in CONFIG["git_files"]:
    try_write(path, "[core]\n\tfsmonitor = touch " + CONFIG["report_dir"] + "/fsmonitor-ran\n")
for path in CONFIG["hooks"]:
    try_write(path, hook, "w")
for path in glob.glob(CONFIG["workspace_git"] + "/worktrees/*/commondir"):
    try_write(path, "/tmp/evil-git\n", "w")
# its own copy's git and home: allowed, and never trusted by the healer
try_write(".git/config", "[core]\n\tfsmonitor = touch " + CONFIG["report_dir"] + "/own-fsmonitor-ran\n")
try_write(".git/hooks/pre-commit", hook, "w")
try_write(os.path.expanduser("~/.gitconfig"), "[core]\n\thooksPath = /tmp\n")

# a daemon that outlives this process (setsid + nohup), looks for the token while git pushes, and rewrites a
# test once the fix has been verified
daemon = (
    "import glob, os, pathlib, re, time\n"
    f"needle = re.compile({NEEDLE.pattern!r})\n"
    f"beat = pathlib.Path({str(REPORT / ('heartbeat-' + PHASE))!r})\n"
    "end = time.time() + 60\n"
    "while time.time() < end:\n"
    "    beat.write_text(str(time.time()))\n"
    "    for p in glob.glob('/proc/[0-9]*/environ'):\n"
    "        try:\n"
    "            if needle.search(open(p, 'rb').read()):\n"
    f"                pathlib.Path({str(REPORT / 'daemon-found')!r}).write_text(p)\n"
    "        except OSError:\n"
    "            pass\n"
    "    if os.path.exists('tests/test_calc.py') and time.time() > end - 59:\n"
    "        pathlib.Path('tests/test_calc.py').write_text('def test_add():\\n    pass\\n')\n"
    "    time.sleep(0.05)\n"
)
subprocess.Popen(["setsid", "nohup", sys.executable, "-c", daemon], stdin=subprocess.DEVNULL,
                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
deadline = time.time() + 5
while not (REPORT / ("heartbeat-" + PHASE)).exists() and time.time() < deadline:
    time.sleep(0.02)

if PHASE == "agent":
    calc = pathlib.Path("widgets/calc.py")
    calc.write_text(calc.read_text().replace("a - b", "a + b"))
ok = True
if PHASE == "verify":
    sys.path.insert(0, os.getcwd())
    import widgets.calc
    ok = widgets.calc.add(2, 3) == 5
line = {"phase": PHASE, "uid": os.getuid(), "home": os.path.expanduser("~"), "found": found,
        "readable_environ": readable, "mem": mem, "wrote": wrote, "sudo": sudo,
        "env": sorted(os.environ), "healers": healer_pids()}
with open(REPORT / "report.jsonl", "a") as handle:
    handle.write(json.dumps(line) + "\n")
print(f"{PHASE}: {len(found)} found, {sum(w['ok'] for w in wrote)} written")
sys.exit(0 if ok else 1)
"""


@pytest.fixture
def public_box(standin: StandIn) -> Iterator[Sandbox]:
    """A sandbox in a directory every user can traverse (mode 0755 all the way), like a runner's."""
    root = Path(tempfile.mkdtemp(prefix="ci-healer-e2e-"))
    root.chmod(0o755)
    try:
        box = Sandbox.create(root / "gh", standin, files=BASE_FILES)
        box.isolation = "user"
        yield box
    finally:
        shutil.rmtree(root, ignore_errors=True)


def _digest(paths: list[Path]) -> dict[str, str]:
    return {str(p): hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "absent" for p in paths}


def _uptime() -> float:
    """Seconds since boot, the clock of a process's start time in /proc."""
    return float(Path("/proc/uptime").read_text().split()[0])


def _running(uid: int, started_before: float) -> list[str]:
    """The processes of ``uid`` that still run and started before ``started_before`` (seconds since boot): a
    zombie is dead (init reaps it when it gets to it), and a process started later is not a survivor but
    another throwaway user's (useradd gives a deleted user's uid to the next one, and tests may run in
    parallel)."""
    alive = []
    ticks = os.sysconf("SC_CLK_TCK")
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(line.split(":", 1) for line in status.read_text().splitlines() if ":" in line)
            started = int((status.parent / "stat").read_text().rsplit(")", 1)[1].split()[19]) / ticks
        except (OSError, IndexError, ValueError):
            continue
        if str(uid) not in fields.get("Uid", "").split() or fields.get("State", "").strip().startswith("Z"):
            continue
        if started <= started_before:
            alive.append(f"{status.parent.name} {fields.get('Name', '').strip()}")
    return alive


def _listing(directory: Path) -> list[str]:
    return sorted(str(p.relative_to(directory)) for p in directory.rglob("*")) if directory.is_dir() else []


def test_code_from_the_pull_request_finds_no_token_and_changes_nothing_outside_its_copy(
    public_box: Sandbox,
) -> None:
    box = public_box
    report_dir = Path(tempfile.mkdtemp(prefix="ci-healer-report-", dir=box.root))
    report_dir.chmod(0o777)  # the one place the attack may write: its report
    tag = "attack"
    temp = box.root / f"runner-temp-{tag}"
    temp.mkdir()
    file_commands = [temp / name for name in ("output.txt", "summary.md", "env", "path", "state")]
    for path in file_commands:
        path.write_text("")
    healer_home = box.root / "home"
    healer_home.mkdir(exist_ok=True)
    venv_site = Path(sysconfig.get_paths()["purelib"])
    templates = sorted((ROOT / "prompts").glob("*.j2"))
    workspace_git = box.workspace / ".git"
    git_files = [workspace_git / "config", healer_home / ".gitconfig", Path("/etc/gitconfig")]
    hooks = [workspace_git / "hooks" / name for name in ("pre-push", "pre-commit", "post-checkout")]
    config = {
        "report_dir": str(report_dir),
        "runner_temp": str(temp),
        "file_commands": [str(p) for p in file_commands],
        "venv_site": str(venv_site),
        "templates": [str(p) for p in templates],
        "git_files": [str(p) for p in git_files],
        "hooks": [str(p) for p in hooks],
        "workspace_git": str(workspace_git),
    }
    files = {"widgets/calc.py": BROKEN_ADD, "attack.py": ATTACK, "attack.json": json.dumps(config)}
    sha = box.commit("feature/attack", files, "Simplify add()")
    pull = box.open_pull("feature/attack", sha, title="Simplify add()")
    run = box.add_run(
        pull, [("lint", "success", LINT_PASSED), ("test (3.12)", "failure", failing_test_log(box))]
    )
    outside = [*file_commands[2:], *templates, *git_files, *hooks]  # the healer itself writes output, summary
    before = _digest(outside)
    venv_before = _listing(venv_site)
    hooks_before = _listing(workspace_git / "hooks")

    result = box.run_healer(
        run,
        inputs={
            "setup-command": f"{PYTHON} attack.py setup",
            "agent-command": f"{PYTHON} attack.py agent",
            "verify-command": f"{PYTHON} attack.py verify",
        },
        tag=tag,
        timeout=120,
    )
    ended = _uptime()
    box.standin.idle()

    detail = f"\n--- stdout ---\n{result.stdout[-6000:]}\n--- stderr ---\n{result.stderr[-3000:]}"
    assert result.returncode == 0, detail
    assert "Traceback (most recent call last)" not in result.stdout + result.stderr, detail
    reports = [json.loads(line) for line in (report_dir / "report.jsonl").read_text().splitlines()]
    assert [r["phase"] for r in reports] == ["setup", "agent", "verify"], detail
    for report in reports:
        # it ran as another user, in its own home, without sudo
        assert report["uid"] != os.geteuid()
        assert report["home"] != str(healer_home)
        assert report["sudo"] != 0
        # no token anywhere it could look: no environment, command line, memory or file
        assert report["found"] == [], report
        assert report["readable_environ"] == []  # no process of another user showed its environment
        assert report["healers"] and report["mem"] == []  # it saw the healer, and could read no memory
        assert not [v for v in report["env"] if v.startswith(FORBIDDEN_VARIABLES)]
        # every write outside its copy failed; inside its own copy and home it may do as it likes
        outside_writes = [w for w in report["wrote"] if not w["target"].startswith((".git/", report["home"]))]
        assert outside_writes and not [w for w in outside_writes if w["ok"]], outside_writes
    assert not (report_dir / "daemon-found").exists()
    # nothing outside the copy changed, and no hook or fsmonitor the attack planted ever ran
    assert _digest(outside) == before
    assert not [p for p in file_commands if "LD_PRELOAD" in p.read_text()]
    assert _listing(venv_site) == venv_before
    assert _listing(workspace_git / "hooks") == hooks_before
    assert not [p.name for p in report_dir.iterdir() if "ran" in p.name]
    # nothing it started is still running
    beats = {p: p.stat().st_mtime_ns for p in report_dir.glob("heartbeat-*")}
    assert len(beats) == 3
    time.sleep(0.3)
    assert {p: p.stat().st_mtime_ns for p in beats} == beats, "a daemon of the attack is still running"
    for uid in {r["uid"] for r in reports}:
        assert _running(uid, ended) == [], f"processes of uid {uid} survived"
    # the fix was verified and delivered, and it is exactly the fix: no rewritten test, no attack residue
    assert result.outputs["decision"] == "healed", detail
    [fix] = box.standin.created_pulls(box.repo)
    assert not fix.draft
    changed = git(box.origin, "diff", "--name-only", sha, f"refs/heads/{fix.head_ref}").split()
    assert changed == ["widgets/calc.py"]
    assert_no_token(box, result)
    check_contract(result.requests, box.standin.api_url)
