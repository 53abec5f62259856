"""The changed-files stage: a failed install the pull request did not change goes to upstream, at the cost of
one request, and only when a check is such an install; a listing it cannot trust changes nothing."""

from __future__ import annotations

from joblogs import diagnose_log, job_log

from healer.github import GitHubError
from healer.github.changes import ChangedFiles
from healer.model import Action, Owner, PullRequest
from healer.run.changes import check_changes
from healer.run.planning import Diagnosed

SHA = "a" * 40
PULL = PullRequest(7, "open", "t", "alice", SHA, "feature", "octo/app", "main", "octo/app")
NPM_PEERS = (
    "npm error code ERESOLVE\nnpm error ERESOLVE could not resolve\nnpm error Could not resolve dependency:\n"
    'npm error peer react@"^19.0.0" from react-dom@19.0.0'
)
TEST_FAILURE = (
    "=== short test summary info ===\nFAILED tests/test_a.py::test_add - assert 3 == 4\n"
    "=== 1 failed, 2 passed in 0.05s ==="
)


class FakeGitHub:
    """The stage's one call, over a fixed answer; counts the requests."""

    def __init__(self, answer: ChangedFiles | GitHubError) -> None:
        self.answer = answer
        self.requests = 0

    def changed_files(self, number: int) -> ChangedFiles:
        assert number == PULL.number
        self.requests += 1
        if isinstance(self.answer, GitHubError):
            raise self.answer
        return self.answer


class Context:
    """What the stage uses of a run's context: the client and the log."""

    def __init__(self, gh: FakeGitHub) -> None:
        self.gh = gh
        self.said: list[str] = []

    def say(self, line: str) -> None:
        self.said.append(line)


def diagnosed(**checks: tuple[str, str]) -> Diagnosed:
    diagnoses = {name: diagnose_log(job_log(*run), job=name) for name, run in checks.items()}
    return Diagnosed(diagnoses, (), {name: n for n, name in enumerate(checks)}, {})


def test_an_install_the_pull_request_did_not_change_is_escalated_as_upstreams() -> None:
    ctx = Context(FakeGitHub(ChangedFiles(("src/App.tsx",), complete=True)))
    before = diagnosed(install=("npm ci", NPM_PEERS), test=("pytest", TEST_FAILURE))

    after = check_changes(ctx, PULL, before)  # type: ignore[arg-type]

    assert (after.diagnoses["install"].owner, after.diagnoses["install"].action) == (
        Owner.UPSTREAM,
        Action.ESCALATE,
    )
    assert after.diagnoses["test"] is before.diagnoses["test"]  # a test's failure is not looked at
    assert ctx.gh.requests == 1
    assert ctx.said == [
        "'install': the pull request changed none of the files this failure depends on (1 changed): "
        "upstream's, escalated rather than healed"
    ]


def test_no_request_when_no_check_is_a_failed_install() -> None:
    ctx = Context(FakeGitHub(ChangedFiles((), complete=True)))
    before = diagnosed(test=("pytest", TEST_FAILURE))
    assert check_changes(ctx, PULL, before) is before  # type: ignore[arg-type]
    assert ctx.gh.requests == 0 and ctx.said == []


def test_an_install_whose_manifest_the_pull_request_changed_stays_the_codes() -> None:
    ctx = Context(FakeGitHub(ChangedFiles(("src/App.tsx", "package.json"), complete=True)))
    before = diagnosed(install=("npm ci", NPM_PEERS))
    after = check_changes(ctx, PULL, before)  # type: ignore[arg-type]
    assert after.diagnoses["install"] is before.diagnoses["install"] and ctx.said == []


def test_a_listing_it_cannot_read_or_trust_changes_nothing_and_says_so() -> None:
    refused = Context(FakeGitHub(GitHubError("could not list the files of pull request #7: 403 Forbidden")))
    before = diagnosed(install=("npm ci", NPM_PEERS))
    assert check_changes(refused, PULL, before) is before  # type: ignore[arg-type]
    assert refused.said[0].startswith("could not list the files of pull request #7 (")
    assert refused.said[0].endswith("`install` handled as usual")

    cut = Context(FakeGitHub(ChangedFiles(tuple(f"src/m{n}.ts" for n in range(100)), complete=False)))
    assert check_changes(cut, PULL, before) is before  # type: ignore[arg-type]
    assert "more files than one page lists" in cut.said[0]


def test_an_audit_the_pull_request_fed_a_lock_file_is_its_own_to_heal() -> None:
    audit = (
        "npm audit --audit-level=high",
        "# npm audit report\n\nsemver  <7.5.2\n\n1 high severity vulnerability",
    )
    ctx = Context(FakeGitHub(ChangedFiles(("src/App.tsx", "package-lock.json"), complete=True)))
    before = diagnosed(audit=audit)
    assert before.diagnoses["audit"].owner is Owner.UPSTREAM  # from the log: a new advisory

    after = check_changes(ctx, PULL, before)  # type: ignore[arg-type]

    assert (after.diagnoses["audit"].owner, after.diagnoses["audit"].action) == (Owner.CODE, Action.AGENT)
    assert ctx.said == ["'audit': the pull request changed a file this step reads: its own failure, healed"]
    # with the lock file unchanged the base branch audits the same: still upstream's, and nothing said
    ctx = Context(FakeGitHub(ChangedFiles(("src/App.tsx",), complete=True)))
    unchanged = check_changes(ctx, PULL, before)  # type: ignore[arg-type]
    assert unchanged.diagnoses["audit"] is before.diagnoses["audit"]
    assert ctx.said == [] and ctx.gh.requests == 1
