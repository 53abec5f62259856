"""The tool table and the category derived without a rule: command → tool → category, in this order:
the table, a script runner, the evidence's shape, the job's name."""

from __future__ import annotations

import pytest

from healer.diagnosis.derive import derive_category, name_hint
from healer.diagnosis.finder import find_evidence
from healer.diagnosis.tooltable import load_table, parse_table, read_line, split_commands
from healer.model import Category


@pytest.mark.parametrize(
    ("command", "category"),
    [
        pytest.param("cargo fmt --all -- --check", "format", id="cargo-fmt"),
        pytest.param("cargo clippy -- -D warnings", "lint", id="cargo-clippy"),
        pytest.param("cargo test --workspace", "test", id="cargo-test"),
        pytest.param("cargo nextest run", "test", id="nextest"),
        pytest.param("cargo build --release", "build", id="cargo-build"),
        pytest.param("go mod tidy", "format", id="go-mod-tidy"),
        pytest.param("go vet ./...", "lint", id="go-vet"),
        pytest.param("bundle exec rspec spec/models", "test", id="rspec"),
        pytest.param("bundle exec rubocop", "lint", id="rubocop"),
        pytest.param("vendor/bin/phpunit --testdox", "test", id="phpunit"),
        pytest.param("./vendor/bin/pest", "test", id="pest"),
        pytest.param("vendor/bin/pint --test", "format", id="pint"),
        pytest.param("prove -lr t", "test", id="prove"),
        pytest.param("ctest --output-on-failure", "test", id="ctest"),
        pytest.param("cmake -S . -B build", "build", id="cmake"),
        pytest.param("xcodebuild test -scheme App", "test", id="xcodebuild-test"),
        pytest.param("swiftlint --strict", "lint", id="swiftlint"),
        pytest.param("mix credo --strict", "lint", id="credo"),
        pytest.param("mix dialyzer", "typecheck", id="dialyzer"),
        pytest.param("mix format --check-formatted", "format", id="mix-format"),
        pytest.param("hlint src", "lint", id="hlint"),
        pytest.param("cabal test all", "test", id="cabal"),
        pytest.param("stack build --fast", "build", id="stack"),
        pytest.param("rebar3 ct", "test", id="rebar3-ct"),
        pytest.param("lein test", "test", id="lein"),
        pytest.param("sbt ++2.13.12 test", "test", id="sbt"),
        pytest.param("busted spec", "test", id="busted"),
        pytest.param("luacheck .", "lint", id="luacheck"),
        pytest.param("vint .", "lint", id="vint"),
        pytest.param("latexmk -pdf main.tex", "build", id="latexmk"),
        pytest.param("chktex -q main.tex", "lint", id="chktex"),
        pytest.param("R CMD check --as-cran pkg.tar.gz", "test", id="r-cmd-check"),
        pytest.param("Rscript -e 'testthat::test_dir(\"tests\")'", "test", id="testthat"),
        pytest.param("Invoke-Pester -CI", "test", id="pester"),
        pytest.param("Invoke-ScriptAnalyzer -Path . -Recurse", "lint", id="psscriptanalyzer"),
        pytest.param("npx biome ci .", "lint", id="biome"),
        pytest.param("npx biome format .", "format", id="biome-format"),
        pytest.param("npx oxlint", "lint", id="oxlint"),
        pytest.param("npx prettier --check .", "format", id="prettier"),
        pytest.param("bun test", "test", id="bun-test"),
        pytest.param("deno fmt --check", "format", id="deno-fmt"),
        pytest.param("npx svelte-check", "typecheck", id="svelte-check"),
        pytest.param("npx vitest run", "test", id="vitest"),
        pytest.param("markdownlint '**/*.md'", "lint", id="markdownlint"),
        pytest.param("awesome_bot README.md", "lint", id="awesome-bot"),
        pytest.param("bundle exec htmlproofer ./_site", "lint", id="htmlproofer"),
        pytest.param("./gradlew :app:lintDebug", "lint", id="android-lint"),
        pytest.param("./gradlew clean testDebugUnitTest", "test", id="gradle-unit-tests"),
        pytest.param("flutter test", "test", id="flutter-test"),
        pytest.param("flutter analyze", "lint", id="flutter-analyze"),
        pytest.param("dotnet test Foo.sln -c Release", "test", id="dotnet-test"),
        pytest.param("lhci autorun", "test", id="lighthouse"),
        pytest.param("docker buildx build --push .", "build", id="buildx"),
        pytest.param("composer install --prefer-dist", "dependency", id="composer-install"),
        pytest.param("sudo -E env CI=1 travis_retry python -m pytest -q", "test", id="wrappers"),
        pytest.param("make -C src -j 4 check", "test", id="make-check"),
        pytest.param("mvn -B clean verify", "test", id="maven-goals"),
        pytest.param("bundle exec srb tc", "typecheck", id="sorbet"),
        pytest.param("bundle exec steep check", "typecheck", id="steep"),
        pytest.param("sqlfluff lint models/", "lint", id="sqlfluff"),
        pytest.param("sqlfluff fix models/", "format", id="sqlfluff-fix"),
        pytest.param("cfn-lint template.yaml", "lint", id="cfn-lint"),
        pytest.param("npx spectral lint openapi.yaml", "lint", id="spectral"),
        pytest.param("buf breaking --against '.git#branch=main'", "lint", id="buf-breaking"),
        pytest.param("buf generate", "build", id="buf-generate"),
        pytest.param("opam exec -- dune runtest", "test", id="a-runners-end-of-options"),
        pytest.param("renovate-config-validator --strict", "lint", id="renovate-config-validator"),
        pytest.param("reuse lint", "lint", id="reuse-lint"),
        pytest.param("reuse download --all", "dependency", id="reuse-download"),
        pytest.param("git diff --exit-code", "format", id="git-diff-exit-code"),
        pytest.param("git diff --exit-code --name-only", "format", id="git-diff-exit-code-names"),
        pytest.param("git diff --name-only origin/main...HEAD", "config", id="git-diff-names-listed"),
        pytest.param(
            "changed=$(git diff --shortstat origin/main...HEAD | awk '{print $4+$6}')",
            "config",
            id="git-diff-stats-assigned",
        ),
    ],
)
def test_the_table_knows_the_tool_and_its_subcommand(command: str, category: str) -> None:
    readings = read_line(command)
    assert readings and readings[-1].category == category


@pytest.mark.parametrize(
    ("command", "script"),
    [
        pytest.param("npm run lint", "lint", id="npm"),
        pytest.param("pnpm run test:unit", "test:unit", id="pnpm"),
        pytest.param("yarn lint:css", "lint:css", id="yarn-bare"),
        pytest.param("npm --prefix web run build", "build", id="npm-prefix"),
        pytest.param("tox -e lint", "lint", id="tox"),
        pytest.param("nox -s tests-3.12", "tests-3.12", id="nox"),
        pytest.param("composer run-script cs", "cs", id="composer"),
        pytest.param("just check", "check", id="just"),
    ],
)
def test_a_script_runner_names_its_script(command: str, script: str) -> None:
    assert read_line(command)[-1].script == script


def test_a_projects_own_script_is_not_the_tool_its_name_sounds_like() -> None:
    assert read_line("./scripts/ci/test.sh") == []
    assert read_line("bash ci/lint.sh") == []


def test_the_shipped_table_is_valid_and_rejects_mistakes() -> None:
    assert len(load_table()) > 300
    with pytest.raises(ValueError, match="unknown category"):
        parse_table({"tools": [{"tool": ["x"], "category": "linting"}]})
    with pytest.raises(ValueError, match="listed twice"):
        parse_table({"tools": [{"tool": ["x"], "category": "lint"}, {"tool": ["x"], "category": "test"}]})


def _found(*lines: str):  # type: ignore[no-untyped-def]
    return find_evidence(list(lines), range(len(lines)))


@pytest.mark.parametrize(
    ("command", "lines", "job", "category", "kind"),
    [
        pytest.param("cargo clippy", ["the checker gave up"], None, "lint", "tool", id="tool-first"),
        pytest.param("npm run lint:js", ["it stopped"], None, "lint", "script", id="script-name"),
        pytest.param(
            "pytest -q",
            ["curl: (6) Could not resolve host: pypi.org"],
            None,
            "transient",
            "evidence",
            id="the-network-beats-the-tool",
        ),
        pytest.param(
            "./ci/build-and-check.sh",
            ["src/a.c:3:1: error: expected ';'"],
            None,
            "build",
            "evidence",
            id="evidence-beats-a-file-name",
        ),
        pytest.param(
            "bundle exec rake", ["12 examples, 3 failures"], None, "test", "evidence", id="bare-runner"
        ),
        pytest.param("./release.sh", ["it stopped"], "lint", "lint", "job", id="job-name"),
        pytest.param(
            'if [ -n "$X" ]; then npm run lint; else npm test; fi',
            ["not ok 2 - sorts"],
            None,
            "test",
            "evidence",
            id="several-tools-the-evidence-decides",
        ),
        pytest.param(
            "javac Main.java && java Main",
            ['Exception in thread "main" x'],
            None,
            None,
            None,
            id="the-last-command-is-unknown",
        ),
    ],
)
def test_the_category_comes_from_the_tool_then_the_script_then_the_evidence(
    command: str, lines: list[str], job: str | None, category: str | None, kind: str | None
) -> None:
    derived = derive_category(command, _found(*lines), job=job)
    if category is None:
        assert derived is None or derived.kind != "tool"
    else:
        assert derived is not None
        assert (derived.category.value, derived.kind) == (category, kind)


def test_the_scripts_of_the_tree_resolve_a_runner() -> None:
    files = {"package.json": '{"scripts": {"check": "eslint . && tsc --noEmit"}}'}
    derived = derive_category("npm run check", _found("it stopped"), scripts=files)
    assert derived is not None and derived.category is Category.TYPECHECK
    assert "npm check runs" in derived.source
    # without the tree, the name says nothing here
    assert derive_category("npm run check", _found("it stopped")) is None


@pytest.mark.parametrize(
    ("name", "category"),
    [
        ("lint:css", Category.LINT),
        ("format-check", Category.FORMAT),
        ("typecheck", Category.TYPECHECK),
        ("test:e2e", Category.TEST),
        ("unit-tests", Category.TEST),
        ("build", Category.BUILD),
        ("release", None),
    ],
)
def test_a_name_hints_at_its_category(name: str, category: Category | None) -> None:
    assert name_hint(name) is category


@pytest.mark.parametrize(
    ("line", "commands"),
    [
        (
            '[[ "$HEAD_REF" =~ ^(feat|fix|docs)/ ]] || { echo "::error::bad branch"; exit 1; }',
            [
                ["[[", "$HEAD_REF", "=~", "^(feat|fix|docs)/", "]]"],
                ["echo", "::error::bad branch"],
                ["exit", "1"],
            ],
        ),
        (
            "[[ -f a && -f b ]] && make test | tee out",
            [["[[", "-f", "a", "&&", "-f", "b", "]]"], ["make", "test"], ["tee", "out"]],
        ),
        ("x[[y]] | wc -l", [["x[[y]]"], ["wc", "-l"]]),
        ("[ -f a ] && make | tee out", [["[", "-f", "a", "]"], ["make"], ["tee", "out"]]),
    ],
)
def test_a_double_bracket_test_is_one_command_whatever_operators_it_holds(
    line: str, commands: list[list[str]]
) -> None:
    # inside `[[ … ]]` bash reads && and || as the test's operators and | as part of a =~ pattern
    assert split_commands(line) == commands


def test_a_variable_assigned_a_commands_output_runs_that_command() -> None:
    # `name=$(command …)` runs the command (the Bash manual's "Command Substitution")
    assert split_commands("n=$(git diff --shortstat origin/main)") == [
        ["git", "diff", "--shortstat", "origin/main"]
    ]
    assert split_commands("v=$(make version)") == [["make", "version"]]
    # a plain assignment before a command is the command's environment, not a substitution
    assert split_commands("CI=1 make test") == [["CI=1", "make", "test"]]
