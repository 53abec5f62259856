"""The failing step's purpose: the action table, the command table, then the names (one case per entry)."""

from __future__ import annotations

import pytest
import yaml

from healer.diagnosis.purpose import (
    ACTION_TABLE,
    COMMAND_TABLE,
    PURPOSES,
    action_identity,
    action_table,
    command_table,
    parse_actions,
    parse_commands,
    step_purpose,
)

# One action of each entry of actions.yml, in the table's order, as the runner writes its step header.
ACTIONS = [
    ("dependabot/fetch-metadata@v2", "dependency-bot"),
    ("fastify/github-action-merge-dependabot@v3", "dependency-bot"),
    ("renovatebot/github-action@v40.1.0", "dependency-bot"),
    ("github/dependabot-action@main", "dependency-bot"),
    ("amannn/action-semantic-pull-request@v5", "pr-policy"),
    ("mheap/github-action-required-labels@v5", "pr-policy"),
    ("dangoslen/changelog-enforcer@v3", "pr-policy"),
    ("contributor-assistant/github-action@v2.4.0", "pr-policy"),
    ("deepakputhraya/action-pr-title@master", "pr-policy"),
    ("deepakputhraya/action-branch-name@master", "pr-policy"),
    ("nearform-actions/github-action-check-linked-issues@v1", "pr-policy"),
    ("actions/github-script@v7", "automation"),
    ("softprops/action-gh-release@v2", "release"),
    ("actions/deploy-pages@v4", "deploy"),
    ("docker/login-action@v3", "credentials"),
    ("docker/build-push-action@v6", "container-build"),
    ("actions/upload-artifact@v4", "artifact"),
    ("actions/cache/save@v4", "cache"),
    ("actions/setup-python@v5", "toolchain"),
    ("helm/kind-action@v1", "toolchain"),
    ("actions/checkout@v4", "checkout"),
    ("codecov/codecov-action@v4", "coverage-upload"),
    ("slackapi/slack-github-action@v1.26.0", "notification"),
    ("lycheeverse/lychee-action@v1", "link-check"),
    ("github/codeql-action/analyze@v3", "security-scan"),
    ("golangci/golangci-lint-action@v6", "lint"),
    ("bufbuild/buf-action@v1", "lint"),
    ("fsfe/reuse-action@v6", "lint"),
    ("mszostok/codeowners-validator@v0.7.4", "lint"),
    ("zizmorcore/zizmor-action@v0.1.1", "security-scan"),
    ("cypress-io/github-action@v6", "test"),
    ("arduino/compile-sketches@v1", "build"),
    ("r-lib/actions/setup-r-dependencies@v2", "dependency-install"),
]


def test_every_entry_of_the_action_table_has_a_case() -> None:
    entries = yaml.safe_load(ACTION_TABLE.read_text(encoding="utf-8"))["actions"]
    assert len(entries) == len(ACTIONS)
    for entry, (uses, purpose) in zip(entries, ACTIONS, strict=True):
        assert uses.split("@")[0].lower() in {name.lower() for name in entry["uses"]}, entry["doc"]
        assert entry["purpose"] == purpose


@pytest.mark.parametrize(("uses", "purpose"), [pytest.param(u, p, id=u.split("@")[0]) for u, p in ACTIONS])
def test_an_action_is_known_by_its_identity(uses: str, purpose: str) -> None:
    said = step_purpose(header=f"Run {uses}", command=uses)
    assert (said.purpose, said.strength) == (purpose, "action")
    # the Jobs API names an unnamed step the same way; a named step's header still says the action
    assert step_purpose(header=None, command=None, step=f"Run {uses}").purpose == purpose


@pytest.mark.parametrize(
    ("text", "identity"),
    [
        pytest.param("actions/cache@v4", "actions/cache", id="plain"),
        pytest.param(
            "Post Run actions/cache/save@0057852bfaa89a56745cba8c7296529d2fc39830",
            "actions/cache/save",
            id="post-step-subfolder-sha",
        ),
        pytest.param("docker://rhysd/actionlint:1.7.1", "rhysd/actionlint", id="container"),
        pytest.param("pytest -q", None, id="a-script"),
        pytest.param("./scripts/release.sh v1@x", None, id="a-script-with-at"),
        pytest.param("echo a/b@c && make", None, id="two-words"),
    ],
)
def test_action_identity(text: str, identity: str | None) -> None:
    assert action_identity(text) == identity


def test_an_action_in_a_subfolder_falls_back_to_its_repository() -> None:
    said = step_purpose(
        header="Run actions/upload-artifact/merge@v4", command="actions/upload-artifact/merge@v4"
    )
    assert said.purpose == "artifact"
    said = step_purpose(header="Run pypa/gh-action-pypi-publish/subdir@v1", command=None)
    assert said.purpose == "release"


def test_an_action_the_table_does_not_know_is_read_by_its_name_then_the_step_and_job_names() -> None:
    said = step_purpose(header="Run acme/pypi-publish-action@v1", command="acme/pypi-publish-action@v1")
    assert (said.purpose, said.strength, said.source) == (
        "release",
        "name",
        "action name: acme/pypi-publish-action",
    )
    said = step_purpose(header="Run acme/helper@v1", command="acme/helper@v1", job="Check PR title")
    assert said.purpose == "pr-policy"
    assert step_purpose(header="Run acme/helper@v1", command="acme/helper@v1").purpose == ""


# One command of each entry of purposes.yml, in the table's order.
COMMANDS = [
    ("npm publish --access public", "release"),
    ("python -m twine upload --skip-existing dist/*", "release"),
    ("uv publish --trusted-publishing always", "release"),
    ("cargo publish -p mycrate --token $TOKEN", "release"),
    ("gem push pkg/*.gem", "release"),
    ("dart pub publish --force", "release"),
    ("pod trunk push Acme.podspec --allow-warnings", "release"),
    ("mix hex.publish --yes", "release"),
    ("dotnet nuget push out/*.nupkg --api-key $KEY --source nuget.org", "release"),
    ("mvn -B -ntp deploy -DskipTests", "release"),
    ("./gradlew publishToSonatype closeAndReleaseSonatypeStagingRepository", "release"),
    ("goreleaser release --clean", "release"),
    ("npx semantic-release", "release"),
    ("gh api -X POST repos/$GITHUB_REPOSITORY/labels -f name=triage", "automation"),
    ("ghr -t $TOKEN v1.0 dist/", "release"),
    ("docker push ghcr.io/acme/app:${{ github.sha }}", "release"),
    ("aws s3 sync ./public s3://acme-site --delete", "deploy"),
    ("terraform apply -auto-approve", "deploy"),
    ("helm upgrade --install app ./chart", "deploy"),
    ("mkdocs gh-deploy --force", "deploy"),
    ("./codecov -t ${CODECOV_TOKEN} -f coverage.xml", "coverage-upload"),
    ("oras push ghcr.io/acme/bundle:1 bundle.tgz", "artifact"),
    ("npx --yes --package renovate -- renovate-config-validator --strict", "lint"),
    ("renovate-config-validator renovate.json", "lint"),
    ("towncrier check --compare-with origin/main", "pr-policy"),
    ("npx danger ci", "pr-policy"),
    ("lychee --no-progress './**/*.md'", "link-check"),
    ("npx wait-on -t 60000 http://localhost:3000", "health-check"),
    ("curl -fsS https://sh.rustup.rs | sh -s -- -y", "download"),
    ("nvm install 12", "toolchain"),
]


def test_every_entry_of_the_command_table_has_a_case() -> None:
    entries = yaml.safe_load(COMMAND_TABLE.read_text(encoding="utf-8"))["commands"]
    assert len(entries) == len(COMMANDS)


@pytest.mark.parametrize(
    ("command", "purpose"), [pytest.param(c, p, id=c.split()[0] + "-" + p) for c, p in COMMANDS]
)
def test_a_run_step_is_known_by_its_verb(command: str, purpose: str) -> None:
    said = step_purpose(header=f"Run {command}", command=command)
    assert (said.purpose, said.strength) == (purpose, "command")


@pytest.mark.parametrize(
    ("command", "purpose"),
    [
        pytest.param("curl -f http://localhost:8080/healthz", "health-check", id="curl-localhost"),
        pytest.param('gh pr merge --auto --squash "$PR_URL"', "automation", id="gh-pr"),
        pytest.param("gh release create v1.2.3 dist/*", "release", id="gh-release"),
        pytest.param("goreleaser build --snapshot --clean", "build", id="goreleaser-build-is-a-check"),
        pytest.param("npm ci\nnpm test", "test", id="tool-table-kind"),
        pytest.param("npm ci && npm run build && npm publish", "release", id="the-last-command-decides"),
        pytest.param("make release VERSION=1.2", "release", id="make-target-name"),
        pytest.param("npm run deploy:prod", "deploy", id="npm-script-name"),
        pytest.param("./gradlew publish", "release", id="gradle-task"),
        pytest.param("./scripts/frobnicate", "", id="unknown-script"),
        pytest.param("mvn -B verify", "test", id="mvn-verify-is-a-check"),
        pytest.param("python scripts/check_client.py", "check", id="a-script-that-says-it-checks"),
        pytest.param("./scripts/checkout-submodules.sh", "checkout", id="checkout-is-not-a-check"),
        pytest.param(
            'python .github/scripts/check_pr_title.py "$TITLE"', "pr-policy", id="a-script-for-the-pr-title"
        ),
        pytest.param("./.github/check-issue-link.sh", "pr-policy", id="a-script-for-the-linked-issue"),
        pytest.param("helm-docs-lint --strict", "lint", id="an-unknown-tool-named-for-linting"),
        pytest.param("protolint-ng lint proto/", "lint", id="an-unknown-tools-lint-subcommand"),
        pytest.param("zx test", "test", id="an-unknown-tools-test-subcommand"),
        pytest.param("mytool deploy --prod", "", id="an-unknown-tools-other-verb-says-nothing"),
        pytest.param("npx renovate", "dependency-bot", id="renovate-self-hosted-is-the-bot"),
        pytest.param("towncrier build --draft --version 1.0", "", id="towncrier-build-is-not-the-policy"),
        pytest.param("bundle exec danger --fail-on-errors=true", "pr-policy", id="danger-ruby"),
    ],
)
def test_a_run_steps_verb_and_target(command: str, purpose: str) -> None:
    assert step_purpose(header=f"Run {command.splitlines()[0]}", command=command).purpose == purpose


@pytest.mark.parametrize(
    ("step", "job", "workflow", "purpose", "source"),
    [
        pytest.param("Publish to PyPI", "build", "CI", "release", "step name: Publish to PyPI", id="step"),
        pytest.param(None, "Check PR title", None, "pr-policy", "job name: Check PR title", id="job"),
        pytest.param(None, "changelog", None, "pr-policy", "job name: changelog", id="changelog"),
        pytest.param(None, "validate-title", None, "pr-policy", "job name: validate-title", id="title"),
        pytest.param(None, "linked-issue", None, "pr-policy", "job name: linked-issue", id="linked-issue"),
        pytest.param(None, "draft-check", None, "pr-policy", "job name: draft-check", id="draft"),
        pytest.param(None, "branch-naming", None, "pr-policy", "job name: branch-naming", id="branch-name"),
        pytest.param(
            None, "task-list-completed", None, "pr-policy", "job name: task-list-completed", id="task-list"
        ),
        pytest.param(None, "x", "PR template", "pr-policy", "workflow name: PR template", id="pr-template"),
        pytest.param(None, "check-commits", None, "pr-policy", "job name: check-commits", id="commits"),
        pytest.param(None, "do-not-merge", None, "pr-policy", "job name: do-not-merge", id="do-not-merge"),
        pytest.param(None, "WIP check", None, "pr-policy", "job name: WIP check", id="wip"),
        pytest.param(None, "check-news", None, "pr-policy", "job name: check-news", id="check-news"),
        pytest.param(
            "Check for blocking labels",
            "block-merge",
            None,
            "pr-policy",
            "step name: Check for blocking labels",
            id="check-labels",
        ),
        pytest.param(
            "Check base branch", "x", None, "pr-policy", "step name: Check base branch", id="base-branch"
        ),
        pytest.param(
            None, "verify-target-branch", None, "pr-policy", "job name: verify-target-branch", id="target"
        ),
        pytest.param("Check milestone", "x", None, "pr-policy", "step name: Check milestone", id="milestone"),
        # a site's news pages are the code's build
        pytest.param(None, "build-news-site", None, "build", "job name: build-news-site", id="news-site"),
        pytest.param(
            None, "dependabot-auto-merge", None, "dependency-bot", "job name: dependabot-auto-merge", id="bot"
        ),
        pytest.param(None, "build", "Release", "build", "job name: build", id="job-before-workflow"),
        pytest.param(None, "x", "Deploy docs", "deploy", "workflow name: Deploy docs", id="workflow"),
        pytest.param(
            "Run ./ci.sh",
            "unit-tests",
            None,
            "test",
            "job name: unit-tests",
            id="a-default-name-says-nothing",
        ),
    ],
)
def test_names_are_weaker_priors(
    step: str | None, job: str | None, workflow: str | None, purpose: str, source: str
) -> None:
    said = step_purpose(header="Run ./ci.sh", command="./ci.sh", step=step, job=job, workflow=workflow)
    assert (said.purpose, said.strength, said.source) == (purpose, "name", source)


def test_comparing_with_the_base_branch_is_not_a_policy_on_the_pull_requests_target() -> None:
    said = step_purpose(header="Run ./ci.sh", command="./ci.sh", step="Compare with base branch", job="test")
    assert said.purpose != "pr-policy"


def test_the_command_wins_over_the_names() -> None:
    said = step_purpose(header="Run pytest -q", command="pytest -q", job="release", workflow="Release")
    assert (said.purpose, said.code_check) == ("test", True)


@pytest.mark.parametrize("phase", ["before_install", "install", "before_script"])
def test_a_travis_phase_that_prepares_the_job_is_set_up_not_a_check(phase: str) -> None:
    said = step_purpose(header="bash .travis/prepare.sh", command="bash .travis/prepare.sh", phase=phase)
    assert (said.purpose, said.code_check, said.source) == ("setup", False, f"Travis CI phase: {phase}")
    # the command, when a table knows it, still says more than the phase
    known = step_purpose(
        header="pip install -r requirements.txt", command="pip install -r requirements.txt", phase=phase
    )
    assert known.purpose == "dependency-install"
    # a GitHub Actions step that is merely named like a phase is a name, not Travis' framing
    named = step_purpose(header="bash .travis/prepare.sh", command="bash .travis/prepare.sh", step=phase)
    assert named.purpose != "setup"


def test_a_script_that_only_says_it_checks_yields_to_a_job_named_for_a_pr_policy() -> None:
    said = step_purpose(header="Run ./scripts/ci/check.sh", command="./scripts/ci/check.sh", job="changelog")
    assert (said.purpose, said.source) == ("pr-policy", "job name: changelog")
    # a job named for a release keeps the check: it checks the code the release would ship
    kept = step_purpose(header="Run ./scripts/ci/check.sh", command="./scripts/ci/check.sh", job="release")
    assert (kept.purpose, kept.code_check) == ("check", True)


def test_the_tables_load_and_name_known_purposes() -> None:
    assert set(action_table().values()) <= set(PURPOSES)
    tools, targets = command_table()
    assert {t.category for t in tools.values()} <= set(PURPOSES) | {""}
    assert {p for aims in targets.values() for p in aims.values()} <= set(PURPOSES)


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        pytest.param(
            {"actions": [{"uses": ["a/b"], "purpose": "release"}]}, "`doc` are required", id="no-doc"
        ),
        pytest.param(
            {"actions": [{"uses": ["a/b"], "purpose": "shipping", "doc": "x"}]},
            "unknown purpose",
            id="unknown-purpose",
        ),
        pytest.param(
            {
                "actions": [
                    {"uses": ["a/b"], "purpose": "release", "doc": "x"},
                    {"uses": ["A/B"], "purpose": "deploy", "doc": "y"},
                ]
            },
            "listed twice",
            id="twice",
        ),
        pytest.param({}, "an `actions:` list", id="empty"),
    ],
)
def test_a_bad_action_table_is_refused(data: object, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        parse_actions(data)


def test_a_bad_command_table_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown purpose"):
        parse_commands({"commands": [{"tool": ["x"], "subcommands": {"go": "sail"}, "doc": "d"}]})
    with pytest.raises(ValueError, match="`doc` are required"):
        parse_commands({"commands": [{"tool": ["x"], "purpose": "release"}]})


def test_an_unnamed_run_steps_default_name_is_its_command_not_a_name() -> None:
    """GitHub shows an unnamed `run:` step as "Run <its script's first line>": words in the script (a branch
    pattern's `docs/`) are not the step's purpose; the job's name is read instead."""
    command = "echo \"$HEAD_REF\" | grep -Eq '^(feat|fix|chore|docs)/[a-z0-9-]+$'"
    said = step_purpose(header=f"Run {command}", command=command, step=f"Run {command}", job="branch-name")
    assert (said.purpose, said.source) == ("pr-policy", "job name: branch-name")
    # a step its author named is a name
    named = step_purpose(header=f"Run {command}", command=command, step="Check docs links", job="ci")
    assert named.purpose != "pr-policy"


def test_a_branch_pattern_in_a_double_bracket_test_is_not_read_as_a_script_file() -> None:
    # `docs)/` inside the =~ pattern is not a script under docs/: the job's name says what the step is for
    command = '[[ "$HEAD_REF" =~ ^(feat|fix|chore|docs)/ ]] || { echo "::error::bad branch"; exit 1; }'
    said = step_purpose(
        header=f"Run {command}", command=command, step=f"Run {command}", job="check-branch-name"
    )
    assert (said.purpose, said.strength) == ("pr-policy", "name")
