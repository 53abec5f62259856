"""Set-up and verification plans: which commands run for which checks, and what set-up may put on PATH."""

from __future__ import annotations

from pathlib import Path

from healer.config import Config, load_config_file
from healer.heal.prepare import _path_entries, setup_commands, with_path
from healer.heal.verify import plan_verification
from healer.model import Action, Category, CheckPlan, Diagnosis, Verdict

FILE = """
setup-command: pip install -e .
verify-command: python -m pytest -q
checks:
  "docs": {setup-command: "npm ci", verify-command: "npm run docs"}
  "lint": {setup-command: ""}
"""


def plans(*names: str, command: str | None = None) -> list[CheckPlan]:
    diagnosis = Diagnosis(Category.LINT, 0.9, "r", Action.FIX, (), command=command)
    return [CheckPlan(name, Verdict.HEAL, diagnosis, attempt=1, max_attempts=3) for name in names]


def config() -> Config:
    return load_config_file(FILE, Config(), source=".github/ci-healer.yml")


def test_each_check_gets_its_own_set_up_else_the_shared_one_each_command_once() -> None:
    assert setup_commands(config(), plans("test", "docs", "unit")) == ("pip install -e .", "npm ci")
    assert setup_commands(config(), plans("lint")) == ()  # turned off for this check
    assert setup_commands(Config(), plans("test")) == ()


def test_verification_names_each_checks_command_and_the_checks_it_cannot_rerun(tmp_path: Path) -> None:
    plan = plan_verification(config(), plans("test", "docs", "unit"), path=str(tmp_path))
    assert plan.shown == ("python -m pytest -q", "npm run docs") and plan.complete
    bare = plan_verification(Config(), plans("test", command="python -m pytest"), path=str(tmp_path))
    assert bare.commands == () and bare.unchecked == ("test",) and not bare.complete


def test_set_up_puts_absolute_directories_on_path_the_last_one_first(tmp_path: Path) -> None:
    listing = tmp_path / "setup-path"
    listing.write_text("/opt/a/bin\nrelative/bin\n\n/opt/b/bin\n/opt/a:/evil\n")
    assert _path_entries(listing) == ("/opt/b/bin", "/opt/a/bin")
    assert with_path({"PATH": "/usr/bin"}, ("/opt/b/bin",))["PATH"] == "/opt/b/bin:/usr/bin"
    assert _path_entries(tmp_path / "missing") == ()
