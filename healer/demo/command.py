"""``healer demo``: heal a failing lint job on a pull request, offline, and show each stage.

Everything runs on this machine: a GitHub stand-in on 127.0.0.1, a temporary bare git repository as
``origin``, the workflow's checkout, and a sample agent (:mod:`healer.demo.agent`) in place of an LLM.
``healer run`` runs as a child process exactly as the action runs it, so what the demo prints is what a
workflow log would show.
"""

from __future__ import annotations

import argparse
import secrets
import shlex
import sys
import tempfile
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from healer.demo.lint import unused_imports
from healer.demo.sample import BASE_FILES, LINT_PR_FILES, job_log
from healer.demo.sandbox import HealerRun, Sandbox, SandboxError, git
from healer.demo.standin import StandIn

BRANCH = "feature/double"
# The demo's CI lints with flake8; the bundled checker prints flake8's F401 lines, so nothing needs
# installing.
LINT_COMMAND = "flake8 ."
DEMO_FILES = {
    **BASE_FILES,
    ".github/workflows/ci.yml": BASE_FILES[".github/workflows/ci.yml"].replace("ruff check .", LINT_COMMAND),
}


def register(subparsers: Any) -> None:
    """Add ``healer demo`` to the command line."""
    parser = subparsers.add_parser(
        "demo",
        help="heal a failing lint job on a sample pull request, offline, and show each stage",
        description=__doc__.split("\n\n", 1)[0] if __doc__ else None,
    )
    parser.add_argument("--keep", action="store_true", help="keep the temporary repositories and print where")
    parser.set_defaults(func=_command)


def _command(args: argparse.Namespace, env: Mapping[str, str]) -> int:
    if args.keep:
        root = Path(tempfile.mkdtemp(prefix="ci-healer-demo-"))
        return run_demo(root, out=sys.stdout, keep=True)
    with tempfile.TemporaryDirectory(prefix="ci-healer-demo-") as tmp:
        return run_demo(Path(tmp), out=sys.stdout)


def run_demo(root: Path, *, out: Any, keep: bool = False, path: str | None = None) -> int:
    """Run the scenario under ``root`` and print it; 0 when the failure was healed into a fix pull request.

    ``path`` is the ``PATH`` of the healer's step (default: this interpreter's scripts, then ``$PATH``).
    """

    def say(text: str = "") -> None:
        print(text, file=out, flush=True)

    def stage(number: int, title: str) -> None:
        say()
        say(f"[{number}] {title}")

    token = "demo-" + secrets.token_hex(12)
    with StandIn(token=token) as standin:
        try:
            box = Sandbox.create(root / "sandbox", standin, files=DEMO_FILES)
            box.path = path
            sha = box.commit(BRANCH, LINT_PR_FILES, "Add double()")
            pull = box.open_pull(BRANCH, sha, title="Add double()")
            findings = [
                line
                for path in sorted((box.seed / "widgets").glob("*.py"))
                for line in unused_imports(
                    path.read_text(encoding="utf-8"), path.relative_to(box.seed).as_posix()
                )
            ]
            run = box.add_run(
                pull,
                [
                    ("lint", "failure", job_log("lint", LINT_COMMAND, findings)),
                    (
                        "test",
                        "success",
                        job_log("test", "python -m pytest -q", ["1 passed in 0.01s"], exit_code=0),
                    ),
                ],
            )
        except SandboxError as exc:
            say(f"healer demo: could not build the sample repository: {exc}")
            return 1

        stage(1, "The event: a CI run failed on a pull request")
        say(f"    repository      {box.repo} (a GitHub stand-in at {standin.api_url})")
        say(f"    pull request    #{pull.number} {pull.title!r}  {BRANCH} -> {box.default_branch}")
        say(f"    workflow run    {run.id}, conclusion {run.conclusion}, head {sha[:7]}")
        say("    failed job      lint:")
        for line in findings:
            say(f"                      {line}")

        python = shlex.quote(sys.executable)
        inputs = {
            "agent-command": f"{python} -m healer.demo.agent",
            "verify-command": f"{python} -m healer.demo.lint .",
        }
        stage(2, "healer run (the action's entry point, as a child process)")
        say(f"    agent-command   {inputs['agent-command']}")
        say(f"    verify-command  {inputs['verify-command']}")
        result = box.run_healer(run, inputs=inputs)
        _print_log(result, say, token)

        return _report(box, result, stage, say, token, keep)


def _print_log(result: HealerRun, say: Any, token: str) -> None:
    """The healer's own log: groups become headings; ``::add-mask::`` lines (they carry the secret) are
    dropped."""
    for line in (result.stdout + result.stderr).splitlines():
        if line.startswith("::add-mask::") or line.startswith("::endgroup::"):
            continue
        if line.startswith("::group::"):
            say(f"    ▸ {line[len('::group::') :]}")
            continue
        say("      " + line.replace(token, "***"))


def _report(box: Sandbox, result: HealerRun, stage: Any, say: Any, token: str, keep: bool) -> int:
    standin = box.standin
    stage(3, "Outcome")
    say(f"    exit code       {result.returncode}  ({result.seconds:.2f} s)")
    for name in ("decision", "category", "attempt", "fix-pull-request", "frame-path"):
        say(f"    {name:<15} {result.outputs.get(name, '')}")

    fixes = standin.created_pulls(box.repo)
    frame = Path(result.outputs.get("frame-path") or "")
    if frame.is_file():
        stage(4, "The heal frame the agent got (on stdin and in $HEALER_FRAME)")
        say(_quote(_excerpt(frame.read_text(encoding="utf-8"), 24)))
    stage(5, "The fix pull request")
    for fix in fixes:
        kind = "draft" if fix.draft else "ready for review"
        say(f"    #{fix.number} {fix.title!r} ({kind}): {fix.head_ref} -> {fix.base_ref}")
        say(_quote(_excerpt(fix.body or "", 14)))
        try:
            diff = git(box.origin, "diff", f"{fix.base_sha}..{fix.head_sha}")
        except SandboxError:
            diff = ""
        if diff:
            say("    the change:")
            say(textwrap.indent(diff.rstrip(), "      "))
    if not fixes:
        say("    none was opened")

    stage(6, "The comment on the pull request")
    comments = standin.comments(box.repo, 1)
    for comment in comments:
        say(f"    by {comment.author}:")
        say(_quote(_excerpt(comment.body, 16)))
    if not comments:
        say("    none")

    stage(7, "The requests the healer made to the GitHub stand-in")
    for request in result.requests:
        say(f"    {request.method:<6} {request.status}  {request.path}")

    everything = [result.stdout, result.stderr, result.summary, *result.outputs.values()]
    everything += [c.body for c in comments] + [f.body or "" for f in fixes]
    # `::add-mask::<token>` is how a step asks the runner to hide a secret: the one line allowed to hold it
    leaked = any(
        token in line
        for text in everything
        for line in text.splitlines()
        if not line.startswith("::add-mask::")
    )
    healed = result.returncode == 0 and result.decision == "healed" and bool(fixes)
    say()
    if leaked:
        say("The token appeared in the healer's output: that is a bug, please report it.")
    if keep:
        say(f"The repositories are kept in {box.root} (origin.git, workspace).")
    if healed and not leaked:
        say("Done: the lint failure was diagnosed, fixed by the agent, verified and delivered as a fix PR.")
        return 0
    say("The demo did not end with a fix pull request; the log above says where it stopped.")
    return 1


def _quote(text: str) -> str:
    return textwrap.indent(text, "      | ", lambda line: True)


def _excerpt(text: str, lines: int) -> str:
    kept = text.strip().splitlines()
    more = len(kept) - lines
    return "\n".join(kept[:lines] + ([f"… ({more} more lines)"] if more > 0 else [])) or "(empty)"
