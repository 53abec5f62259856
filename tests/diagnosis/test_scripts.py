"""The script-runner resolver: a script's name → its commands, read from the project's files as text."""

from __future__ import annotations

import json

import pytest

from healer.diagnosis.derive import script_command
from healer.diagnosis.scripts import (
    MAX_COMMANDS,
    MAX_FILE_CHARS,
    resolve_script,
    script_files,
    with_echoed_scripts,
)
from healer.model import Action, Owner
from tests.joblogs import diagnose_log, job_log

MAKEFILE = """\
.PHONY: lint test check
PY ?= python3

lint:
\t@ruff check .
\t-mypy src

test: build
\t$(PY) -m pytest -q

build:
\tcc -o app main.c

check: lint test
"""

JUSTFILE = """\
set shell := ["bash", "-c"]

default: test

# run the linters
lint:
    cargo clippy -- -D warnings

test *args: lint
    cargo test {{args}}
"""

TOX = """\
[tox]
envlist = py312, lint

[testenv]
deps = pytest
commands =
    pytest {posargs}

[testenv:lint]
skip_install = true
commands = ruff check .
           ruff format --check .
"""

NOXFILE = """\
import nox

@nox.session(python=["3.11", "3.12"])
def tests(session):
    session.install(".")
    session.run("pytest", "-q")

@nox.session(name="type-check")
def mypy(session):
    session.run("mypy", "src")
"""

RAKEFILE = """\
require "rspec/core/rake_task"
RSpec::Core::RakeTask.new(:spec)

task :lint do
  sh "bundle exec rubocop"
end

task default: [:spec]
"""


@pytest.mark.parametrize(
    ("runner", "script", "files", "commands"),
    [
        pytest.param(
            "npm",
            "lint",
            {"package.json": json.dumps({"scripts": {"lint": "eslint ."}})},
            ["eslint ."],
            id="package.json",
        ),
        pytest.param(
            "yarn",
            None,
            {"package.json": json.dumps({"scripts": {"test": "jest"}})},
            ["jest"],
            id="package.json-default-test",
        ),
        pytest.param("make", "lint", {"Makefile": MAKEFILE}, ["ruff check .", "mypy src"], id="makefile"),
        pytest.param(
            "make",
            "test",
            {"Makefile": MAKEFILE},
            ["$(PY) -m pytest -q", "cc -o app main.c"],
            id="makefile-prerequisites",
        ),
        pytest.param(
            "make",
            "check",
            {"Makefile": MAKEFILE},
            ["ruff check .", "mypy src", "$(PY) -m pytest -q", "cc -o app main.c"],
            id="makefile-phony-group",
        ),
        pytest.param("make", None, {"Makefile": MAKEFILE}, ["ruff check .", "mypy src"], id="makefile-first"),
        pytest.param(
            "just",
            "test",
            {"justfile": JUSTFILE},
            ["cargo test {{args}}", "cargo clippy -- -D warnings"],
            id="justfile",
        ),
        pytest.param(
            "tox",
            "lint",
            {"tox.ini": TOX},
            ["ruff check .", "ruff format --check ."],
            id="tox-env",
        ),
        pytest.param("tox", "py312", {"tox.ini": TOX}, ["pytest {posargs}"], id="tox-testenv"),
        pytest.param("nox", "tests", {"noxfile.py": NOXFILE}, ["pytest -q"], id="noxfile"),
        pytest.param("nox", "type-check", {"noxfile.py": NOXFILE}, ["mypy src"], id="noxfile-named"),
        pytest.param(
            "composer",
            "qa",
            {"composer.json": json.dumps({"scripts": {"qa": ["@cs", "phpstan analyse"], "cs": "phpcs src"}})},
            ["phpstan analyse", "phpcs src"],
            id="composer.json-references",
        ),
        pytest.param("rake", "lint", {"Rakefile": RAKEFILE}, ["bundle exec rubocop"], id="rakefile-task"),
        pytest.param("rake", "spec", {"Rakefile": RAKEFILE}, ["rspec"], id="rakefile-library-task"),
        pytest.param("rake", None, {"Rakefile": RAKEFILE}, ["rspec"], id="rakefile-default"),
    ],
)
def test_a_script_resolves_to_its_commands(
    runner: str, script: str | None, files: dict[str, str], commands: list[str]
) -> None:
    assert resolve_script(runner, script, files) == commands


@pytest.mark.parametrize(
    ("runner", "files"),
    [
        pytest.param("npm", {"package.json": "{not json"}, id="broken-json"),
        pytest.param("npm", {"package.json": "[1, 2]"}, id="json-not-an-object"),
        pytest.param("npm", {"package.json": '{"scripts": {"lint": ["a"]}}'}, id="script-not-text"),
        pytest.param("make", {"Makefile": "all:\n\techo hi\n"}, id="target-missing"),
        pytest.param("tox", {"tox.ini": "[tox]\n"}, id="no-env"),
        pytest.param("cargo", {"Makefile": MAKEFILE}, id="not-a-runner"),
        pytest.param("npm", {}, id="no-files"),
    ],
)
def test_what_the_files_do_not_say_is_nothing(runner: str, files: dict[str, str]) -> None:
    assert resolve_script(runner, "lint", files) == []


def test_a_hostile_file_is_read_bounded_and_never_run(tmp_path: object) -> None:
    scripts = {f"s{n}": f"@s{n + 1}" for n in range(10_000)}  # a chain of references, and a cycle
    scripts["s10000"] = "@s0"
    text = json.dumps({"scripts": scripts})
    assert resolve_script("composer", "s0", {"composer.json": text}) == []
    many = {"scripts": {"lint": "x " * 100_000}}
    (command,) = resolve_script("npm", "lint", {"package.json": json.dumps(many)})
    assert len(command) <= 1000
    recipes = "lint:\n" + "\tcmd\n" * 10_000
    assert len(resolve_script("make", "lint", {"Makefile": recipes})) == MAX_COMMANDS
    # a noxfile is parsed as text: nothing in it is imported
    evil = 'import os\nos.system("touch pwned")\n@nox.session\ndef lint(session):\n    session.run("ruff")\n'
    assert resolve_script("nox", "lint", {"noxfile.py": evil}) == ["ruff"]


def test_the_tree_s_script_files_are_read_by_name_and_bounded() -> None:
    tree = {"package.json": "{}", "Makefile": "x" * (MAX_FILE_CHARS + 10), "README.md": "not a script file"}
    files = script_files(tree.get)
    assert set(files) == {"package.json", "Makefile"}
    assert len(files["Makefile"]) == MAX_FILE_CHARS


def test_npms_echo_says_what_a_script_ran_when_no_package_json_is_at_hand() -> None:
    step = [
        "2026-10-02T08:53:21.7038875Z > pinwheel-sdk@5.1.0 size",
        "2026-10-02T08:53:21.7047346Z > size-limit",
        "> @acme/ui@2.0.3 test /home/travis/build/acme/ui",  # npm 6 and pnpm add the folder
        "> mocha test/",
        "> a quoted line of a test's output",
    ]
    files = with_echoed_scripts(None, step)
    assert files is not None
    assert resolve_script("npm", "size", files) == ["size-limit"]
    assert resolve_script("npm", None, files) == ["mocha test/"]
    assert script_command("npm run size", files) == "size-limit"
    # the pull request's own package.json, when the caller has it, says more than the echo
    own = {"package.json": json.dumps({"scripts": {"size": "bundlewatch"}})}
    assert with_echoed_scripts(own, step) is own
    assert with_echoed_scripts(None, ["> just a line", "size-limit"]) is None


def test_the_purpose_of_npm_run_comes_from_the_script_it_ran() -> None:
    text = job_log(
        "npm run size",
        [
            "",
            "> pinwheel-sdk@5.1.0 size",
            "> size-limit",
            "",
            "  Size limit: 12 kB",
            "  Size:       14.37 kB with all dependencies, minified and brotlied",
            '  Try to reduce size or increase limit in "size-limit" section of package.json',
        ],
    )
    diagnosis = diagnose_log(text, job="size")
    assert dict(diagnosis.decided_by)["purpose"] == "test (tool table: size-limit)"
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)
