"""End to end: the healer learns. A failure no shipped rule knows is healed by the agent; a person merges the
fix; the healer proposes a rule in a pull request against the default branch; once that is merged, the same
failure on another pull request is healed by the rule without the agent (or, when no command reproduced the
fix, the agent's frame says what fixed it last time)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest
import yaml
from harness import REPO, agent_reports, heal, record_bodies, write_agent

from healer.demo.sample import BASE_FILES, job_log
from healer.demo.sandbox import HealerRun, Sandbox, git
from healer.demo.standin import StandIn
from healer.demo.state import Pull, Run
from healer.diagnosis.classify import classify
from healer.diagnosis.rules import load_rules
from healer.heal.isolation import availability
from healer.model import Evidence, Job, LogTail

LEARNED = ".github/ci-healer/rules/learned.yml"
GENERATOR = """import hashlib, pathlib
spec = pathlib.Path("spec/api.txt").read_text()
digest = hashlib.sha256(spec.encode()).hexdigest()[:7]
names = [line.strip() for line in spec.splitlines() if line.strip()]
pathlib.Path("widgets/client.py").write_text(
    f'\"\"\"Generated from spec/api.txt (spec {digest}); do not edit.\"\"\"\\n\\nENDPOINTS = {names!r}\\n'
)
"""
CHECK_CLIENT = """import hashlib, pathlib, re, sys
digest = hashlib.sha256(pathlib.Path("spec/api.txt").read_text().encode()).hexdigest()[:7]
found = re.search(r"spec ([0-9a-f]{7})", pathlib.Path("widgets/client.py").read_text())
old = found.group(1) if found else "0000000"
if old != digest:
    print(f"client drift: widgets/client.py was generated from spec {old}, the spec is now {digest}")
    print("regenerate it with the generator in scripts/")
    sys.exit(3)
print("the client is up to date")
"""
CHECK_NAMES = """import pathlib, re, sys
bad = 0
for path in sorted(pathlib.Path("widgets").glob("*.py")):
    for number, line in enumerate(path.read_text().splitlines(), 1):
        found = re.match(r"def (\\w+)", line)
        if found and not found.group(1).startswith(("add", "make", "count", "get")):
            name = found.group(1)
            print(f"naming: {path}:{number} function '{name}' must start with a verb (see CONTRIBUTING.md)")
            bad += 1
sys.exit(3 if bad else 0)
"""
PROJECT = {
    "scripts/gen_client.py": GENERATOR,
    "scripts/check_client.py": CHECK_CLIENT,
    "scripts/check_names.py": CHECK_NAMES,
    "spec/api.txt": "add\ncount\n",
}
CLIENT_FIX_AGENT = (
    "import subprocess\n"
    "report(frame_bytes=len(frame.encode()), command_file='HEALER_FIX_COMMAND_FILE' in os.environ)\n"
    "subprocess.run([sys.executable, 'scripts/gen_client.py'], check=True)\n"
    "pathlib.Path(os.environ['HEALER_FIX_COMMAND_FILE']).write_text('python scripts/gen_client.py\\n')\n"
    "print('Regenerated widgets/client.py from spec/api.txt with scripts/gen_client.py.')\n"
)
# renames by hand; the command it names makes no such change, so it does not count
NAMES_FIX_AGENT = (
    "import re\n"
    "report(frame_bytes=len(frame.encode()), frame=frame)\n"
    "calc = pathlib.Path('widgets/calc.py')\n"
    "calc.write_text(re.sub(r'def (twice|thrice)', r'def make_\\1', calc.read_text()))\n"
    "pathlib.Path(os.environ['HEALER_FIX_COMMAND_FILE']).write_text('python scripts/gen_client.py\\n')\n"
    "print('Renamed the new function so that its name starts with a verb.')\n"
)


def _run_script(box: Sandbox, script: str) -> tuple[list[str], int]:
    done = subprocess.run([sys.executable, script], cwd=box.seed, capture_output=True, text=True, check=False)
    return (done.stdout + done.stderr).splitlines(), done.returncode


def project(box: Sandbox) -> None:
    """The default branch gets a generated client and its checks; the client is generated once, as its
    maintainers would."""
    box.commit(box.default_branch, PROJECT, "Add the client generator and its checks")
    assert _run_script(box, "scripts/gen_client.py")[1] == 0
    client = (box.seed / "widgets/client.py").read_text()
    box.commit(box.default_branch, {"widgets/client.py": client}, "Generate the client")


FAILED_LOGS: dict[int, str] = {}


def failing_pull(box: Sandbox, branch: str, files: dict[str, str], job: str, script: str) -> tuple[Pull, Run]:
    """A PR whose ``job`` fails with the real output of ``script`` on its head (its log in FAILED_LOGS)."""
    git(box.seed, "fetch", "--quiet", "origin")
    sha = box.commit(branch, files, f"Change {', '.join(files)}", base=f"origin/{box.default_branch}")
    lines, code = _run_script(box, script)
    assert code == 3, lines
    pull = box.open_pull(branch, sha, title=f"Change {branch}")
    log = job_log(job, f"python {script}", lines, exit_code=3)
    run = box.add_run(pull, [(job, "failure", log)])
    FAILED_LOGS[run.id] = log
    return pull, run


def learned_id(box: Sandbox) -> str:
    [rule_pull] = created(box, "ci-healer/rule-")
    return "learned." + rule_pull.head_ref.removeprefix("ci-healer/rule-")


def created(box: Sandbox, prefix: str) -> list[Pull]:
    return [p for p in box.standin.created_pulls(box.repo) if p.head_ref.startswith(prefix)]


def merge_and_learn(box: Sandbox, fix: Pull) -> tuple[HealerRun, Pull]:
    """A person merges ``fix``; the closed event proposes the rule; the rule pull request is returned."""
    box.standin.merge_pull(fix, by="mona")
    result = box.run_healer_on_pull(fix)
    assert result.returncode == 0, result.stdout[-3000:] + result.stderr[-3000:]
    [rule_pull] = created(box, "ci-healer/rule-")
    return result, rule_pull


def test_a_fix_a_person_merged_becomes_a_rule_that_heals_the_next_failure_without_the_agent(
    box: Sandbox, tmp_path: Path
) -> None:
    project(box)
    agent = write_agent(tmp_path / "agent", CLIENT_FIX_AGENT)
    inputs = {"agent-command": agent, "verify-command": "python scripts/check_client.py"}

    # (1) a failure in a format no shipped rule knows
    pull, run = failing_pull(
        box, "feature/ping", {"spec/api.txt": "add\ncount\nping\n"}, "client", "scripts/check_client.py"
    )
    first = heal(box, run, inputs=inputs)
    assert (first.outputs["decision"], first.outputs["category"]) == ("healed", "unknown")

    # learning costs a heal run one request: the learned rules read beside the config file
    assert [r.operation for r in first.requests].count("repos/get-content") == 2
    # (2) the agent's fix is verified, and the command it named reproduces it
    [report] = agent_reports(tmp_path / "agent")
    assert report["command_file"] is True
    assert "the named command reproduces the change" in first.stdout
    [fix] = created(box, f"ci-healer/{pull.number}-")
    assert not fix.draft  # verified: ready for review
    assert box.standin.comments(box.repo, pull.number) == []  # the attempt is recorded in the fix's body
    assert '"learned":"' in (fix.body or "")  # the attempt's marker names the signature

    # (3) a person merges the fix; (4) a rule pull request adds a rule that matches the failure
    learned, rule_pull = merge_and_learn(box, fix)
    assert learned.outputs["decision"] == "none"  # a rule pull request heals nothing; the summary links it
    assert f"proposed the rule `{learned_id(box)}`" in learned.summary
    # at merge time: the config file, the original PR's comments, the rule branch's PRs, the new PR
    assert [r.operation for r in learned.requests] == [
        "repos/get-content",
        "issues/list-comments",
        "pulls/list",
        "pulls/create",
    ]
    assert rule_pull.base_ref == box.default_branch and not rule_pull.draft
    changed = git(box.origin, "diff", "--name-only", f"{box.default_branch}..{rule_pull.head_sha}").split()
    assert changed == [LEARNED]  # nothing else
    [rule] = yaml.safe_load(box.show(rule_pull.head_sha, LEARNED))["rules"]
    assert (rule["action"], rule["fix"], rule["category"]) == (
        "fix",
        ["python scripts/gen_client.py"],
        "unknown",
    )
    rules = load_rules(learned=[rule])
    log = FAILED_LOGS[run.id]
    job = Job(1, "client", "completed", "failure")
    assert classify(Evidence(job, LogTail(log, len(log), False)), rules).rule == rule["id"]
    assert "python scripts/gen_client.py" in (rule_pull.body or "") and rule["id"] in (rule_pull.body or "")
    # the title names the failure and the command; the body says the rule is repository-wide, shows the change
    assert rule_pull.title.endswith("with `python scripts/gen_client.py`") and "#" not in rule_pull.title
    assert "It is repository-wide" in (rule_pull.body or "")
    assert "```diff\n" in (rule_pull.body or "") and "widgets/client.py" in (rule_pull.body or "")
    # asked again (a re-delivered event), the healer proposes nothing new
    again = box.run_healer_on_pull(fix)
    assert again.returncode == 0 and len(created(box, "ci-healer/rule-")) == 1
    assert "was proposed before" in again.stdout

    # (5) the rule pull request is merged (its own closed event teaches nothing)
    box.standin.merge_pull(rule_pull, by="mona")
    closed = box.run_healer_on_pull(rule_pull)
    assert closed.returncode == 0 and len(created(box, "ci-healer/rule-")) == 1

    # (6) the same failure on another pull request: fixed by the rule, no agent, verified
    other, other_run = failing_pull(
        box, "feature/pong", {"spec/api.txt": "add\ncount\npong\n"}, "client", "scripts/check_client.py"
    )
    second = heal(box, other_run, inputs=inputs)
    assert second.outputs["decision"] == "healed"
    assert len(agent_reports(tmp_path / "agent")) == 1  # still the one run of the first occurrence
    assert f"(rule {rule['id']}, fix; " in second.stdout
    [fix2] = created(box, f"ci-healer/{other.number}-")
    assert not fix2.draft and "python scripts/gen_client.py" in (fix2.body or "")
    # the rule's description is the diagnosis of the fix pull requests it opens
    assert f"like the one #{fix.number} fixed on #{pull.number}" in (fix2.body or "")
    assert "pong" in box.show(fix2.head_sha, "widgets/client.py")
    # the figures of docs/learning.md (run with -s)
    print(f"\nrequests: {len(first.requests)} / {len(second.requests)} heal, {len(learned.requests)} merge")
    print(f"agent runs 1 / 0, frame bytes {report['frame_bytes']} / 0")
    print(f"rule PR title: {rule_pull.title}\n--- body ---\n{rule_pull.body}")
    print(f"--- {LEARNED} ---\n{box.show(rule_pull.head_sha, LEARNED)}")


def test_without_a_reproducing_command_the_next_frame_carries_the_hint(box: Sandbox, tmp_path: Path) -> None:
    project(box)
    agent = write_agent(tmp_path / "agent", NAMES_FIX_AGENT)
    inputs = {"agent-command": agent, "verify-command": "python scripts/check_names.py"}
    twice = (
        '"""Arithmetic on widget counts."""\n\n\ndef add(a: int, b: int) -> int:\n    return a + b\n\n\n'
        "def twice(a: int) -> int:\n    return 2 * a\n"
    )
    pull, run = failing_pull(
        box, "feature/twice", {"widgets/calc.py": twice}, "names", "scripts/check_names.py"
    )
    first = heal(box, run, inputs=inputs)
    assert first.outputs["decision"] == "healed"
    assert "the named command does not reproduce the change" in first.stdout
    [fix] = created(box, f"ci-healer/{pull.number}-")

    _, rule_pull = merge_and_learn(box, fix)
    [rule] = yaml.safe_load(box.show(rule_pull.head_sha, LEARNED))["rules"]
    assert rule["action"] == "agent" and "fix" not in rule
    assert f"fix pull request #{fix.number} for #{pull.number}" in rule["hint"]
    assert "widgets/calc.py" in rule["hint"] and "Renamed the new function" in rule["hint"]
    box.standin.merge_pull(rule_pull, by="mona")
    print(f"\nrule PR title: {rule_pull.title}\n--- body ---\n{rule_pull.body}")

    thrice = twice.replace("twice", "thrice").replace("2 * a", "3 * a")
    _, other_run = failing_pull(
        box, "feature/thrice", {"widgets/calc.py": thrice}, "names", "scripts/check_names.py"
    )
    second = heal(box, other_run, inputs=inputs)
    assert second.outputs["decision"] == "healed"
    first_report, second_report = agent_reports(tmp_path / "agent")
    frame = str(second_report["frame"])
    assert rule["hint"] not in str(first_report["frame"])
    # the hint is in the frame, fenced, after the sentence that calls it untrusted
    said = frame.index("learned what fixed it (a learned rule)")
    fence = frame.index("```", said)
    assert said < frame.index(rule["hint"]) and fence < frame.index(rule["hint"])
    print(
        f"\nhint: frame bytes {first_report['frame_bytes']} (first) / {second_report['frame_bytes']} (second)"
    )


def test_a_fix_merged_by_the_bot_or_closed_unmerged_teaches_nothing(box: Sandbox, tmp_path: Path) -> None:
    project(box)
    agent = write_agent(tmp_path / "agent", CLIENT_FIX_AGENT)
    inputs = {"agent-command": agent, "verify-command": "python scripts/check_client.py"}
    pull, run = failing_pull(
        box, "feature/ping", {"spec/api.txt": "add\ncount\nping\n"}, "client", "scripts/check_client.py"
    )
    heal(box, run, inputs=inputs)
    [fix] = created(box, f"ci-healer/{pull.number}-")
    box.standin.merge_pull(fix, by="github-actions[bot]", delete_branch=False)
    result = box.run_healer_on_pull(fix)
    assert result.returncode == 0 and "only a fix a person merged teaches a rule" in result.stdout
    assert created(box, "ci-healer/rule-") == []
    # `learn: false` proposes nothing either, even for a person's merge
    fix.merged_by = "mona"
    off = box.run_healer_on_pull(fix, inputs={"learn": "false"})
    assert off.returncode == 0 and "`learn` is off" in off.stdout
    assert created(box, "ci-healer/rule-") == []


PUBLIC_PYTHON = next(
    (p for p in ("/usr/bin/python3", "/usr/local/bin/python3") if Path(p).exists() and os.access(p, os.X_OK)),
    None,
)


@pytest.mark.skipif(
    not availability()[0] or PUBLIC_PYTHON is None, reason="no throwaway user can be made here"
)
def test_under_isolation_the_agent_names_and_the_throwaway_user_reproduces_the_command(
    standin: StandIn,
) -> None:
    root = Path(tempfile.mkdtemp(prefix="ci-healer-learn-"))
    root.chmod(0o755)  # every user can traverse it, like a runner's work directory
    try:
        box = Sandbox.create(root / "gh", standin, repo=REPO, files=BASE_FILES)
        box.isolation, box.path = "user", "/usr/local/bin:/usr/bin:/bin"
        project(box)
        agents = root / "agent"
        agents.mkdir(mode=0o777)
        agents.chmod(0o777)  # the agent runs as the throwaway user and writes its report here
        script = agents / "agent.py"
        script.write_text(
            "import os, pathlib, subprocess, sys\n"
            "subprocess.run([sys.executable, 'scripts/gen_client.py'], check=True)\n"
            "named = pathlib.Path(os.environ['HEALER_FIX_COMMAND_FILE'])\n"
            "named.write_text('python3 scripts/gen_client.py\\n')\n"
            f"pathlib.Path({str(agents / 'ran')!r}).write_text(str(os.getuid()))\n"
        )
        script.chmod(0o755)
        inputs = {
            "agent-command": f"{PUBLIC_PYTHON} {script}",
            "verify-command": "python3 scripts/check_client.py",
        }
        pull, run = failing_pull(
            box, "feature/ping", {"spec/api.txt": "add\ncount\nping\n"}, "client", "scripts/check_client.py"
        )
        result = heal(box, run, inputs=inputs)
        assert result.outputs["decision"] == "healed", result.stdout[-3000:]
        assert int((agents / "ran").read_text()) != os.getuid()  # the agent ran as another user
        assert "the named command reproduces the change" in result.stdout
        [body] = record_bodies(box, pull.number)
        assert '"learned":"' in body
    finally:
        shutil.rmtree(root, ignore_errors=True)
