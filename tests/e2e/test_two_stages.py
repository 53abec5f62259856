"""End to end, a heal in two jobs as the reusable workflow runs it: ``stage: heal`` with a token that may only
read (the stand-in answers any write with GitHub's 403), then ``stage: deliver`` with the write token and the
heal bundle the first job wrote. A same-repository pull request heals in two jobs exactly as in one; the
deliver job refuses a bundle that is not the one its own plan asks for."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pytest
from harness import lint_log, lint_pull
from twojobs import READ_TOKEN, attempts, deliver_job, heal_job

from healer.change.bundle import BUNDLE_NAME, BundleCheck, read_bundle, write_bundle
from healer.demo.notifications import first_line
from healer.demo.sample import LINT_PR_FILES
from healer.demo.sandbox import Sandbox, git
from healer.demo.state import Run


def test_a_same_repository_lint_failure_heals_in_two_jobs_as_in_one(
    box: Sandbox, read_token: str, tmp_path: Path
) -> None:
    pull, run = lint_pull(box)

    healed = heal_job(box, run)

    # the heal job read and wrote nothing: every request a GET, no comment, no branch, no pull request
    assert {r.method for r in healed.requests} == {"GET"}
    assert box.standin.comments(box.repo, pull.number) == []
    assert not box.standin.created_pulls(box.repo)
    assert healed.outputs["decision"] == "healed"
    bundle = Path(healed.outputs["bundle-path"])
    assert bundle.name == BUNDLE_NAME and bundle.is_file()
    written = json.loads(bundle.read_text(encoding="utf-8"))
    assert written["pr"] == pull.number and written["head_sha"] == run.head_sha
    assert "-import os" in written["diff"]
    # the artifact arrives in a folder of the deliver job
    artifact = tmp_path / "artifact"
    artifact.mkdir()
    (artifact / BUNDLE_NAME).write_bytes(bundle.read_bytes())

    delivered = deliver_job(box, run, str(artifact))

    assert delivered.outputs["decision"] == "healed", delivered.stdout[-3000:]
    [fix] = box.standin.created_pulls(box.repo)
    assert fix.base_ref == pull.head_ref and fix.head_ref.startswith("ci-healer/")
    changed = git(box.origin, "diff", f"{fix.head_sha}^", fix.head_sha)
    assert "-import os" in changed
    [attempt] = attempts(box, pull.number)
    # the heal job's verification is its word: the deliver job records what it knows itself, and the fix
    # waits as a draft for CI; the heal job's report is quoted, fenced, as its word
    assert attempt.result == "unverified" and attempt.fix_pr == fix.number  # type: ignore[attr-defined]
    assert fix.draft
    body = fix.body or ""
    assert "ruff check" in body and "The heal job's word" in body
    assert first_line(body).startswith(":grey_question:")  # the records at its top are hidden
    assert "What the heal job reports (its word, not checked here)" in body
    # the deliver job ran no command of the pull request: no fix rule, no verification of its own
    assert "fix command" not in delivered.stdout

    # the same pull request, healed in one job, gives the same change
    box.standin.reset()
    other = Sandbox.create(tmp_path / "one-job", box.standin, repo=box.repo, files=_base_files())
    pull_one, run_one = lint_pull(other)
    one = other.run_healer(run_one, timeout=120)
    other.standin.idle()
    [fix_one] = other.standin.created_pulls(other.repo)
    assert _body(git(other.origin, "diff", f"{fix_one.head_sha}^", fix_one.head_sha)) == _body(changed)
    assert one.outputs["decision"] == delivered.outputs["decision"] == "healed"


def _base_files() -> dict[str, str]:
    from healer.demo.sample import BASE_FILES

    return dict(BASE_FILES)


def _body(diff: str) -> list[str]:
    """A diff's changed lines (blob ids differ between two repositories of the same content: not these)."""
    return [line for line in diff.splitlines() if line[:1] in "+-" and not line.startswith(("+++", "---"))]


@pytest.mark.parametrize(
    ("forge", "says"),
    [
        # a forger recomputes the digests (they catch a truncated or edited file, they sign nothing)
        pytest.param(lambda b: replace(b, pr=b.pr + 1), "pull request", id="another-pull-request"),
        pytest.param(lambda b: replace(b, run_id=b.run_id + 7), "run", id="another-run"),
        pytest.param(lambda b: replace(b, head_sha="0" * 40), "head", id="an-older-head"),
        pytest.param(
            lambda b: replace(b, checks=(*b.checks, BundleCheck("test (3.12)", 1))),
            "check",
            id="another-check",
        ),
        pytest.param(
            lambda b: replace(b, diff=b.diff.replace("widgets/calc.py", "../outside.py")),
            "..",
            id="a-path-outside-the-tree",
        ),
    ],
)
def test_the_deliver_job_refuses_a_bundle_its_plan_did_not_ask_for(
    box: Sandbox, read_token: str, tmp_path: Path, forge: object, says: str
) -> None:
    pull, run = lint_pull(box)
    healed = heal_job(box, run)
    forged = forge(read_bundle(Path(healed.outputs["bundle-path"])))  # type: ignore[operator]
    artifact = tmp_path / "artifact"
    artifact.mkdir()
    write_bundle(artifact / BUNDLE_NAME, forged)

    delivered = deliver_job(box, run, str(artifact))

    assert not box.standin.created_pulls(box.repo)
    assert delivered.outputs["decision"] == "skipped"
    [attempt] = attempts(box, pull.number)
    assert attempt.result == "refused"  # type: ignore[attr-defined]
    [comment] = [c for c in box.standin.comments(box.repo, pull.number) if "delivered nothing" in c.body]
    assert "heal bundle" in comment.body and says in comment.body.lower(), comment.body[-700:]


def test_a_bundle_edited_after_it_was_written_is_refused(
    box: Sandbox, read_token: str, tmp_path: Path
) -> None:
    pull, run = lint_pull(box)
    healed = heal_job(box, run)
    written = json.loads(Path(healed.outputs["bundle-path"]).read_text(encoding="utf-8"))
    written["diff"] = written["diff"].replace("widgets/calc.py", ".github/workflows/ci.yml")
    artifact = tmp_path / "artifact"
    artifact.mkdir()
    (artifact / BUNDLE_NAME).write_text(json.dumps(written), encoding="utf-8")

    delivered = deliver_job(box, run, str(artifact))

    assert not box.standin.created_pulls(box.repo)
    assert "the heal bundle was refused" in delivered.stdout and "digest" in delivered.stdout


# -- fork pull requests -------------------------------------------------------------------------------------


def _fork_lint_pull(box: Sandbox, sentinel: Path) -> tuple[object, Run, str]:
    """A fork's pull request whose lint failed on a real ruff finding; its ``conftest.py`` writes ``sentinel``
    if anything imports it (the fork's code ran)."""
    box.add_fork("eve/widgets")
    payload = f"import pathlib\npathlib.Path({str(sentinel)!r}).write_text('ran')\n"
    files = {**LINT_PR_FILES, "conftest.py": payload}
    sha = box.commit("patch-1", files, "Add double()", remote="eve/widgets", base="origin/main")
    pull = box.open_pull("patch-1", sha, head_repo="eve/widgets", author="eve")
    run = box.add_run(pull, [("lint", "failure", lint_log(box))])
    return pull, run, sha


def _apply_review(text: str, comments: tuple[object, ...]) -> str:
    """``text`` with a review's suggestions applied as *Commit suggestion* does."""
    lines = text.split("\n")
    for comment in sorted(comments, key=lambda c: c.line, reverse=True):  # type: ignore[attr-defined]
        body = comment.body.split("\n")  # type: ignore[attr-defined]
        new = body[1 : body.index(next(b for b in body[1:] if b.startswith("```")))]
        start = comment.start_line or comment.line  # type: ignore[attr-defined]
        lines[start - 1 : comment.line] = new  # type: ignore[attr-defined]
    return "\n".join(lines)


def test_a_fork_lint_failure_gets_a_review_of_suggested_changes_that_applies_to_its_head(
    box: Sandbox, read_token: str, tmp_path: Path
) -> None:
    sentinel = tmp_path / "fork-code-ran"
    pull, run, sha = _fork_lint_pull(box, sentinel)
    inputs = {"fork-policy": "rules", "verify-command": f'{sys.executable} -c "import conftest"'}

    healed = heal_job(box, run, inputs)

    # the heal job ran the fork's code (its verification imported the fork's conftest.py) and wrote nothing
    assert sentinel.read_text() == "ran"
    assert {r.method for r in healed.requests} == {"GET"}
    assert healed.outputs["decision"] == "healed", healed.stdout[-3000:]
    artifact = tmp_path / "artifact"
    artifact.mkdir()
    (artifact / BUNDLE_NAME).write_bytes(Path(healed.outputs["bundle-path"]).read_bytes())
    bundle_diff = read_bundle(artifact).diff
    refs = box.origin_refs()

    # the deliver job holds the workflow's GITHUB_TOKEN, as the reusable workflow's does
    delivered = deliver_job(box, run, str(artifact), {**inputs, "token-is-workflow-token": "true"})

    # nothing was pushed anywhere: no fix branch, no fix pull request, the fork untouched, and no CI of the
    # fork's code started in this repository (a fork's change is never dispatched)
    assert box.origin_refs() == refs
    assert "actions/create-workflow-dispatch" not in [r.operation for r in delivered.requests]
    assert not box.standin.created_pulls(box.repo)
    reviews = [r for r in box.standin.reviews if r.number == pull.number]  # type: ignore[attr-defined]
    assert len(reviews) == 1, delivered.stdout[-4000:]
    [review] = reviews
    assert review.event == "COMMENT" and review.commit_id == sha and review.comments
    on_calc = tuple(c for c in review.comments if c.path == "widgets/calc.py")
    fixed = _apply_review(box.show(sha, "widgets/calc.py"), on_calc)
    assert "import os" not in fixed and "def double" in fixed
    # exactly the heal job's change: what it made is what the suggestions make
    assert fixed == _patched(box.show(sha, "widgets/calc.py"), bundle_diff, tmp_path / "patched")
    [attempt] = attempts(box, pull.number)
    assert attempt.result == "unverified"  # type: ignore[attr-defined]
    [comment] = [c for c in box.standin.comments(box.repo, pull.number) if "suggested change" in c.body]
    assert "a fork's, which the healer cannot push to" in comment.body and "git apply" in comment.body
    assert "-import os" in comment.body
    assert delivered.outputs["decision"] == "healed"


def _patched(text: str, diff: str, where: Path) -> str:
    """``widgets/calc.py`` holding ``text``, with the part of ``diff`` for it applied by ``git apply``."""
    (where / "widgets").mkdir(parents=True)
    (where / "widgets" / "calc.py").write_text(text, encoding="utf-8")
    (where / "fix.patch").write_text(diff, encoding="utf-8")
    subprocess.run(
        ["git", "apply", "--include=widgets/calc.py", "fix.patch"], cwd=where, check=True, capture_output=True
    )
    return (where / "widgets" / "calc.py").read_text(encoding="utf-8")


def test_in_one_job_a_fork_is_diagnosed_whatever_the_fork_policy(box: Sandbox, tmp_path: Path) -> None:
    sentinel = tmp_path / "fork-code-ran"
    pull, run, sha = _fork_lint_pull(box, sentinel)

    result = box.run_healer(run, inputs={"fork-policy": "heal"}, timeout=120)
    box.standin.idle()

    assert result.returncode == 0, result.stdout[-3000:]
    assert not sentinel.exists() and not box.has_object(box.workspace, sha)
    assert not box.standin.created_pulls(box.repo) and not box.standin.reviews
    [comment] = box.standin.comments(box.repo, pull.number)
    assert "F401" in comment.body or "imported but unused" in comment.body
    assert "two-stage" in result.summary or "two-stage" in comment.body


def test_a_forks_code_is_not_run_without_isolation_while_the_heal_job_holds_a_model_key(
    box: Sandbox, read_token: str, tmp_path: Path
) -> None:
    sentinel = tmp_path / "fork-code-ran"
    pull, run, _ = _fork_lint_pull(box, sentinel)
    inputs = {"fork-policy": "heal", "verify-command": f'{sys.executable} -c "import conftest"'}

    healed = box.run_healer(
        run,
        inputs={**inputs, "stage": "heal"},
        secrets={
            "HEALER_GITHUB_TOKEN": READ_TOKEN,
            "ANTHROPIC_API_KEY": "sk-ant-a-key-the-fork-must-not-read",
        },
        tag="heal-none",
    )
    box.standin.idle()

    assert healed.returncode == 0, healed.stdout[-3000:]
    assert not sentinel.exists(), "the fork's code ran as the healer's user, beside the model key"
    assert "is not run under isolation: none while this job holds a model key" in healed.stdout
    assert healed.outputs["decision"] == "skipped"
    bundle = read_bundle(Path(healed.outputs["bundle-path"]))
    assert bundle.diff == "" and "isolation: user" in bundle.record["why_not"]


@pytest.mark.parametrize("allowed", [True, False], ids=["edits-allowed", "edits-not-allowed"])
def test_with_a_persons_token_and_delivery_push_a_forks_branch_gets_the_commit_where_its_author_allows_it(
    box: Sandbox, read_token: str, tmp_path: Path, allowed: bool
) -> None:
    sentinel = tmp_path / "fork-code-ran"
    pull, run, sha = _fork_lint_pull(box, sentinel)
    pull.maintainer_can_modify = allowed  # type: ignore[attr-defined]
    inputs = {"fork-policy": "rules", "delivery": "push"}
    healed = heal_job(box, run, inputs)
    artifact = tmp_path / "artifact"
    artifact.mkdir()
    (artifact / BUNDLE_NAME).write_bytes(Path(healed.outputs["bundle-path"]).read_bytes())

    # a person's token (not the workflow's): GitHub lets it push to a user-owned fork's branch only where the
    # author ticked "Allow edits from maintainers"
    delivered = deliver_job(box, run, str(artifact), {**inputs, "token-is-workflow-token": "false"})

    fork = box.forks["eve/widgets"]
    tip = git(fork, "rev-parse", "refs/heads/patch-1").strip()
    reviews = [r for r in box.standin.reviews if r.number == pull.number]  # type: ignore[attr-defined]
    if allowed:
        assert tip != sha and git(fork, "rev-parse", f"{tip}^").strip() == sha
        assert "import os" not in git(fork, "show", f"{tip}:widgets/calc.py")
        assert not reviews
        assert "Pushed a commit onto this branch" in "\n".join(
            c.body for c in box.standin.comments(box.repo, pull.number)
        )
    else:
        assert tip == sha, "nothing is pushed where the author does not allow it"
        assert len(reviews) == 1
    assert not box.standin.created_pulls(box.repo)
    assert delivered.outputs["decision"] == "healed"


def test_when_github_refuses_the_review_a_forks_change_still_arrives_as_the_patch(
    box: Sandbox, read_token: str, tmp_path: Path
) -> None:
    pull, run, _ = _fork_lint_pull(box, tmp_path / "fork-code-ran")
    inputs = {"fork-policy": "rules"}
    healed = heal_job(box, run, inputs)
    artifact = tmp_path / "artifact"
    artifact.mkdir()
    (artifact / BUNDLE_NAME).write_bytes(Path(healed.outputs["bundle-path"]).read_bytes())
    # GitHub's answer to a review comment on a line it does not show (the PR moved, another merge base)
    box.standin.fail(
        "pulls/create-review", 422, message="Pull request review thread line must be part of the diff"
    )

    delivered = deliver_job(box, run, str(artifact), inputs)

    assert not box.standin.reviews and not box.standin.created_pulls(box.repo)
    assert "GitHub refused the review of suggested changes" in delivered.stdout
    [comment] = [
        c for c in box.standin.comments(box.repo, pull.number) if "apply it with `git apply`" in c.body
    ]
    assert "-import os" in comment.body and "suggested change" not in comment.body
    assert delivered.outputs["decision"] == "healed"
