"""End to end: `setup-command` prepares the PR-head checkout, and verification runs in what it prepared."""

from __future__ import annotations

import sys
from pathlib import Path

from harness import BRANCH, agent_reports, heal, record_bodies, write_agent

from healer.demo.sample import job_log
from healer.demo.sandbox import Sandbox, git
from healer.demo.state import Pull, Run

# The PR's tests need `gizmo`, a dependency the runner does not have: only the set-up installs it.
CALC = '"""Arithmetic on widget counts."""\n\nfrom gizmo import triple\n\n\ndef add(a: int, b: int) -> int:\n'
TESTS = (
    "from widgets.calc import add, triple\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\n"
    "def test_triple():\n    assert triple(2) == 6\n"
)
PYTEST_FAILED = [
    ".F                                                                       [100%]",
    "=================================== FAILURES ===================================",
    "___________________________________ test_add ___________________________________",
    "    def test_add():",
    ">       assert add(2, 3) == 5",
    "E       assert -1 == 5",
    "tests/test_calc.py:5: AssertionError",
    "=========================== short test summary info ============================",
    "FAILED tests/test_calc.py::test_add - assert -1 == 5",
    "1 failed, 1 passed in 0.03s",
]
VERIFY = "python -m pytest -q -p no:cacheprovider"
AGENT_FIX = (
    "import subprocess\n"
    "found = subprocess.run(['python', '-c', 'import gizmo'], capture_output=True).returncode == 0\n"
    "report(frame=frame, gizmo=found)\n"
    "calc = pathlib.Path('widgets/calc.py')\n"
    "calc.write_text(calc.read_text().replace('a - b', 'a + b'))\n"
    "print('add() subtracted; it adds now.')\n"
)


def write_setup(directory: Path) -> str:
    """A set-up script (outside the checkout) that makes a virtual environment in the checkout's `.venv`,
    installs `gizmo` into it and puts its `bin` on `PATH` through `$HEALER_PATH`: what `python -m venv .venv
    && .venv/bin/pip install -e .` and `echo "$PWD/.venv/bin" >> "$HEALER_PATH"` do, without a network."""
    directory.mkdir(parents=True, exist_ok=True)
    script = directory / "setup_env.py"
    # pytest for the tests the set-up prepares: this interpreter's packages, wherever they are installed
    outer = "\n".join(p for p in sys.path if p.endswith("-packages"))
    script.write_text(
        "import os, pathlib, subprocess, sys, venv\n"
        "venv.EnvBuilder(with_pip=False, symlinks=True).create('.venv')\n"
        "query = 'import sysconfig; print(sysconfig.get_paths()[\"purelib\"])'\n"
        "site = subprocess.run(['.venv/bin/python', '-c', query], capture_output=True, text=True)\n"
        "site = site.stdout.strip()\n"
        f"pathlib.Path(site, 'outer.pth').write_text({outer!r} + '\\n')\n"
        "pathlib.Path(site, 'gizmo.py').write_text('def triple(x):\\n    return 3 * x\\n')\n"
        "with open(os.environ['HEALER_PATH'], 'a') as path:\n"
        "    path.write(str(pathlib.Path('.venv/bin').resolve()) + '\\n')\n"
        "print('installed gizmo into .venv')\n",
        encoding="utf-8",
    )
    return f"'{sys.executable}' '{script}'"


def gizmo_pull(box: Sandbox) -> tuple[Pull, Run]:
    files = {"widgets/calc.py": CALC + "    return a - b\n", "tests/test_calc.py": TESTS}
    sha = box.commit(BRANCH, files, "Use gizmo")
    pull = box.open_pull(BRANCH, sha, title="Use gizmo")
    log = job_log("test (3.12)", "python -m pytest -q", PYTEST_FAILED)
    return pull, box.add_run(pull, [("test (3.12)", "failure", log)])


def test_a_dependency_only_the_set_up_installs_gives_a_verified_ready_fix_pull_request(
    box: Sandbox, tmp_path: Path
) -> None:
    pull, run = gizmo_pull(box)
    agent = write_agent(tmp_path / "agent", AGENT_FIX)
    inputs = {
        "agent-command": agent,
        "setup-command": write_setup(tmp_path / "setup"),
        "verify-command": VERIFY,
    }

    result = heal(box, run, inputs=inputs)

    [report] = agent_reports(tmp_path / "agent")
    assert report["gizmo"], "the agent ran without what the set-up installed"
    frame = str(report["frame"])
    # the frame names the command that will judge the change, and says the set-up passed
    assert "## How your change is judged" in frame and "python -m pytest -q -p no:cacheprovider" in frame
    assert "It passed; its dependencies and tools are installed and on `PATH`" in frame
    [fix] = box.standin.created_pulls(box.repo)
    assert not fix.draft, fix.body
    body = fix.body or ""
    assert "python -m pytest -q -p no:cacheprovider` on the changed tree after the set-up: it passed" in body
    assert "(attempt 1/3)" in fix.title
    # the change is the fix and nothing the set-up made: no .venv in the fix PR
    tree = box.show(fix.head_sha, "widgets/calc.py")
    assert "return a + b" in tree
    files = _files_of(box, fix.head_sha)
    assert files == ["widgets/calc.py"], files
    assert "`widgets/calc.py`" in body and "`.venv`" not in body
    assert result.outputs["decision"] == "healed"


def test_without_the_set_up_the_same_fix_is_a_draft_that_shows_why(box: Sandbox, tmp_path: Path) -> None:
    pull, run = gizmo_pull(box)
    agent = write_agent(tmp_path / "agent", AGENT_FIX)

    heal(box, run, inputs={"agent-command": agent, "verify-command": VERIFY})

    [fix] = box.standin.created_pulls(box.repo)
    assert fix.draft
    assert "ModuleNotFoundError: No module named 'gizmo'" in (fix.body or "")


def test_a_failed_set_up_is_named_in_the_frame_the_comment_and_the_summary(
    box: Sandbox, tmp_path: Path
) -> None:
    pull, run = gizmo_pull(box)
    agent = write_agent(tmp_path / "agent", AGENT_FIX)
    setup = "echo 'resolver: no version of gizmo matches >=9'; exit 3"

    result = heal(box, run, inputs={"agent-command": agent, "setup-command": setup})

    [report] = agent_reports(tmp_path / "agent")
    frame = str(report["frame"])
    assert "failed (exit code 3)" in frame and "no version of gizmo matches" in frame
    [record] = record_bodies(box, pull.number)  # the fix's body: a heal alone writes no comment
    assert "`echo 'resolver: no version of gizmo matches >=9'; exit 3`" in record and "exit code 3" in record
    assert "failed (exit code 3)" in result.summary
    assert "resolver: no version of gizmo matches >=9" in result.summary.split("the end of its output")[1]


def _files_of(box: Sandbox, sha: str) -> list[str]:
    out = git(box.origin, "diff", "--name-only", f"{sha}^", sha)
    return out.split()


def test_a_set_up_that_rewrites_gits_configuration_is_refused_before_git_runs_again(
    box: Sandbox, tmp_path: Path
) -> None:
    pull, run = gizmo_pull(box)
    agent = write_agent(tmp_path / "agent", AGENT_FIX)
    config_before = (box.workspace / ".git" / "config").read_text()
    setup = (
        "git config filter.evil.clean 'touch /tmp/ci-healer-pwned' && echo '* filter=evil' > .gitattributes"
    )

    result = heal(box, run, inputs={"agent-command": agent, "setup-command": setup})

    assert agent_reports(tmp_path / "agent") == []  # nothing ran after the set-up
    assert box.standin.created_pulls(box.repo) == []
    [comment] = box.standin.comments(box.repo, pull.number)
    assert "The set-up command changed git's configuration (`config`)" in comment.body
    assert (box.workspace / ".git" / "config").read_text() == config_before
    assert result.outputs["decision"] != "healed"
