"""End to end: a failure the pull request did not change (an install, a checker's findings) is upstream's.

A pull request changes only the README; its `build` job fails in `npm ci` on peer dependencies no release
can satisfy. Its base branch installs the same files from the same registry, so the healer lists the pull
request's files (one request), runs no agent and escalates. The same failure on a pull request that changed
`package.json` goes to the agent as before. A flake8 finding in a file the pull request did not touch is
escalated the same way.
"""

from __future__ import annotations

from pathlib import Path

from harness import BRANCH, agent_reports, heal, write_agent

from healer.demo.sample import job_log
from healer.demo.sandbox import Sandbox

NPM_PEERS = [
    "npm error code ERESOLVE",
    "npm error ERESOLVE could not resolve",
    "npm error",
    "npm error While resolving: widgets-web@1.0.0",
    "npm error Found: react@18.3.1",
    "npm error Could not resolve dependency:",
    'npm error peer react@"^19.0.0" from react-dom@19.0.0',
]
AGENT = "report(ran=True)\npathlib.Path('NOTE.md').write_text('tried\\n')\n"


def failed_install(box: Sandbox, files: dict[str, str]):  # noqa: ANN201
    sha = box.commit(BRANCH, files, "Change")
    pull = box.open_pull(BRANCH, sha, title="Change")
    run = box.add_run(pull, [("build", "failure", job_log("build", "npm ci", NPM_PEERS))])
    return pull, run


def test_an_install_the_pull_request_did_not_change_is_escalated_without_an_agent(
    box: Sandbox, tmp_path: Path
) -> None:
    pull, run = failed_install(box, {"README.md": "# widgets\n\nCounting widgets.\n"})
    agent = write_agent(tmp_path / "agent", AGENT)

    result = heal(box, run, inputs={"agent-command": agent})

    assert result.outputs["decision"] == "escalated"
    assert agent_reports(tmp_path / "agent") == []
    assert box.standin.created_pulls(box.repo) == []
    listings = [r for r in result.requests if r.operation == "pulls/list-files"]
    assert [dict(r.query) for r in listings] == [{"per_page": "100", "page": "1"}]
    assert "none of the files this failure depends on" in result.stdout
    [comment] = box.standin.comments(box.repo, pull.number)
    tried = (
        "**Tried:** nothing: A dependency or the base branch is broken, not this pull request's code: "
        "the pull request changed none of the files this failure depends on (dependency-install step)."
    )
    assert tried in comment.body


def test_the_same_failure_after_a_manifest_change_goes_to_the_agent(box: Sandbox, tmp_path: Path) -> None:
    _, run = failed_install(box, {"package.json": '{"name": "widgets-web", "version": "1.0.0"}\n'})
    agent = write_agent(tmp_path / "agent", AGENT)

    result = heal(box, run, inputs={"agent-command": agent})

    assert [r.operation for r in result.requests].count("pulls/list-files") == 1
    assert agent_reports(tmp_path / "agent") == [{"ran": True}]
    assert result.outputs["decision"] != "escalated"


def test_a_checkers_findings_only_in_untouched_files_are_escalated_without_a_fix(
    box: Sandbox, tmp_path: Path
) -> None:
    # a new flake8-bugbear check fires on a file the pull request did not touch: main has the same finding
    sha = box.commit(BRANCH, {"README.md": "# widgets\n\nCounting widgets.\n"}, "Docs")
    pull = box.open_pull(BRANCH, sha, title="Docs")
    finding = "./widgets/calc.py:3:5: B911 `itertools.batched()` without an explicit `strict=` parameter"
    run = box.add_run(pull, [("lint", "failure", job_log("lint", "flake8 widgets", [finding]))])
    agent = write_agent(tmp_path / "agent", AGENT)

    result = heal(box, run, inputs={"agent-command": agent})

    assert result.outputs["decision"] == "escalated"
    assert agent_reports(tmp_path / "agent") == [] and box.standin.created_pulls(box.repo) == []
    assert [r.operation for r in result.requests].count("pulls/list-files") == 1
    [comment] = box.standin.comments(box.repo, pull.number)
    assert "the pull request changed none of the files this failure depends on (lint step)." in comment.body


def test_a_pull_request_longer_than_one_page_of_files_is_healed_as_before(
    box: Sandbox, tmp_path: Path
) -> None:
    # the unkind form: GitHub pages the listing and the healer reads one page of 100; with 101 files a
    # manifest may be on the page it did not read, so nothing is concluded from it
    docs = {f"docs/page-{n:03}.md": f"# Page {n}\n" for n in range(101)}
    _, run = failed_install(box, docs)
    agent = write_agent(tmp_path / "agent", AGENT)

    result = heal(box, run, inputs={"agent-command": agent})

    listings = [r for r in result.requests if r.operation == "pulls/list-files"]
    assert [dict(r.query) for r in listings] == [{"per_page": "100", "page": "1"}]
    assert "changes more files than one page lists" in result.stdout
    assert agent_reports(tmp_path / "agent") == [{"ran": True}]
