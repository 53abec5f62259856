"""How long the texts a person reads are: the escalation of a test failure after three attempts, and of a
platform failure (a DNS outage) after a re-run, as the pull request's comment shows them. Prints, for each,
the visible lines (blank lines and hidden markers left out), those outside a folded ``<details>``, and the
characters. Run: ``python benchmarks/bench_texts.py``."""

from __future__ import annotations

import re

from healer.model import Action, Category, CheckPlan, Diagnosis, HealMode, PastAttempt, Verdict
from healer.text.frames import Frames, render_comment

SHA = "0123456789abcdef0123456789abcdef01234567"
RUN = "https://github.com/octo/widgets/actions/runs/123456789"


def _plan(check: str, category: Category, lines: tuple[str, ...], command: str, history: tuple) -> CheckPlan:
    diagnosis = Diagnosis(
        category=category,
        confidence=0.9,
        rule="python.pytest" if category is Category.TEST else "network.dns",
        action=Action.AGENT if category is Category.TEST else Action.RERUN,
        excerpt=lines,
        step="Run tests",
        command=command,
        exit_code=1,
        job=check,
        decisive=lines[-1:],
    )
    return CheckPlan(check, Verdict.ESCALATE, diagnosis, 0, 3, HealMode.AGENT, history=history)


def cases() -> dict[str, CheckPlan]:
    tried = tuple(
        PastAttempt("attempt", SHA[:-1] + str(n), n, "test", "agent", 10 + n, "verify-failed")
        for n in (1, 2, 3)
    )
    test = _plan(
        "test (3.12)",
        Category.TEST,
        tuple(f"tests/test_calc.py::test_{n} PASSED" for n in range(12))
        + ("FAILED tests/test_calc.py::test_double - AssertionError: assert 6 == 4",),
        "python -m pytest -q",
        tried,
    )
    dns = _plan(
        "build",
        Category.TRANSIENT,
        (
            "Cloning into 'vendor'...",
            "fatal: unable to access 'https://git.example.com/x.git/': "
            "Could not resolve host: git.example.com",
        ),
        "git submodule update --init",
        (PastAttempt("rerun", SHA, 0, "transient"),),
    )
    return {"test failure, 3 attempts": test, "platform failure, after a re-run": dns}


def measure(text: str) -> tuple[int, int, int, int]:
    shown = [ln for ln in text.split("\n") if ln.strip() and not re.fullmatch(r"\s*<!--.*-->\s*", ln)]
    folded = re.sub(r"<details>.*?</details>", "", text, flags=re.DOTALL)
    unfolded = [ln for ln in folded.split("\n") if ln.strip() and not re.fullmatch(r"\s*<!--.*-->\s*", ln)]
    return len(shown), len(unfolded), len(text), len("\n".join(unfolded))


def main() -> None:
    frames = Frames()
    print("| escalation | lines | lines not folded | characters | characters not folded |")
    print("| --- | ---: | ---: | ---: | ---: |")
    for name, plan in cases().items():
        text = render_comment(
            frames, state="done", head_sha=SHA, run_url=RUN, markers="", escalations=[plan],
            mention="@octo-org/maintainers", opt_out_label="ci-healer:off", workflow="CI",
        )  # fmt: skip
        lines, unfolded, chars, shown = measure(text)
        print(f"| {name} | {lines} | {unfolded} | {chars:,} | {shown:,} |")


if __name__ == "__main__":
    main()
