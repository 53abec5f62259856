"""Whose failure it is, and the action that follows: the ending, the purpose, the evidence, the names."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import yaml

from healer.diagnosis.classify import classify
from healer.diagnosis.owner import ENDINGS, OWNER_ACTIONS, ending_of, parse_endings
from healer.diagnosis.rules import load_rules
from healer.model import Action, Category, Evidence, Job, LogTail, Owner, Step

RULES = load_rules()
STAMP = "2026-11-03T10:02:11.0000000Z "
SETUP = ["##[group]Runner Image", "Image: ubuntu-24.04", "##[endgroup]"]


def uses_log(action: str, inputs: dict[str, str], output: list[str], last: str) -> str:
    lines = [*SETUP, f"##[group]Run {action}", "with:", *(f"  {k}: {v}" for k, v in inputs.items())]
    lines += ["##[endgroup]", *output, last, "Post job cleanup."]
    return "".join(f"{STAMP}{line}\n" for line in lines)


def run_log(command: str, output: list[str], exit_code: int = 1) -> str:
    lines = [*SETUP, f"##[group]Run {command.splitlines()[0]}", *command.splitlines()]
    lines += ["shell: /usr/bin/bash -e {0}", "##[endgroup]", *output]
    lines += [f"##[error]Process completed with exit code {exit_code}.", "Post job cleanup."]
    return "".join(f"{STAMP}{line}\n" for line in lines)


def diagnose(
    text: str,
    *,
    job: str = "build",
    step: str | None = None,
    workflow: str | None = None,
    conclusion: str = "failure",
    rules=RULES,
):  # noqa: ANN001, ANN201
    steps = (Step(number=3, name=step, status="completed", conclusion="failure"),) if step else ()
    record = Job(id=1, name=job, status="completed", conclusion=conclusion, steps=steps)
    tail = LogTail(text=text, bytes_read=len(text), truncated=False)
    return classify(Evidence(job=record, log=tail), rules, workflow=workflow)


RELEASE = uses_log(
    "pypa/gh-action-pypi-publish@release/v1",
    {"repository-url": "https://upload.pypi.org/legacy/"},
    [
        "Checking dist/acme-1.4.0.tar.gz: PASSED",
        "Uploading distributions to https://upload.pypi.org/legacy/",
        "Uploading acme-1.4.0.tar.gz",
        "WARNING  Error during upload. Retry with the --verbose option for more details.",
        "ERROR    HTTPError: 400 Bad Request from https://upload.pypi.org/legacy/",
        "         File already exists ('acme-1.4.0.tar.gz', with blake2_256 hash 'ab12'). See "
        "https://pypi.org/help/#file-name-reuse for more information.",
    ],
    "##[error]The process '/usr/bin/docker' failed with exit code 1",
)
BOT = run_log(
    'gh pr merge --auto --squash "$PR_URL"',
    [
        "GraphQL: Pull request Auto merge is not allowed for this repository (enablePullRequestAutoMerge)",
    ],
)
POLICY = uses_log(
    "amannn/action-semantic-pull-request@v5",
    {"requireScope": "false"},
    [
        '##[error]No release type found in pull request title "Fix the parser". Add a prefix to indicate '
        "what kind of release this pull request corresponds to. For reference, see "
        "https://www.conventionalcommits.org/",
        "",
        "Available types:",
        " - feat: A new feature",
        " - fix: A bug fix",
    ],
    "",
)
SSO = run_log(
    "gh api repos/acme/private-config/contents/settings.json --jq .content | base64 -d > settings.json",
    [
        "gh: Resource protected by organization SAML enforcement. You must grant your Personal Access token "
        "access to this organization. (HTTP 403)",
    ],
)
KILLED = run_log(
    "pytest -n 4 tests/",
    [
        "============================= test session starts ==============================",
        "collected 812 items",
        "tests/test_parse.py ........................................",
        "tests/test_render.py ..................F",
        "/home/runner/work/_temp/abc.sh: line 1:  2345 Killed                  pytest -n 4 tests/",
    ],
    exit_code=137,
)
LINKS = run_log(
    "lychee --no-progress --verbose './**/*.md'",
    [
        "[docs/setup.md]:",
        "✗ [ERR] https://docs.acme.invalid/install | Network error: dns error: failed to lookup address "
        "information: Name or service not known",
        "✗ [404] https://github.com/acme/app/blob/main/OLD.md | Network error: Not Found",
        "🔍 58 Total ✅ 56 OK 🚫 2 Errors",
    ],
    exit_code=2,
)


@pytest.mark.parametrize(
    ("log", "job", "owner", "action", "purpose", "decided"),
    [
        pytest.param(
            RELEASE, "publish", Owner.REPOSITORY, Action.ESCALATE, "release", "purpose", id="release"
        ),
        pytest.param(
            BOT,
            "dependabot",
            Owner.REPOSITORY,
            Action.ESCALATE,
            "dependency-bot",
            "name",
            id="dependency-bot",
        ),
        pytest.param(
            POLICY, "pr-title", Owner.METADATA, Action.ESCALATE, "pr-policy", "purpose", id="pr-policy"
        ),
        pytest.param(SSO, "sync", Owner.REPOSITORY, Action.ESCALATE, "automation", "evidence", id="sso"),
        pytest.param(KILLED, "test", Owner.PLATFORM, Action.RERUN, "test", "ending", id="killed"),
        pytest.param(LINKS, "docs", Owner.CODE, Action.AGENT, "link-check", "purpose", id="link-checker"),
    ],
)
def test_whose_failure_it_is(
    log: str, job: str, owner: Owner, action: Action, purpose: str, decided: str
) -> None:
    diagnosis = diagnose(log, job=job)
    assert (diagnosis.owner, diagnosis.action, diagnosis.purpose) == (owner, action, purpose)
    said = dict(diagnosis.decided_by)
    assert decided in said
    assert said["row"].startswith(f"({owner.value}, ")
    assert said["row"].endswith(f"→ {action.value}")


def test_a_link_checkers_network_findings_are_the_documents() -> None:
    diagnosis = diagnose(LINKS, job="links")
    assert diagnosis.category is Category.LINT
    # the same DNS failure in a test step is the network's
    dns = run_log(
        "pytest",
        [
            "E   requests.exceptions.ConnectionError: Failed to resolve 'api.acme.invalid' "
            "([Errno -3] Temporary failure in name resolution)"
        ],
    )
    assert (diagnose(dns, job="test").owner, diagnose(dns, job="test").action) == (
        Owner.PLATFORM,
        Action.RERUN,
    )


def test_a_health_check_against_the_jobs_own_service_is_the_codes() -> None:
    log = run_log(
        "curl --fail --retry 5 --retry-connrefused http://localhost:8080/healthz",
        ["curl: (7) Failed to connect to localhost port 8080 after 0 ms: Couldn't connect to server"],
        exit_code=7,
    )
    diagnosis = diagnose(log, job="e2e")
    assert (diagnosis.owner, diagnosis.purpose, diagnosis.action) == (
        Owner.CODE,
        "health-check",
        Action.AGENT,
    )


def test_a_compiler_error_inside_a_release_step_is_still_the_codes() -> None:
    log = run_log(
        "goreleaser release --clean",
        [
            "  • building binaries",
            "    • building                  binary=dist/app_linux_amd64_v1/app",
            "  ⨯ release failed after 3s                 error=failed to build for linux_amd64_v1: "
            "exit status 1: # example.com/app",
            "./main.go:12:2: undefined: runServer",
        ],
    )
    diagnosis = diagnose(log, job="release")
    assert (diagnosis.owner, diagnosis.category, diagnosis.action) == (
        Owner.CODE,
        Category.BUILD,
        Action.AGENT,
    )


def test_a_refused_token_in_a_release_step_is_the_repositorys() -> None:
    log = run_log(
        "npm publish --provenance --access public",
        [
            "npm notice Publishing to https://registry.npmjs.org/ with tag latest and public access",
            "npm ERR! code ENEEDAUTH",
            "npm ERR! need auth This command requires you to be logged in to https://registry.npmjs.org/",
            "npm ERR! need auth You need to authorize this machine using `npm adduser`",
        ],
    )
    diagnosis = diagnose(log, job="publish")
    assert (diagnosis.owner, diagnosis.action) == (Owner.REPOSITORY, Action.ESCALATE)


def test_a_network_error_in_an_artifact_upload_is_the_platforms() -> None:
    log = uses_log(
        "actions/upload-artifact@v4",
        {"name": "dist", "path": "dist/"},
        [
            "With the provided path, there will be 3 files uploaded",
            "Error: Failed to CreateArtifact: Received non-retryable error: Failed request: (503) "
            "Service Unavailable",
        ],
        "##[error]Failed to CreateArtifact: Failed request: (503) Service Unavailable",
    )
    diagnosis = diagnose(log, job="build")
    assert (diagnosis.owner, diagnosis.purpose, diagnosis.action) == (
        Owner.PLATFORM,
        "artifact",
        Action.RERUN,
    )


# One case per entry of endings.yml, in its order: (command, exit code, owner, kind)
ENDING_CASES = [
    ("timeout 10m ./run-integration.sh", 124, Owner.UNKNOWN, Category.TIMEOUT),
    ("npm test", 137, Owner.PLATFORM, Category.INFRASTRUCTURE),
    ("./gradlew test", 143, Owner.PLATFORM, Category.INFRASTRUCTURE),
    ("gh release view v1", 4, Owner.REPOSITORY, Category.CONFIG),
    ("pytest -k smoke", 5, Owner.CODE, Category.TEST),
    ("bazel build //...", 33, Owner.PLATFORM, Category.INFRASTRUCTURE),
    ("bazel test //...", 37, Owner.UPSTREAM, Category.BUILD),
    ("bazelisk test //... --bes_backend=grpcs://bes.example", 38, Owner.PLATFORM, Category.TRANSIENT),
    ("bazel build --remote_cache=grpcs://cache.example //...", 39, Owner.PLATFORM, Category.TRANSIENT),
]


def test_every_ending_has_a_case() -> None:
    entries = yaml.safe_load(ENDINGS.read_text(encoding="utf-8"))["exit_codes"]
    assert [e["code"] for e in entries] == [c[1] for c in ENDING_CASES]


@pytest.mark.parametrize(
    ("command", "code", "owner", "kind"), ENDING_CASES, ids=[str(c[1]) for c in ENDING_CASES]
)
def test_how_the_step_ended(command: str, code: int, owner: Owner, kind: Category) -> None:
    diagnosis = diagnose(run_log(command, ["some output"], exit_code=code), job="ci")
    assert (diagnosis.owner, diagnosis.category) == (owner, kind)
    assert dict(diagnosis.decided_by)["ending"].startswith(f"exit code {code}:")


def test_an_exit_code_limited_to_a_tool_means_nothing_for_another() -> None:
    assert ending_of(4, "gh api user") is not None
    assert ending_of(4, "./scripts/check.sh") is None
    assert ending_of(124, "./slow.sh") is None


def test_a_cancelled_job_is_nobodys() -> None:
    log = run_log("pytest", ["##[error]The operation was canceled."])
    diagnosis = diagnose(log, job="test", conclusion="cancelled")
    assert (diagnosis.owner, diagnosis.action) == (Owner.NOBODY, Action.IGNORE)


def test_an_unknown_failure_of_a_step_that_is_no_code_check_goes_to_a_person() -> None:
    log = run_log("./scripts/sync-translations", ["sync: 3 strings out of date upstream"])
    assert diagnose(log, job="i18n").action is Action.ESCALATE
    # the job's name says it checks the code: the agent may try
    assert diagnose(log, job="lint").owner is Owner.CODE


def test_a_repositorys_own_rule_keeps_its_action_and_may_name_an_owner() -> None:
    rules = load_rules(
        [
            {
                "id": "acme.sync",
                "category": "lint",
                "match": "strings out of date",
                "action": "agent",
                "owner": "code",
            }
        ]
    )
    log = run_log("./scripts/sync-translations", ["sync: 3 strings out of date upstream"])
    diagnosis = diagnose(log, job="i18n", rules=rules)
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)
    assert "the repository's own rule" in dict(diagnosis.decided_by)["row"]


def test_the_owner_table_sends_only_the_code_to_a_change() -> None:
    assert OWNER_ACTIONS[Owner.CODE] is None  # the rule's own action: fix or agent
    for owner, action in OWNER_ACTIONS.items():
        if owner is not Owner.CODE:
            assert action in (Action.RERUN, Action.ESCALATE, Action.IGNORE), owner


def test_a_bad_ending_table_is_refused() -> None:
    with pytest.raises(ValueError, match="`doc` are required"):
        parse_endings({"exit_codes": [{"code": 1, "category": "test", "owner": "code"}]})
    with pytest.raises(ValueError, match="entry #1"):
        parse_endings({"exit_codes": [{"code": 1, "category": "test", "owner": "someone", "doc": "d"}]})


def test_a_file_of_the_checkout_that_does_not_parse_is_the_codes() -> None:
    log = run_log(
        "pip install -e .",
        [
            "Obtaining file:///home/runner/work/app/app",
            "  Installing build dependencies: started",
            "  × Getting requirements to build editable did not run successfully.",
            "  │ exit code: 1",
            "  ╰─> configuration error: `project.dependencies[2]` must be pep508",
            "      ValueError: invalid pyproject.toml config: `project.dependencies[2]`.",
        ],
    )
    diagnosis = diagnose(log, job="test")
    assert (diagnosis.category, diagnosis.owner, diagnosis.action) == (
        Category.CONFIG,
        Owner.CODE,
        Action.AGENT,
    )
    # a secret the workflow does not pass is the repository's, whatever step asks for it
    log = run_log("./deploy.sh", ["Error: Input required and not supplied: api-token"])
    diagnosis = diagnose(log, job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.REPOSITORY, Action.ESCALATE)


def test_a_script_of_the_checkout_naming_a_path_that_is_not_there_is_the_codes() -> None:
    """bash names the script file and line of the error: the script and the relative path it names are the
    pull request's tree, in an install step as in a check."""
    log = run_log(
        "./scripts/ci/install-deps.sh",
        [
            "Setting up libsnappy-dev (1.1.0-1ubuntu1) ...",
            "./scripts/ci/install-deps.sh: line 117: cd: ./scripts/travis: No such file or directory",
        ],
    )
    diagnosis = diagnose(log, job="install")
    assert (diagnosis.rule, diagnosis.owner, diagnosis.action) == (
        "config.checkout-script-path",
        Owner.CODE,
        Action.AGENT,
    )
    # a command the machine lacks is not a path of the checkout: other rules weigh it
    log = run_log(
        "./scripts/ci/install-deps.sh", ["./scripts/ci/install-deps.sh: line 9: protoc: command not found"]
    )
    assert diagnose(log, job="install").rule == "config.command-not-found"


def test_a_dependency_bot_job_that_cannot_auto_merge_is_the_repositorys() -> None:
    diagnosis = diagnose(BOT, job="auto-merge", workflow="Dependabot auto-merge")
    assert (diagnosis.purpose, diagnosis.owner, diagnosis.action) == (
        "dependency-bot",
        Owner.REPOSITORY,
        Action.ESCALATE,
    )


@pytest.mark.parametrize(
    ("command", "line", "owner", "action"),
    [
        pytest.param(
            "github/codeql-action/analyze@v3",
            "##[error]Code scanning is not enabled for this repository. "
            "Please enable code scanning in the repository settings.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="repository-setting",
        ),
        pytest.param(
            "cargo publish --dry-run",
            "error: failed to verify package tarball",
            Owner.CODE,
            Action.AGENT,
            id="cargo-package-does-not-build",
        ),
        pytest.param(
            "mvn -B verify sonar:sonar",
            "[ERROR] Failed to execute goal org.sonarsource.scanner.maven:sonar-maven-plugin:5.0.0.4389:"
            "sonar (default-cli) on project ingest: Not authorized. Analyzing this project requires "
            "authentication. Please check the user token in the property 'sonar.token'",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="sonar-token-refused",
        ),
        pytest.param(
            "mvn -B sonar:sonar",
            "[ERROR] Failed to execute goal org.sonarsource.scanner.maven:sonar-maven-plugin:5.0.0.4389:"
            "sonar (default-cli) on project wrenfield: Not authorized. Please check the user token in the "
            "property 'sonar.token' or the environment variable 'SONAR_TOKEN'. -> [Help 1]",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="sonar-token-missing",
        ),
        pytest.param(
            "mvn -B verify sonar:sonar",
            "[ERROR] Failed to execute goal org.sonarsource.scanner.maven:sonar-maven-plugin:5.0.0.4389:"
            "sonar (default-cli) on project mullion: Error status returned by url "
            "[https://api.sonarcloud.io/analysis/jres?os=linux&arch=x86_64]: 401 -> [Help 1]",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="sonar-bootstrap-401",
        ),
        pytest.param(
            "./gradlew sonar",
            "Failed to query JRE metadata: GET https://api.sonarcloud.io/analysis/jres?os=linux&arch=x86_64 "
            "failed with HTTP 403 Forbidden. Please check the property sonar.token or the environment "
            "variable SONAR_TOKEN.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="sonar-jre-metadata-403",
        ),
        pytest.param(
            "./gradlew jib --image=registry-1.docker.io/acme/api:pr",
            "> com.google.cloud.tools.jib.plugins.common.BuildStepsExecutionException: Build image failed, "
            "perhaps you should make sure your credentials for 'registry-1.docker.io/acme/api' are set up "
            "correctly. See https://github.com/GoogleContainerTools/jib/blob/master/docs/faq.md#what-should-"
            "i-do-when-the-registry-responds-with-unauthorized for help",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="jib-credentials",
        ),
        pytest.param(
            "govulncheck ./...",
            "Vulnerability #1: GO-2026-3371\n    Request smuggling in golang.org/x/net/http2\n"
            "  Module: golang.org/x/net\n    Found in: golang.org/x/net@v0.33.0\n"
            "    Fixed in: golang.org/x/net@v0.36.0\n\n"
            "Your code is affected by 1 vulnerability from 1 module.",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="govulncheck-advisory",
        ),
        pytest.param(
            "dotnet build -warnaserror",
            "/home/runner/work/app/app/src/Web/Web.csproj : error NU1903: Warning As Error: Package "
            "'System.Text.Json' 8.0.4 has a known high severity vulnerability, "
            "https://github.com/advisories/GHSA-8g4q-xg66-9fp4",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="nuget-audit-advisory",
        ),
        pytest.param(
            "docker push ghcr.io/acme/notifier:1.4.0",
            "The push refers to repository [ghcr.io/acme/notifier]\nreceived unexpected HTTP status: 500 "
            "Internal Server Error",
            Owner.PLATFORM,
            Action.RERUN,
            id="registry-5xx-on-push",
        ),
        pytest.param(
            "gh release upload v2.3.0 dist/relay.tar.gz",
            "HTTP 502: Server Error (https://uploads.github.com/repos/acme/relay/releases/188412/assets?name=r)",
            Owner.PLATFORM,
            Action.RERUN,
            id="github-5xx-on-release-upload",
        ),
        pytest.param(
            "npx vercel deploy --prebuilt --token=$VERCEL_TOKEN",
            "Uploading [====================] (4.2MB/4.2MB)\n"
            "Error: Unexpected error. Please try again later. (500)",
            Owner.PLATFORM,
            Action.RERUN,
            id="vercel-5xx-on-deploy",
        ),
        pytest.param(
            "kind create cluster --wait 120s",
            " ✗ Preparing nodes 📦\nERROR: failed to create cluster: could not find a log line that matches "
            '"Reached target .*Multi-User System.*|detected cgroup v1"',
            Owner.PLATFORM,
            Action.RERUN,
            id="kind-node-did-not-boot",
        ),
        pytest.param(
            "twine check dist/*",
            "Checking dist/app-1.2.0-py3-none-any.whl: ERROR    InvalidDistribution: Metadata is missing "
            "required fields: Name, Version.",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="twine-too-old-for-metadata-2.4",
        ),
        pytest.param(
            "actions/setup-python@v6",
            "Version 3.1 was not found in the local cache\n"
            "##[error]The version '3.1' with architecture 'x64' was not found for Ubuntu 24.04.",
            Owner.CODE,
            Action.AGENT,
            id="python-3.10-read-as-a-float",
        ),
        pytest.param(
            "actions/setup-python@v6",
            "##[error]The version '3.19' with architecture 'x64' was not found for Ubuntu 24.04.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="python-version-not-built",
        ),
        pytest.param(
            "bundle install --jobs=3",
            "Gem::RuntimeRequirementNotMetError: public_suffix requires Ruby version >= 2.3. The current "
            "ruby version is 2.2.0.\n"
            "An error occurred while installing public_suffix (4.0.3), and Bundler cannot continue.",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="gem-needs-a-newer-ruby",
        ),
        pytest.param(
            "flake8 src tests",
            "flake8.exceptions.FailedToLoadPlugin: Flake8 failed to load plugin \"Q0\" due to module 'ast' "
            "has no attribute 'Str'.",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="flake8-plugin-does-not-load",
        ),
        pytest.param(
            "flake8 src tests",
            "There was a critical error during execution of Flake8:\n"
            "plugin code for `flake8-bugbear[B]` does not match ^[A-Z]{1,3}[0-9]{0,3}$",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="flake8-plugin-code-refused",
        ),
        pytest.param(
            "npm test",
            "Error: yargs parser supports a minimum Node.js version of 10. Read our version support policy: "
            "https://github.com/yargs/yargs-parser#supported-nodejs-versions",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="library-needs-a-newer-node",
        ),
        pytest.param(
            "python -m build",
            "ValueError: Dependency #3 of field `project.dependencies` is invalid: Expected matching "
            "RIGHT_PARENTHESIS for LEFT_PARENTHESIS, after version specifier\n    httpx (>=0.27\n",
            Owner.CODE,
            Action.AGENT,
            id="pyproject-dependency-invalid",
        ),
        pytest.param(
            "python -m build",
            "* Getting build dependencies for sdist...\n"
            "ValueError: Unknown classifier in field `project.classifiers`: "
            "Programming Language :: Python :: 3.15\n"
            "ERROR Backend subprocess exited when trying to invoke get_requires_for_build_sdist",
            Owner.CODE,
            Action.AGENT,
            id="pyproject-classifier-unknown",
        ),
        pytest.param(
            "towncrier check --compare-with origin/main",
            "Looking at these files:\n----\nsrc/app/cli.py\n----\nNo new newsfragments found on this branch.",
            Owner.METADATA,
            Action.ESCALATE,
            id="towncrier-no-news-fragment",
        ),
        pytest.param(
            "npx changeset status --since=origin/main",
            "🦋  error Some packages have been changed but no changesets were found. Run `changeset add` to "
            "resolve this error.",
            Owner.METADATA,
            Action.ESCALATE,
            id="changesets-none-found",
        ),
        pytest.param(
            "npx changeset status --since=origin/main",
            "🦋  error Error: Found changeset brave-owls-sing for package @acme/tokenz which is not in the "
            "workspace\n🦋  error     at mapGetOrThrow (/home/runner/work/a/a/node_modules/@changesets/"
            "assemble-release-plan/dist/changesets-assemble-release-plan.cjs.js:68:11)",
            Owner.CODE,
            Action.AGENT,
            id="a-changeset-naming-a-package-the-workspace-does-not-have",
        ),
        pytest.param(
            "pytest -q",
            "FAILED tests/test_release.py::test_notes - AssertionError: assert 'Added' in ''\n"
            "1 failed, 9 passed",
            Owner.CODE,
            Action.AGENT,
            id="a-changelog-tool-under-test-stays-the-codes",
        ),
        pytest.param(
            "mvn -B -q dependency:go-offline",
            "[ERROR] Plugin org.apache.maven.plugins:maven-surefire-plugin:2.22.2 or one of its dependencies "
            "could not be resolved: Failed to transfer file https://repo.maven.apache.org/maven2/org/apache/maven/"
            "plugins/maven-surefire-plugin/2.22.2/maven-surefire-plugin-2.22.2.pom with status code 502",
            Owner.PLATFORM,
            Action.RERUN,
            id="maven-wagon-502",
        ),
        pytest.param(
            "make test",
            "##[error]No runner matching the specified labels was found: self-hosted, linux, arm64-large.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="no-runner-with-the-labels",
        ),
        pytest.param(
            "docker compose -f compose.yaml config -q",
            "validating /home/runner/work/stack/stack/compose.yaml: services.worker.depends_on.db.condition "
            'must be one of the following: "service_started", "service_healthy", '
            '"service_completed_successfully"',
            Owner.CODE,
            Action.AGENT,
            id="compose-file-invalid",
        ),
        pytest.param(
            "docker compose -f compose.yaml -f compose.ci.yaml up -d --wait",
            'service "api" depends on undefined service "postgres": invalid compose project',
            Owner.CODE,
            Action.AGENT,
            id="compose-depends-on-undefined-service",
        ),
        pytest.param(
            "npx wrangler deploy",
            "✘ [ERROR] A request to the Cloudflare API (/accounts/***/workers/scripts/api) failed.\n\n"
            "  Internal Server Error [code: 10013]",
            Owner.PLATFORM,
            Action.RERUN,
            id="cloudflare-api-server-error",
        ),
        pytest.param(
            "go test ./...",
            "ok  \tgithub.com/acme/leafdb/wal\t4.474s\nsignal: killed\n"
            "FAIL\tgithub.com/acme/leafdb/compact\t212.004s",
            Owner.PLATFORM,
            Action.RERUN,
            id="go-test-binary-killed",
        ),
        pytest.param(
            "go test ./...",
            "--- FAIL: TestCompact (0.20s)\n    compact_test.go:12: got 3, want 4\nsignal: killed\n"
            "FAIL\tgithub.com/acme/leafdb/compact\t1.004s",
            Owner.CODE,
            Action.AGENT,
            id="a-go-test-that-failed-before-the-kill-stays-the-codes",
        ),
        pytest.param(
            "docker build -t app .",
            "#2 ERROR: docker.io/library/python:3.14-slim-bookwurm: not found",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="base-image-tag-not-served-is-upstreams-until-the-changes-say-the-pull-request-named-it",
        ),
        pytest.param(
            "./scripts/wait-for-pg.sh && go test -tags integration ./...",
            "Waiting for postgres at localhost:5432 ...\npg_isready: localhost:5432 - no response\n"
            "postgres did not become ready in 60s",
            Owner.PLATFORM,
            Action.RERUN,
            id="postgres-service-never-answered",
        ),
        pytest.param(
            "pytest -q",
            "localhost:5432 - no response\nFAILED tests/test_db.py::test_migrate - AssertionError: 3 != 4\n"
            "1 failed, 20 passed in 2.00s",
            Owner.CODE,
            Action.AGENT,
            id="a-test-failure-beside-a-late-database",
        ),
        pytest.param(
            "terraform plan -input=false",
            "│ Error: configuring Terraform AWS Provider: validating provider credentials: retrieving caller "
            "identity from STS: operation error STS: GetCallerIdentity, https response error StatusCode: 403",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="terraform-aws-sts-refused",
        ),
        pytest.param(
            "terraform init -input=false",
            "│ Error: error configuring S3 Backend: no valid credential sources for S3 Backend found.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="terraform-s3-backend-no-credentials",
        ),
        pytest.param(
            "terraform init -input=false",
            "│ Error: failed to refresh cached credentials, operation error STS: AssumeRole, https response "
            "error StatusCode: 403, RequestID: 5b2e, api error ExpiredToken: The security token included in "
            "the request is expired",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="aws-sdk-go-expired-token",
        ),
        pytest.param(
            "bundle install --jobs=3 --retry=3",
            "Gem::RemoteFetcher::UnknownHostError: timed out (https://rubygems.org/gems/nokogiri-1.10.10.gem)\n"
            "An error occurred while installing nokogiri (1.10.10), and Bundler cannot continue.",
            Owner.PLATFORM,
            Action.RERUN,
            id="rubygems-host-unresolved",
        ),
        pytest.param(
            "bundle install",
            "Gem::RemoteFetcher::FetchError: Net::OpenTimeout: execution expired "
            "(https://rubygems.org/gems/rake-13.0.6.gem)",
            Owner.PLATFORM,
            Action.RERUN,
            id="rubygems-fetch-timed-out",
        ),
        pytest.param(
            "python -m build",
            "Error compiling Cython file:\n------------------------------------------------------------\n"
            "cdef int f(x):\n    return y\n           ^\n"
            "------------------------------------------------------------\n"
            "src/fast.pyx:4:11: undeclared name not builtin: y",
            Owner.CODE,
            Action.AGENT,
            id="cython-compile-error",
        ),
        pytest.param(
            "pip install -r docs/requirements.txt",
            "  WARNING: Retrying (Retry(total=0, connect=None, read=None, redirect=None, status=None)) after "
            "connection broken by 'ConnectTimeoutError(<pip._vendor.urllib3.connection.HTTPSConnection "
            "object at 0x7f2c>, 'Connection to pypi.org timed out. (connect timeout=15)')': /simple/sphinx/\n"
            "ERROR: Could not find a version that satisfies the requirement sphinx>=7 (from versions: none)\n"
            "ERROR: No matching distribution found for sphinx>=7",
            Owner.PLATFORM,
            Action.RERUN,
            id="pip-index-timed-out",
        ),
        pytest.param(
            "terraform init -backend=false",
            "│ Error: Failed to query available provider packages\n│ \n│ Could not retrieve the list of "
            "available versions for provider hashicorp/aws: could not connect to registry.terraform.io: "
            "failed to request discovery document",
            Owner.PLATFORM,
            Action.RERUN,
            id="terraform-registry-unreachable",
        ),
        pytest.param(
            "codecov upload-process --fail-on-error -f coverage.xml",
            "error - 2026-11-14 10:12:04,901 -- Commit creating failed: "
            '{"message":"Token required - not valid tokenless upload"}',
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="codecov-cli-tokenless-refused",
        ),
        pytest.param(
            "cargo test --all",
            "  [28] Timeout was reached (Connection timed out after 30001 milliseconds)",
            Owner.PLATFORM,
            Action.RERUN,
            id="cargo-transfer-timed-out",
        ),
        pytest.param(
            "sudo apt-get install -y libboost-all-dev",
            "E: Failed to fetch http://archive.ubuntu.com/ubuntu/pool/main/b/boost1.65.1/"
            "libboost1.65-dev_1.65.1+dfsg-0ubuntu5_amd64.deb  404  Not Found [IP: 91.189.88.152 80]",
            Owner.CODE,
            Action.AGENT,
            id="apt-index-stale",
        ),
        # the same 404 just after the command refreshed the index: a mirror whose sync is under way
        pytest.param(
            "sudo apt-get update && sudo apt-get install -y libgdal-dev",
            "E: Failed to fetch http://azure.archive.ubuntu.com/ubuntu/pool/universe/g/gdal/"
            "libgdal34t64_3.8.4%2bdfsg-3ubuntu3.1_amd64.deb  404  Not Found [IP: 40.81.13.82 80]\n"
            "E: Unable to fetch some archives, maybe run apt-get update or try with --fix-missing?",
            Owner.PLATFORM,
            Action.RERUN,
            id="apt-mirror-mid-sync",
        ),
        # the same when a tool ran apt-get update in the step (Playwright's --with-deps), as its output shows
        pytest.param(
            "npx playwright install --with-deps",
            "Installing dependencies...\n"
            "Get:1 http://azure.archive.ubuntu.com/ubuntu noble InRelease [256 kB]\n"
            "Reading package lists...\n"
            "E: Failed to fetch http://azure.archive.ubuntu.com/ubuntu/pool/main/libx/libxslt/"
            "libxslt1.1_1.1.39-0exp1ubuntu0.24.04.1_amd64.deb  404  Not Found [IP: 40.81.13.82 80]\n"
            "E: Unable to fetch some archives, maybe run apt-get update or try with --fix-missing?",
            Owner.PLATFORM,
            Action.RERUN,
            id="apt-mirror-mid-sync-updated-by-a-tool",
        ),
        pytest.param(
            "sudo apt-get install -y libboost-all-dev",
            "E: Failed to fetch http://archive.ubuntu.com/ubuntu/pool/main/b/boost/libboost-dev.deb  "
            "Connection failed [IP: 91.189.88.152 80]",
            Owner.PLATFORM,
            Action.RERUN,
            id="apt-mirror-unreachable",
        ),
        pytest.param(
            "actions/cache/restore@v4",
            "##[error]Failed to restore cache entry. Exiting as fail-on-cache-miss is set. "
            "Input key: models-v3",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="required-cache-entry-missing",
        ),
        pytest.param(
            "conda env create -f environment.yml",
            "PackagesNotFoundError: The following packages are not available from current channels:",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="conda-channels-without-the-pins",
        ),
        pytest.param(
            "coverallsapp/github-action@v2",
            "🚨 Error: Coveralls API returned 422: "
            '{"message":"Couldn\'t find a repository matching this job.","error":true}',
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="coverage-service-without-the-repository",
        ),
        pytest.param(
            "pip install -r requirements.txt --index-url https://pypi.acme.internal/simple",
            "ERROR: HTTP error 401 while getting https://pypi.acme.internal/simple/acme-core/",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="private-index-401",
        ),
        pytest.param(
            "docker buildx build --platform linux/arm64 .",
            'ERROR: failed to solve: process "/bin/sh -c '
            'cargo build --release" did not complete successfully: exit code: 137',
            Owner.PLATFORM,
            Action.RERUN,
            id="buildkit-137",
        ),
        pytest.param(
            "github/codeql-action/init@v3",
            "##[error]Unable to get ACTIONS_ID_TOKEN_REQUEST_URL env variable",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="oidc-permission",
        ),
        pytest.param(
            "actions/upload-artifact@v4",
            "##[error]Failed to CreateArtifact: Artifact storage quota has been hit. Unable to upload any "
            "new artifacts. Usage is recalculated every 6-12 hours.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="artifact-quota",
        ),
        pytest.param(
            "./scripts/publish-docs.sh",
            "./scripts/publish-docs.sh: line 4: DOCS_DEPLOY_TOKEN: unbound variable",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="secret-unset",
        ),
        pytest.param(
            "./test-startup.sh",
            "/opt/emacs/bin/emacs: error while loading shared libraries: libgnutls.so.26: cannot open shared "
            "object file: No such file or directory",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="shared-library-missing",
        ),
        pytest.param(
            "swift build && swift test",
            "The program 'swift' is currently not installed. To run 'swift' please ask your administrator to "
            "install the package 'python-swiftclient'",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="program-not-installed",
        ),
        pytest.param(
            "npx commitlint --from origin/main --to HEAD",
            "✖   subject may not be empty [subject-empty]",
            Owner.METADATA,
            Action.ESCALATE,
            id="commit-message",
        ),
        pytest.param(
            "actions/deploy-pages@v4",
            '##[error]Branch "feat/nav" is not allowed to deploy to github-pages due to environment '
            "protection "
            "rules.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="environment-protection",
        ),
        pytest.param(
            "ruby/setup-ruby@v1",
            "##[error]Error: Unknown version 2.6 for ruby on ubuntu-24.04",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="setup-ruby-version",
        ),
        pytest.param(
            "erlef/setup-beam@v1",
            "##[error]Requested Erlang/OTP version (23.3) not found in version list (should you be using "
            "option 'version-type': 'strict'?)",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="setup-beam-version",
        ),
        pytest.param(
            "codecov/codecov-action@v5",
            'error - 2026-10-11 12:01:13,911 -- Commit creating failed: {"message":"Token required because '
            'branch is protected"}',
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="codecov-token",
        ),
        pytest.param(
            "terraform plan -input=false",
            "│ Error: No valid credential sources found",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="cloud-credentials-missing",
        ),
        pytest.param(
            "bundle exec srb tc",
            "lib/trellis/router.rb:52: Expected `Symbol` but found `T.nilable(Symbol)` for argument `name` "
            "https://srb.help/7002",
            Owner.CODE,
            Action.AGENT,
            id="sorbet",
        ),
        pytest.param(
            "npm run build",
            "[!] RollupError: src/embed/iframe.ts (23:14): Expected ';', '}' or <eof>",
            Owner.CODE,
            Action.AGENT,
            id="rollup",
        ),
        pytest.param(
            "ruby/setup-ruby@v1",
            'Your bundle only supports platforms ["arm64-darwin-24"] but your local platform is '
            "x86_64-linux.",
            Owner.CODE,
            Action.AGENT,
            id="setup-ruby-installs-the-lock-file",
        ),
        pytest.param(
            "lychee --no-progress './**/*.md'",
            "[429] https://api.example.com/docs | Network error: Too Many Requests",
            Owner.PLATFORM,
            Action.RERUN,
            id="link-checker-rate-limited",
        ),
        pytest.param(
            "pytest tests/integration -q",
            "FAILED tests/integration/test_live.py::test_forecast - requests.exceptions.ConnectionError: "
            "HTTPSConnectionPool(host='api.example.com', port=443): Max retries exceeded",
            Owner.PLATFORM,
            Action.RERUN,
            id="tests-failed-only-on-the-network",
        ),
        pytest.param(
            "pytest tests/integration -q",
            "ERROR tests/integration/test_orders.py::test_insert - psycopg2.OperationalError: connection to "
            'server at "localhost" (127.0.0.1), port 5432 failed: Connection refused',
            Owner.PLATFORM,
            Action.RERUN,
            id="tests-failed-only-on-the-jobs-database",
        ),
        pytest.param(
            "pytest -q",
            "FAILED tests/test_cache.py::test_hit - redis.exceptions.ConnectionError: Error 111 connecting "
            "to localhost:6379. Connection refused.",
            Owner.PLATFORM,
            Action.RERUN,
            id="tests-failed-only-on-the-jobs-redis",
        ),
        pytest.param(
            "pytest -q",
            "FAILED tests/test_db.py::test_schema - sqlalchemy.exc.OperationalError: "
            "(sqlite3.OperationalError) no such table: orders",
            Owner.CODE,
            Action.AGENT,
            id="a-database-error-that-is-no-connection-is-the-codes",
        ),
        pytest.param(
            "rustup toolchain install beta --profile minimal",
            "error: component download failed for rustc-x86_64-unknown-linux-gnu: could not download file "
            "from "
            "'https://static.rust-lang.org/dist/2026-11-20/rustc-beta-x86_64-unknown-linux-gnu.tar.xz' to "
            "'/home/runner/.rustup/downloads/x.partial'",
            Owner.PLATFORM,
            Action.RERUN,
            id="rustup-download",
        ),
        pytest.param(
            "cargo build --locked",
            "error: internal compiler error: compiler/rustc_middle/src/ty/layout.rs:1012:21: unexpected type",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="rustc-ice",
        ),
        pytest.param(
            "cargo +nightly build --all-features",
            "   Compiling yew-nightly v0.4.0 (/home/runner/work/y/y)\n"
            "thread 'rustc' panicked at compiler/rustc_middle/src/ty/instance.rs:612:21:\n"
            "failed to resolve instance for <T as Trait>::call\n"
            "error: could not compile `yew-nightly` (lib)",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="rustc-panicked",
        ),
        pytest.param(
            "mypy marigold_etl",
            "marigold_etl/transform.py:112: error: INTERNAL ERROR -- Please try using mypy master on GitHub:",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="mypy-crash",
        ),
        pytest.param(
            "sphinx-build -W -b html docs docs/_build",
            "intersphinx inventory 'https://docs.sqlalchemy.org/en/20/objects.inv' not fetchable due to "
            "<class 'requests.exceptions.ConnectionError'>: HTTPSConnectionPool(host='docs.sqlalchemy.org', "
            "port=443)",
            Owner.PLATFORM,
            Action.RERUN,
            id="intersphinx-unreachable",
        ),
        pytest.param(
            "make -j8",
            "g++: fatal error: Killed signal terminated program cc1plus",
            Owner.PLATFORM,
            Action.RERUN,
            id="compiler-killed",
        ),
        pytest.param(
            "make test",
            "curl: (22) The requested URL returned error: 403 Forbidden",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="server-refused-in-a-check",
        ),
        pytest.param(
            "docker/build-push-action@v6",
            "##[error]buildx failed with: ERROR: failed to solve: failed to "
            "parse error response 400: <h2>Our services aren't available right now</h2>",
            Owner.PLATFORM,
            Action.RERUN,
            id="github-outage-page",
        ),
        pytest.param(
            "go build ./...",
            "SECURITY ERROR\nThis download does NOT match an earlier download recorded in go.sum.",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="go-checksum-mismatch",
        ),
        pytest.param(
            "pip install --require-hashes -r requirements.txt",
            "ERROR: Hashes are required in --require-hashes mode, but they are missing from some "
            "requirements.",
            Owner.CODE,
            Action.AGENT,
            id="pip-hash-missing-for-a-new-requirement",
        ),
        pytest.param(
            "pip install --extra-index-url https://pkgs.acme.dev/simple -r requirements.txt",
            "ERROR: 401 Error, Credentials not correct for https://pkgs.acme.dev/simple/acme-auth/",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="pip-credentials-not-correct",
        ),
        pytest.param(
            "composer install --no-interaction",
            "  The 'https://repo.packagist.com/acme/packages.json' URL required authentication.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="composer-authentication",
        ),
        pytest.param(
            "composer install --no-interaction",
            "    Failed to download acme/sdk from dist: The 'https://repo.packagist.com/acme/dists/acme/sdk/2.4.0.0/"
            "ref.zip' URL required authentication (HTTP 401).\n"
            "You must be using the interactive console to authenticate",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="composer-2-authentication-with-status",
        ),
        pytest.param(
            "bundle install",
            "Authentication is required for gems.acme.dev. Please supply credentials for this source.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="bundler-authentication",
        ),
        pytest.param(
            "yarn install --immutable",
            "➤ YN0041: │ Invalid authentication (as an anonymous user)",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="yarn-authentication",
        ),
        pytest.param(
            "dotnet restore",
            "error NU1301: Unable to load the service index for source https://nuget.pkg.github.com/acme/index.json."
            " Response status code does not indicate success: 401 (Unauthorized).",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="nuget-401",
        ),
        pytest.param(
            "cmake --preset ci && cmake --build --preset ci",
            "  Response status code does not indicate success: 403 (Forbidden).\n"
            "error: vcpkg was unable to restore binary caches from NuGet source. Exiting because "
            "`x-binarysource` was configured with `readwrite` and authentication failed:",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="nuget-403-binary-cache",
        ),
        pytest.param(
            "cargo publish",
            "error: no token found, please run `cargo login`",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="cargo-no-token",
        ),
        pytest.param(
            "nvidia-smi",
            "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that "
            "the latest NVIDIA driver is installed and running.",
            Owner.PLATFORM,
            Action.RERUN,
            id="gpu-driver-unreachable",
        ),
        pytest.param(
            "python -c 'import torch; torch.zeros(1).cuda()'",
            "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version",
            Owner.PLATFORM,
            Action.RERUN,
            id="gpu-driver-too-old",
        ),
        pytest.param(
            "./scripts/pr-checks.sh",
            'PR title "fix stuff" does not match the required pattern',
            Owner.METADATA,
            Action.ESCALATE,
            id="pull-request-title",
        ),
        pytest.param(
            "./scripts/pr-checks.sh",
            'This pull request does not reference an issue. Add "Fixes #123" to its description.',
            Owner.METADATA,
            Action.ESCALATE,
            id="pull-request-without-a-linked-issue",
        ),
        pytest.param(
            "mvn -B deploy -P release",
            "gpg: signing failed: No secret key",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="gpg-without-the-key",
        ),
        pytest.param(
            "./gradlew signArchives",
            "gpg: signing failed: Inappropriate ioctl for device",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="gpg-without-a-terminal-for-the-passphrase",
        ),
        pytest.param(
            "composer install --no-interaction --prefer-dist",
            "Authentication required (nova.laravel.com):\n"
            "Invalid credentials (HTTP 401) for 'https://nova.laravel.com/packages.json', aborting.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="composer-2-private-repository-refuses-the-credentials",
        ),
        pytest.param(
            "bundle exec fastlane ios beta",
            "[10:02:14]: Invalid password passed via 'MATCH_PASSWORD'\n"
            "[10:02:14]: fastlane finished with errors",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="fastlane-match-password-that-does-not-decrypt",
        ),
        pytest.param(
            'xcrun notarytool submit App.zip --apple-id "$APPLE_ID" --password "$APP_PASSWORD" --wait',
            "Error: HTTP status code: 401. Invalid credentials. Username or password is incorrect. Use the "
            "app-specific password generated at appleid.apple.com. Ensure that all authentication arguments "
            "are correct.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="notarytool-refuses-the-app-specific-password",
        ),
        pytest.param(
            "bundle exec fastlane release",
            "[!] The request could not be completed because:\n\tAuthentication credentials are missing or "
            "invalid. - Provide a properly configured and signed bearer token, and make sure that it has not "
            "expired.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="app-store-connect-refuses-the-api-key",
        ),
        pytest.param(
            "pip install -r requirements.txt",
            "Collecting acme-internal==4.2.0 (from -r requirements.txt (line 9))\n"
            "  User for pkgs.example.org: ERROR: Exception:\n"
            "Traceback (most recent call last):\n"
            '  File "/usr/lib/python3/site-packages/pip/_internal/utils/misc.py", line 181, in ask_input\n'
            "    return input(message)\n"
            "EOFError: EOF when reading a line",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="pip-prompting-for-a-private-indexs-user-with-no-terminal",
        ),
        pytest.param(
            'echo "$GPG_PRIVATE_KEY" | gpg --batch --import',
            "gpg: no valid OpenPGP data found.\ngpg: Total number processed: 0",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="gpg-import-of-an-empty-key-secret",
        ),
        pytest.param(
            "dotnet restore",
            "/usr/share/dotnet/sdk/8.0.100/NuGet.targets(156,5): error : Unable to load the service index "
            "for source https://api.nuget.org/v3/index.json. [/home/runner/work/x/x/x.sln]",
            Owner.PLATFORM,
            Action.RERUN,
            id="nuget-feed-unreachable",
        ),
        pytest.param(
            "composer install",
            '    Failed to download symfony/console from dist: The "https://api.github.com/repos/symfony/console/'
            'zipball/abc" file could not be downloaded (HTTP/2 429 )',
            Owner.PLATFORM,
            Action.RERUN,
            id="http-status-line-429",
        ),
        pytest.param(
            "make -j4",
            "src/tmpl.cpp:40:1: internal compiler error: Segmentation fault",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="gcc-internal-compiler-error",
        ),
        pytest.param(
            "make -j4",
            "src/big.cpp:900:1: internal compiler error: Killed (program cc1plus)",
            Owner.PLATFORM,
            Action.RERUN,
            id="gcc-killed-is-the-runners-memory-not-a-compiler-bug",
        ),
        pytest.param(
            "cmake --build build",
            "PLEASE submit a bug report to https://github.com/llvm/llvm-project/issues/ and include the "
            "crash backtrace, preprocessed source, and associated run script.",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="clang-crash",
        ),
        pytest.param(
            "cmake -B build -S .",
            "  No CMAKE_CXX_COMPILER could be found.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="cmake-no-compiler-on-the-runner",
        ),
        pytest.param(
            "cmake -S . -B build -G Ninja",
            'CMake Error: CMake was unable to find a build program corresponding to "Ninja".  '
            "CMAKE_MAKE_PROGRAM is not set.  You probably need to select a different build tool.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="cmake-no-build-program",
        ),
        pytest.param(
            "cmake -B build-arm -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake",
            "CMake Error at CMakeLists.txt:2 (project):\n  The CMAKE_C_COMPILER:\n\n"
            "    aarch64-linux-gnu-gcc\n\n  is not a full path and was not found in the PATH.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="cmake-toolchain-compiler-missing",
        ),
        pytest.param(
            "cmake -B build -DWITH_CUDA=ON",
            "CMake Error at /usr/share/cmake-3.22/Modules/CMakeDetermineCUDACompiler.cmake:179 (message):\n"
            "  Failed to find nvcc.\n\n"
            "  Compiler requires the CUDA toolkit.  Please set the CUDAToolkit_ROOT\n"
            "  variable.\n-- Configuring incomplete, errors occurred!",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="cmake-finds-no-cuda-toolkit-on-the-runner",
        ),
        pytest.param(
            "mvn -B package",
            "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-compiler-plugin:3.11.0:compile "
            "(default-compile) on project app: Fatal error compiling: error: invalid target release: 21 "
            "-> [Help 1]",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="maven-compiler-invalid-target-release",
        ),
        pytest.param(
            "mvn -B package",
            "[ERROR] Failed to execute goal on project app: Could not resolve dependencies for project "
            "com.example:app:jar:1.0: Could not transfer artifact com.google.guava:guava:pom:33.0.0-jre "
            "from/to central (https://repo.maven.apache.org/maven2): Connection timed out -> [Help 1]",
            Owner.PLATFORM,
            Action.RERUN,
            id="maven-transfer-connection-timed-out",
        ),
        pytest.param(
            "./gradlew build",
            "      > No matching toolchains found for requested specification: {languageVersion=21, "
            "vendor=any, implementation=vendor-specific} for LINUX on x86_64.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="gradle-no-matching-toolchain",
        ),
        pytest.param(
            "dotnet build",
            "/usr/share/dotnet/sdk/6.0.428/Sdks/Microsoft.NET.Sdk/targets/Microsoft.NET.TargetFrameworkInference"
            ".targets(144,5): error NETSDK1045: The current .NET SDK does not support targeting .NET 8.0.  "
            "Either target .NET 6.0 or lower, or use a version of the .NET SDK that supports .NET 8.0.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="dotnet-sdk-too-old-netsdk1045",
        ),
        pytest.param(
            "dotnet build",
            "      A compatible .NET SDK was not found.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="dotnet-sdk-of-global-json-not-installed",
        ),
        pytest.param(
            "cargo build --target wasm32-unknown-unknown",
            "  = note: the `wasm32-unknown-unknown` target may not be installed",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="rust-target-not-installed",
        ),
        pytest.param(
            "cargo build",
            "error: linker `cc` not found",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="rust-linker-not-found",
        ),
        pytest.param(
            "tox -e py38",
            "py38: skipped because could not find python interpreter with spec(s): py38",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="tox-interpreter-not-found",
        ),
        pytest.param(
            "nox -s tests-3.8",
            "nox > Session tests-3.8 failed: Python interpreter 3.8 not found.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="nox-interpreter-not-found",
        ),
        pytest.param(
            "poetry install",
            "The currently activated Python version 3.8.18 is not supported by the project (^3.10).",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="poetry-python-not-supported",
        ),
        pytest.param(
            "bundle install",
            "Your Ruby version is 3.1.4, but your Gemfile specified 3.3.0",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="bundler-ruby-version",
        ),
        pytest.param(
            "mix test",
            "** (Mix) You're trying to run :app on Elixir v1.14.5 but it has declared in its mix.exs file it "
            "supports only Elixir ~> 1.16",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="mix-elixir-version",
        ),
        pytest.param(
            "composer install",
            "    - Root composer.json requires php ^8.3 but your php version (8.1.2) does not satisfy that "
            "requirement.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="composer-root-php-version",
        ),
        pytest.param(
            "golangci-lint run",
            "Error: can't load config: the Go language version (go1.22) used to build golangci-lint is lower "
            "than the targeted Go version (1.23.0)",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="golangci-lint-built-with-an-older-go",
        ),
        pytest.param(
            "bazel build //...",
            "Error in download_and_extract: java.io.IOException: Error downloading "
            "[https://github.com/bazelbuild/rules_go/releases/download/v0.50.1/rules_go-v0.50.1.zip] to "
            "/home/runner/.cache/bazel/external/rules_go/temp.zip: Connect timed out",
            Owner.PLATFORM,
            Action.RERUN,
            id="bazel-download-timed-out",
        ),
        pytest.param(
            "./gradlew build",
            'Exception in thread "main" java.net.UnknownHostException: services.gradle.org',
            Owner.PLATFORM,
            Action.RERUN,
            id="gradle-wrapper-download-unknown-host",
        ),
        pytest.param(
            "xcodebuild -scheme App archive",
            '/Users/runner/work/app/app/App.xcodeproj: error: No signing certificate "iOS Distribution" '
            'found: No "iOS Distribution" signing certificate matching team ID "ABCDE12345" with a private '
            "key was found.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="xcode-no-signing-certificate",
        ),
        pytest.param(
            "xcodebuild -version",
            "xcode-select: error: tool 'xcodebuild' requires Xcode, but active developer directory "
            "'/Library/Developer/CommandLineTools' is a command line tools instance",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="xcode-select-command-line-tools",
        ),
        pytest.param(
            "flutter pub get",
            "Got socket error trying to find package http at https://pub.dev.",
            Owner.PLATFORM,
            Action.RERUN,
            id="pub-socket-error",
        ),
        pytest.param(
            "mix deps.get",
            '** (Mix) httpc request failed with: {:failed_connect, [{:to_address, {~c"repo.hex.pm", 443}}, '
            "{:inet, [:inet], :etimedout}]}",
            Owner.PLATFORM,
            Action.RERUN,
            id="hex-failed-connect",
        ),
        pytest.param(
            "cabal build",
            " ConnectionTimeout",
            Owner.PLATFORM,
            Action.RERUN,
            id="cabal-connection-timeout",
        ),
        pytest.param(
            "composer install",
            "    Failed to download symfony/console from dist: curl error 28 while downloading "
            "https://api.github.com/repos/symfony/console/zipball/abc: Operation timed out after 300000 ms",
            Owner.PLATFORM,
            Action.RERUN,
            id="composer-curl-error-28",
        ),
        pytest.param(
            "bundle install",
            "Could not fetch specs from https://rubygems.org/ due to underlying error <Net::OpenTimeout: "
            "Failed to open TCP connection to rubygems.org:443 (execution expired)>",
            Owner.PLATFORM,
            Action.RERUN,
            id="bundler-open-timeout",
        ),
        pytest.param(
            "dotnet restore",
            "/usr/share/dotnet/sdk/8.0.404/NuGet.targets(174,5): error : The HTTP request to 'GET "
            "https://api.nuget.org/v3-flatcontainer/newtonsoft.json/index.json' has timed out after "
            "100000ms.",
            Owner.PLATFORM,
            Action.RERUN,
            id="nuget-http-timeout",
        ),
        pytest.param(
            "npx playwright test",
            "Host system is missing dependencies to run browsers.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="playwright-host-dependencies",
        ),
        pytest.param(
            "npx tsc --noEmit",
            "Error: Debug Failure. False expression.",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="typescript-debug-failure",
        ),
        pytest.param(
            "flutter pub get",
            "Because app requires SDK version >=3.5.0 <4.0.0, version solving failed.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="pub-root-sdk-constraint",
        ),
        pytest.param(
            "dart pub get",
            "Because app depends on http >=1.3.0 which requires SDK version >=3.4.0 <4.0.0, version solving "
            "failed.",
            Owner.CODE,
            Action.AGENT,
            id="pub-dependency-needing-a-newer-sdk-stays-the-codes",
        ),
        pytest.param(
            "cargo +nightly-2024-01-01 build",
            "error: toolchain 'nightly-2024-01-01-x86_64-unknown-linux-gnu' is not installed",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="rustup-toolchain-not-installed",
        ),
        pytest.param(
            "cargo clippy -- -D warnings",
            "error: 'cargo-clippy' is not installed for the toolchain 'stable-x86_64-unknown-linux-gnu'.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="rustup-component-not-installed",
        ),
        pytest.param(
            "dotnet test --no-build",
            "Testhost process for source(s) '/home/runner/work/a/a/bin/App.Tests.dll' exited with error: You "
            "must install or update .NET to run this application.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="dotnet-runtime-not-installed",
        ),
        pytest.param(
            "$ANDROID_HOME/emulator/emulator -avd test -no-window",
            "emulator: ERROR: x86_64 emulation currently requires hardware acceleration!",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="android-emulator-without-kvm",
        ),
        pytest.param(
            "mvn -B verify",
            "The JAVA_HOME environment variable is not defined correctly,",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="maven-without-java-home",
        ),
        pytest.param(
            "./gradlew build",
            "ERROR: JAVA_HOME is not set and no 'java' command could be found in your PATH.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="gradlew-without-java",
        ),
        pytest.param(
            "mvn -B compile",
            "[ERROR] An exception has occurred in the compiler (21.0.5). Please file a bug against the Java "
            "compiler via the Java bug reporting page (https://bugreport.java.com)",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="javac-crash",
        ),
        pytest.param(
            "swift build",
            "error: 'app': package 'app' is using Swift tools version 6.0.0 but the installed version is "
            "5.10.0",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="swift-tools-version-newer-than-installed",
        ),
        pytest.param(
            "xcodebuild -sdk iphoneos18.0 -scheme App build",
            'xcodebuild: error: SDK "iphoneos18.0" cannot be located.',
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="xcodebuild-sdk-not-installed",
        ),
        pytest.param(
            "swift build",
            "Please submit a bug report (https://swift.org/contributing/#reporting-bugs) and include the "
            "crash backtrace.",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="swift-compiler-crash",
        ),
        pytest.param(
            "gradle/actions/wrapper-validation@v4",
            "✗ Found unknown Gradle Wrapper JAR files:",
            Owner.CODE,
            Action.ESCALATE,
            id="gradle-wrapper-jar-unknown",
        ),
        pytest.param(
            "pytest -q",
            "##[error]Canceling since a higher priority waiting request for 'ci-refs/pull/12/merge' exists",
            Owner.NOBODY,
            Action.IGNORE,
            id="concurrency-cancelled",
        ),
        pytest.param(
            "docker/build-push-action@v6",
            "ERROR: failed to solve: Cache export is not supported for the docker driver.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="buildx-docker-driver",
        ),
        pytest.param(
            "docker/build-push-action@v6",
            "ERROR: failed to solve: failed to push ghcr.io/acme/app:pr-7: "
            "denied: installation not allowed to Write organization package",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="ghcr-organization-package",
        ),
        pytest.param(
            "actions/checkout@v4",
            "batch response: This repository is over its data quota. Account responsible for LFS bandwidth "
            "should purchase more data packs to restore access.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="lfs-data-quota",
        ),
        pytest.param(
            "actions/checkout@v4",
            "[command]/usr/bin/git lfs fetch origin refs/remotes/pull/88/merge\n"
            "batch response: This repository exceeded its LFS budget. The account responsible for the budget "
            "should increase it to restore access.\n"
            "error: failed to fetch some objects from 'https://github.com/acme/app.git/info/lfs'",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="lfs-budget",
        ),
        pytest.param(
            "snyk test --all-projects",
            "Testing /home/runner/work/app/app...\n\nTest limit reached!\n\n"
            "You have reached your monthly limit of 200 private tests for your acme org.\n"
            "To learn more about our plans and increase your tests limit visit https://snyk.io/plans.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="snyk-test-limit",
        ),
        pytest.param(
            "snyk test --severity-threshold=high",
            "Testing /home/runner/work/app/app...\n\n"
            "ERROR   Authentication error (SNYK-0005)\n"
            "        Authentication credentials not recognized, or user access is not provisioned.\n"
            "        Docs:   https://docs.snyk.io/scan-with-snyk/error-catalog#snyk-0005",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="snyk-authentication",
        ),
        pytest.param(
            "az bicep build --file infra/main.bicep",
            "ERROR: /home/runner/work/app/app/infra/modules/storage.bicep(21,5) : Error BCP037: The property "
            '"allowBlobPublicAcess" is not allowed on objects of type "StorageAccountProperties".'
            ' Permissible properties include "allowBlobPublicAccess".',
            Owner.CODE,
            Action.AGENT,
            id="bicep-compile-error",
        ),
        pytest.param(
            "npm publish --provenance --access public",
            "npm notice Publishing to https://registry.npmjs.org/ with tag latest and public access\n"
            "npm error code E422\n"
            "npm error 422 Unprocessable Entity - PUT https://registry.npmjs.org/@acme%2fsdk - "
            "Error verifying sigstore provenance bundle: Failed to validate repository information: "
            'package.json: "repository.url" is "", expected to match "https://github.com/acme/sdk" '
            "from provenance",
            Owner.CODE,
            Action.AGENT,
            id="npm-provenance-repository-url",
        ),
        pytest.param(
            "mvn -B deploy -P ossrh",
            "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-deploy-plugin:3.1.4:deploy "
            "(default-deploy) on project kit: Failed to deploy artifacts: Could not transfer artifact "
            "io.github.acme:kit:pom:0.9.4 from/to ossrh "
            "(https://s01.oss.sonatype.org/service/local/staging/deploy/maven2/): status code: 402, "
            "reason phrase: Payment Required (402) -> [Help 1]",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="ossrh-sunset-maven",
        ),
        pytest.param(
            "./gradlew publish",
            "> Failed to publish publication 'maven' to repository 'sonatype'\n"
            "   > Could not PUT 'https://oss.sonatype.org/service/local/staging/deploy/maven2/io/acme/kit/1.0/"
            "kit-1.0.pom'. Received status code 402 from server: Payment Required",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="ossrh-sunset-gradle",
        ),
        pytest.param(
            "curl -sSL https://bootstrap.pypa.io/get-pip.py | python",
            "ERROR: This script does not work on Python 3.5. The minimum supported Python version is 3.7. "
            "Please use https://bootstrap.pypa.io/pip/3.5/get-pip.py instead.",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="get-pip-python-too-old",
        ),
        pytest.param(
            "composer install --no-interaction --prefer-dist",
            "In GitHubDriver.php line 401:\n"
            "  GitHub API limit (60 calls/hr) is exhausted, could not fetch "
            "https://api.github.com/repos/doctrine/instantiator. Create a GitHub OAuth token to go over the "
            "API rate limit. You can also wait until 2024-03-02 11:04:12 for the rate limit to reset.",
            Owner.PLATFORM,
            Action.RERUN,
            id="composer-github-api-limit",
        ),
        pytest.param(
            "npx cdk deploy --all --require-approval never",
            "forge-service: deploying...\n"
            "Deployment of stack forge-service failed: Throttling: Rate exceeded\n"
            "Rate exceeded",
            Owner.PLATFORM,
            Action.RERUN,
            id="cdk-cloudformation-throttled",
        ),
        pytest.param(
            "docker build -t app .",
            "#5 0.619 CentOS Linux 8 - AppStream                       0.0  B/s |   0  B     00:00\n"
            "#5 0.619 Error: Failed to download metadata for repo 'appstream': Cannot prepare internal "
            "mirrorlist: No URLs in mirrorlist",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="dnf-end-of-life-mirrorlist",
        ),
        pytest.param(
            "kustomize build overlays/staging",
            "Error: accumulating resources: accumulation err='accumulating resources from 'patch-hpa.yaml': "
            "evalsymlink failure on '/home/runner/work/app/app/overlays/staging/patch-hpa.yaml' : lstat "
            "/home/runner/work/app/app/overlays/staging/patch-hpa.yaml: no such file or directory': "
            "must build at directory: not a valid directory",
            Owner.CODE,
            Action.AGENT,
            id="kustomize-missing-resource",
        ),
        pytest.param(
            "kubectl apply -k deploy/overlays/staging --server-side",
            "error: accumulating resources: accumulation err='accumulating resources from '../../bases/api': "
            "'/home/runner/work/app/app/deploy/bases/api' must resolve to a file': couldn't make target for "
            "path '/home/runner/work/app/app/deploy/bases/api': unable to find one of 'kustomization.yaml'",
            Owner.CODE,
            Action.AGENT,
            id="kubectl-kustomize-missing-base",
        ),
        pytest.param(
            "flux build kustomization apps --path ./clusters/staging/apps --dry-run",
            "✗ kustomize build failed: accumulating resources: accumulation err='accumulating resources from "
            "'podinfo/release.yaml': MalformedYAMLError: yaml: unmarshal errors:",
            Owner.CODE,
            Action.AGENT,
            id="flux-build-malformed-yaml",
        ),
        pytest.param(
            "kustomize build overlays/prod",
            "Error: MalformedYAMLError: yaml: line 42: could not find expected ':' in File: publish-job.yaml",
            Owner.CODE,
            Action.AGENT,
            id="kustomize-malformed-yaml",
        ),
        pytest.param(
            "python -m build",
            "ERROR Failed to parse /home/runner/work/lib/lib/pyproject.toml: Unclosed array (at line 24, "
            "column 1)",
            Owner.CODE,
            Action.AGENT,
            id="build-pyproject-not-toml",
        ),
        pytest.param(
            "python -m build --sdist",
            "running egg_info\nwriting src/lark_sdk.egg-info/PKG-INFO\n"
            "error: package directory 'src/lark_sdk/transport' does not exist\n"
            "ERROR Backend subprocess exited when trying to invoke get_requires_for_build_sdist",
            Owner.CODE,
            Action.AGENT,
            id="setuptools-package-directory-missing",
        ),
        pytest.param(
            "python -m build",
            '  File "/tmp/build-env/lib/python3.12/site-packages/hatchling/metadata/core.py", line 1550, in '
            "cached\n    raise type(e)(message) from None\n"
            "OSError: Error getting the version from source `regex`: file does not exist: "
            "src/quartz_client/__about__.py\n"
            "ERROR Backend subprocess exited when trying to invoke build_sdist",
            Owner.CODE,
            Action.AGENT,
            id="hatchling-version-file-missing",
        ),
        pytest.param(
            "vendor/bin/box compile",
            "? Dumping the Composer autoloader\n\nIn Php.php line 38:\n\n"
            '  Syntax error, unexpected T_STRING, expecting "," or ")" on line 44 in file '
            "src/Worker/Supervisor.php",
            Owner.CODE,
            Action.AGENT,
            id="php-parser-syntax-error-in-a-release-build",
        ),
        pytest.param(
            "bundle exec rake release",
            "tinsel 2.4.0 built to pkg/tinsel-2.4.0.gem.\nrake aborted!\n"
            'Gem::InvalidSpecificationException: ["lib/tinsel/legacy.rb"] are not files',
            Owner.CODE,
            Action.AGENT,
            id="gemspec-lists-a-file-that-is-not-there",
        ),
        pytest.param(
            "helm/chart-releaser-action@v1.6.0",
            "Error: the lock file (Chart.lock) is out of sync with the dependencies file (Chart.yaml). "
            "Please update the dependencies",
            Owner.CODE,
            Action.AGENT,
            id="helm-chart-lock-stale",
        ),
        pytest.param(
            "helm template web ./chart -f values/preview.yaml",
            "Error: execution error at (web/templates/deployment.yaml:41:22): database.host is required",
            Owner.CODE,
            Action.AGENT,
            id="helm-required-value",
        ),
        pytest.param(
            "argocd app sync web-staging --grpc-web --timeout 300",
            "FATA[0002] rpc error: code = FailedPrecondition desc = error resolving repo revision: rpc "
            "error: code = Unknown desc = Manifest generation error (cached): failed to execute helm "
            "template command: failed to get command args to log: `helm template . --name-template web "
            "--namespace web-staging --include-crds` failed exit status 1: Error: template: "
            'web/templates/configmap.yaml:9:30: executing "web/templates/configmap.yaml" at '
            "<.Values.feature.flags>: nil pointer evaluating interface {}.flags",
            Owner.CODE,
            Action.AGENT,
            id="argocd-helm-template",
        ),
        pytest.param(
            "kustomize build overlays/shop",
            'error: no resource matches strategic merge patch "Deployment.v1.apps/web": no matches for '
            "Id Deployment.v1.apps/web; failed to find unique target for patch Deployment.v1.apps/web",
            Owner.CODE,
            Action.AGENT,
            id="kustomize-patch-without-target",
        ),
        pytest.param(
            "./scripts/fetch-tools.sh",
            "Error: Unexpected HTTP response: 503",
            Owner.PLATFORM,
            Action.RERUN,
            id="tool-cache-http-503",
        ),
        pytest.param(
            "ansible-galaxy collection install -r requirements.yml",
            "Starting galaxy collection install process\nProcess install dependency map\n"
            "ERROR! Unknown error when attempting to call Galaxy at "
            "'https://galaxy.ansible.com/api/v3/collections/community/docker/versions/?limit=100': "
            "The read operation timed out",
            Owner.PLATFORM,
            Action.RERUN,
            id="galaxy-read-timeout",
        ),
        pytest.param(
            "az deployment group create -g rg-app -f main.bicep",
            "ERROR: (ServiceUnavailable) The server is currently unable to receive requests. "
            "Please retry your request.\nCode: ServiceUnavailable",
            Owner.PLATFORM,
            Action.RERUN,
            id="azure-resource-manager-unavailable",
        ),
        pytest.param(
            "pulumi preview --stack dev",
            "error: could not load plugin for aws provider: Could not automatically download and install "
            "resource plugin 'pulumi-resource-aws' at version v7.7.0: error downloading plugin aws to file: "
            "failed to download plugin: aws-7.7.0: 503 HTTP error fetching plugin from "
            "https://get.pulumi.com/releases/plugins/pulumi-resource-aws-v7.7.0-linux-amd64.tar.gz",
            Owner.PLATFORM,
            Action.RERUN,
            id="pulumi-plugin-host-503",
        ),
        pytest.param(
            "npx cypress run --record --parallel",
            "We encountered an unexpected error communicating with our servers.\n\n"
            'StatusCodeError: 500 - "Internal Server Error"\n\nWe will retry 2 more times in 1 minute...',
            Owner.PLATFORM,
            Action.RERUN,
            id="cypress-cloud-500",
        ),
        pytest.param(
            "actions/upload-artifact@v4",
            "##[error]Failed to CreateArtifact: Failed to make request after 5 attempts: Request timeout: "
            "/twirp/github.actions.results.api.v1.ArtifactService/CreateArtifact",
            Owner.PLATFORM,
            Action.RERUN,
            id="artifact-service-after-retries",
        ),
        pytest.param(
            "actions/github-script@v7",
            "RequestError [HttpError]: Server Error\n    at /home/runner/work/_actions/actions/github-script/"
            "v7/dist/index.js:9537:21 {\n  status: 500,\n##[error]Unhandled error: HttpError: Server Error",
            Owner.PLATFORM,
            Action.RERUN,
            id="octokit-github-500",
        ),
        pytest.param(
            "actions/stale@v9",
            "##[error]HttpError: <!DOCTYPE html>\n##[error]<html>\n"
            "##[error]    <title>Unicorn! &middot; GitHub</title>",
            Owner.PLATFORM,
            Action.RERUN,
            id="github-unicorn-page",
        ),
        pytest.param(
            "signtool sign /fd SHA256 /tr http://timestamp.acme.test /td SHA256 /f cert.pfx dist\\app.exe",
            "Done Adding Additional Store\n"
            "SignTool Error: The specified timestamp server either could not be reached or\n"
            "        returned an invalid response.\n"
            "SignTool Error: An error occurred while attempting to sign: dist\\app.exe\n\n"
            "Number of files successfully Signed: 0\nNumber of errors: 1",
            Owner.PLATFORM,
            Action.RERUN,
            id="signtool-timestamp-server",
        ),
        pytest.param(
            "go test ./...",
            'go: github.com/klauspost/compress@v1.17.11: Get "https://proxy.golang.org/github.com/klauspost/'
            'compress/@v/v1.17.11.zip": read tcp 10.1.0.45:50122->142.250.72.113:443: wsarecv: An existing '
            "connection was forcibly closed by the remote host.",
            Owner.PLATFORM,
            Action.RERUN,
            id="windows-connection-reset",
        ),
        pytest.param(
            "python scripts/upload_docs.py --bucket acme-docs",
            "botocore.exceptions.NoCredentialsError: Unable to locate credentials",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="boto3-no-credentials",
        ),
        pytest.param(
            "./scripts/smoke.sh",
            'Unable to locate credentials. You can configure credentials by running "aws configure".',
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="aws-cli-no-credentials",
        ),
        pytest.param(
            "npx wrangler deploy",
            "✘ [ERROR] A request to the Cloudflare API (/accounts/abc/workers/scripts/site) failed.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="wrangler-api-error-is-no-build-error",
        ),
        pytest.param(
            "github/codeql-action/analyze@v3",
            "##[error]Advanced Security must be enabled for this repository to use code scanning.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="code-scanning-needs-advanced-security",
        ),
        pytest.param(
            "actions/dependency-review-action@v4",
            "##[error]Dependency review is not supported on this repository. Please ensure that Dependency "
            "graph is enabled along with GitHub Advanced Security on private repositories",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="dependency-review-needs-the-graph",
        ),
        pytest.param(
            "aquasecurity/trivy-action@0.28.0",
            "FATAL\tinit error: DB error: failed to download vulnerability DB: GET "
            "https://ghcr.io/v2/aquasecurity/trivy-db/manifests/2: TOOMANYREQUESTS: retry-after: 1.2ms",
            Owner.PLATFORM,
            Action.RERUN,
            id="registry-toomanyrequests",
        ),
        pytest.param(
            "gitleaks/gitleaks-action@v2",
            "##[error]🛑 missing gitleaks license. Go grab one at gitleaks.io and store it as a GitHub "
            "Secret named GITLEAKS_LICENSE.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="gitleaks-license",
        ),
        pytest.param(
            "terraform init",
            "│ Error: Required token could not be found",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="terraform-token",
        ),
        pytest.param(
            "snyk/actions/node@master",
            "`snyk` requires an authenticated account. Please run `snyk auth` and try again.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="snyk-auth",
        ),
        pytest.param(
            "actions/setup-python@v5",
            "##[error]No file in /home/runner/work/app/app matched to [**/requirements.txt or "
            "**/pyproject.toml], make sure you have checked out the target repository",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="setup-python-cache-file",
        ),
        pytest.param(
            "npm test",
            "##[error]The hosted runner encountered an error while running your job. "
            "(Error Type: Disconnect).",
            Owner.PLATFORM,
            Action.RERUN,
            id="hosted-runner-disconnect",
        ),
        pytest.param(
            "pylint src",
            "src/app/models.py:1:0: F0002: src/app/models.py: Fatal error while checking "
            "'src/app/models.py'. Please open an issue in our bug tracker so we address this. There is a "
            "pre-filled template that you can use in '/home/runner/.cache/pylint/pylint-crash.txt'. "
            "(astroid-error)",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="pylint-crash",
        ),
        pytest.param(
            "black --check .",
            "error: cannot format src/app/models.py: INTERNAL ERROR: Black produced code that is not "
            "equivalent to the source.  Please report a bug on https://github.com/psf/black/issues.",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="black-internal-error",
        ),
        pytest.param(
            "ruff check .",
            "error: Ruff crashed. If you could open an issue at:",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="ruff-crash",
        ),
        pytest.param(
            "cabal build",
            "ghc: panic! (the 'impossible' happened)",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="ghc-panic",
        ),
        pytest.param(
            "rustup toolchain install nightly --component clippy",
            "error: component 'clippy' for target 'x86_64-unknown-linux-gnu' is unavailable for download for "
            "channel 'nightly'",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="rustup-nightly-component",
        ),
        pytest.param(
            "mvn -B -Dsurefire.rerunFailingTestsCount=2 -Dsurefire.failOnFlakeCount=1 test",
            "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:3.2.5:test "
            "(default-test) on project app: There are 1 flakes and failOnFlakeCount is set to 1.",
            Owner.HISTORY,
            Action.RERUN,
            id="surefire-flakes-only",
        ),
        pytest.param(
            "npx eslint .",
            "Occurred while linting /home/runner/work/app/app/src/index.ts:12",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="eslint-rule-crash",
        ),
        pytest.param(
            "make test",
            "##[error]This is a scheduled Ubuntu 20.04 brownout. Ubuntu 20.04 LTS runner will be removed on "
            "2025-04-15. For more details, see https://github.com/actions/runner-images/issues/11101",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="runner-image-brownout",
        ),
        pytest.param(
            "make test",
            "Requested labels: ubuntu-20.04\nWaiting for a runner to pick up this job...\n"
            "##[error]This is a scheduled Ubuntu 20.04 retirement. Ubuntu 20.04 LTS runner will be removed "
            "on 2025-04-15. For more details, see https://github.com/actions/runner-images/issues/11101",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="runner-image-retirement",
        ),
        pytest.param(
            "gcloud run deploy web --image us-docker.pkg.dev/p/web/web:1 --region us-central1",
            "Deploying container to Cloud Run service [web] in project [p] region [us-central1]\n"
            "Deployment failed\n"
            "ERROR: (gcloud.run.deploy) HttpError accessing <https://run.googleapis.com/v2/projects/p/locations/"
            "us-central1/services/web?alt=json>: response: <{'status': '503', 'content-type': "
            "'application/json; charset=UTF-8'}>, content "
            '<{"error": {"code": 503, "status": "UNAVAILABLE"}}>',
            Owner.PLATFORM,
            Action.RERUN,
            id="gcloud-apitools-503",
        ),
        pytest.param(
            "erlef/setup-beam@v1",
            "##[error]Requested Elixir / Erlang/OTP version (1.18 / 24) not found in version list (did you "
            "check Compatibility between Elixir and Erlang/OTP?).Elixir and Erlang/OTP compatibility can be "
            "found at: https://hexdocs.pm/elixir/compatibility-and-deprecations.html",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="setup-beam-elixir-for-otp",
        ),
        pytest.param(
            "docker run --rm app:ci --version",
            "docker: Error response from daemon: failed to create task for container: failed to create shim "
            "task: OCI runtime create failed: runc create failed: unable to start container process: exec: "
            '"/entrypoint.sh": permission denied: unknown.',
            Owner.CODE,
            Action.AGENT,
            id="image-entrypoint-not-executable",
        ),
        pytest.param(
            "kubectl rollout status deployment/api --timeout=180s",
            'Waiting for deployment "api" rollout to finish: 0 of 1 updated replicas are available...\n'
            "error: timed out waiting for the condition\n"
            "  Warning  BackOff  12s (x9 over 2m)  kubelet  Back-off restarting failed container api in pod "
            "api-6d4b9c7f5-x2kq8_preview(5f0c)",
            Owner.CODE,
            Action.AGENT,
            id="workload-crash-looping",
        ),
        pytest.param(
            "ct install --config ct.yaml",
            "  Warning  Unhealthy  5s (x12 over 60s)  kubelet  Readiness probe failed: Get "
            '"http://10.244.0.7:9090/ready": dial tcp 10.244.0.7:9090: connect: connection refused\n'
            "Error: failed installing charts: failed processing charts",
            Owner.CODE,
            Action.AGENT,
            id="workload-readiness-probe",
        ),
        pytest.param(
            "aws lambda update-function-code --function-name ingest --zip-file fileb://dist/i.zip",
            "An error occurred (InvalidParameterValueException) when calling the UpdateFunctionCode "
            "operation: Unzipped size must be smaller than 262144000 bytes",
            Owner.CODE,
            Action.AGENT,
            id="lambda-package-too-large",
        ),
        pytest.param(
            "docker run --rm app:ci",
            "docker: Error response from daemon: failed to create task for container: failed to create shim "
            "task: OCI runtime create failed: runc create failed: unable to start container process: error "
            'during container init: error mounting "proc" to rootfs at "/proc": mount proc: device or '
            "resource busy: unknown.",
            Owner.PLATFORM,
            Action.RERUN,
            id="runc-init-failed-on-the-runner",
        ),
        pytest.param(
            "xcodebuild test -scheme App",
            "Requested labels: macos-12\nWaiting for a runner to pick up this job...\n"
            "##[error]The macOS-12 environment is deprecated, consider switching to macOS-13, macOS-14 "
            "(macos-latest) or macOS-15. For more details, see https://github.com/actions/runner-images/issues/10721",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="runner-image-past-removal",
        ),
        pytest.param(
            "mvn -B deploy -P release",
            "[ERROR] Failed to execute goal org.sonatype.central:central-publishing-maven-plugin:0.9.0:"
            "publish (injected-central-publishing) on project lib: Received 401 for "
            "https://central.sonatype.com/api/v1/publisher/upload?publishingType=AUTOMATIC -> [Help 1]",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="central-portal-401",
        ),
        pytest.param(
            "cmake --build build -j 8",
            "nvcc error   : 'cicc' died due to signal 9 (Kill signal)",
            Owner.PLATFORM,
            Action.RERUN,
            id="nvcc-phase-killed",
        ),
        pytest.param(
            "pytest tests/integration",
            "ERROR tests/integration/test_s3.py::test_put - botocore.exceptions.ClientError: An error "
            "occurred (403) when calling the HeadBucket operation: Forbidden",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="tests-failed-only-on-an-aws-refusal",
        ),
        pytest.param(
            "cargo build --release",
            'failed to select a version for the requirement `color-spantrace = "^0.2.2"`\n'
            "    version 0.2.2 is yanked\nlocation searched: crates.io index",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="cargo-requirement-only-a-yanked-version-meets",
        ),
        pytest.param(
            "cargo install cargo-chef",
            "error: cannot install package `cargo-chef`, it has been yanked from registry `crates-io`",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="cargo-install-of-a-yanked-package",
        ),
        pytest.param(
            "bundle install",
            "Your bundle is locked to mimemagic (0.3.5) from rubygems repository https://rubygems.org/ or "
            "installed locally, but that version can no longer be found in that source. That means the "
            "author of mimemagic (0.3.5) has removed it.",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="bundler-locked-gem-removed",
        ),
        pytest.param(
            "pytest -q",
            "    @pytest.mark.asyncio\n    async def test_fans_out(event_loop):\n"
            "E       fixture 'event_loop' not found\n"
            ">       available fixtures: anyio_backend, cache, capfd, event_loop_policy, "
            "monkeypatch, tmp_path\n"
            ">       use 'pytest --fixtures [testpath]' for help on them.\n"
            "=========================== 1 error in 0.41s ===========================",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="pytest-asyncio-1-removed-the-event-loop-fixture",
        ),
        pytest.param(
            "python setup.py test",
            "usage: setup.py [global_opts] cmd1 [cmd1_opts] [cmd2 [cmd2_opts] ...]\n"
            "   or: setup.py --help [cmd1 cmd2 ...]\n\nerror: invalid command 'test'",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="setuptools-72-removed-the-test-command",
        ),
        pytest.param(
            "ruff check .",
            "ruff failed\n  Cause: Rule `ANN101` was removed and cannot be selected.",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="ruff-removed-a-selected-rule",
        ),
        pytest.param(
            "python -m build --wheel",
            "* Getting build dependencies for wheel...\n"
            "setuptools.errors.InvalidConfigError: Invalid dash-separated key 'description-file' in "
            "'metadata' (setup.cfg), please use the underscore name 'description_file' instead.\n"
            "ERROR Backend subprocess exited when trying to invoke get_requires_for_build_wheel",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="setuptools-78-refuses-a-dash-separated-key",
        ),
        pytest.param(
            "bundle install --jobs=3 --retry=3",
            "Installing public_suffix 6.0.0\nGem::InstallError: public_suffix requires Ruby version >= 3.0.\n"
            "An error occurred while installing public_suffix (6.0.0), and Bundler cannot continue.",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="older-rubygems-refuses-a-release-for-a-newer-ruby",
        ),
        pytest.param(
            "gem install bundler",
            "ERROR:  Error installing bundler:\n"
            "\tThe last version of bundler (>= 0) to support your Ruby & RubyGems was 2.4.22. "
            "Try installing it with `gem install bundler -v 2.4.22`\n"
            "\tbundler requires Ruby version >= 3.1.0. The current ruby version is 2.7.8.225.",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="gem-install-of-a-release-for-a-newer-ruby",
        ),
        pytest.param(
            "bundle install --jobs 4",
            "Fetching gem metadata from https://rubygems.org/.........\n"
            "activesupport-8.0.0 requires ruby version >= 3.2.0, which is incompatible with the current"
            " version, 3.1.6",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="newer-bundler-refuses-a-release-for-a-newer-ruby",
        ),
        pytest.param(
            "python -m pytest -q",
            "____________________ ERROR collecting tests/test_presign.py _____________________\n"
            "E   ImportError: urllib3 v2 only supports OpenSSL 1.1.1+, currently the 'ssl' module is compiled"
            " with 'OpenSSL 1.0.2g  1 Mar 2016'. See: https://github.com/urllib3/urllib3/issues/2168\n"
            "!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="urllib3-2-on-an-old-openssl",
        ),
        pytest.param(
            "npm ci",
            "ERROR: npm v11.6.2 is known not to run on Node.js v16.20.2. This version of npm supports the"
            " following node versions: `^20.17.0 || >=22.9.0`. You can find the latest version at"
            " https://nodejs.org/.",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="npm-latest-over-an-older-node",
        ),
        pytest.param(
            "bundle install",
            "sass-embedded-1.62.0-x86_64-linux-musl requires rubygems version >= 3.3.22, which is"
            " incompatible with the current version, 3.1.6",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="bundler-refuses-a-release-for-a-newer-rubygems",
        ),
        pytest.param(
            "reactivecircus/android-emulator-runner@v2",
            "Starting emulator.\nadb: device offline\nadb: device offline\n"
            "##[error]Timeout waiting for emulator to boot.",
            Owner.PLATFORM,
            Action.RERUN,
            id="android-emulator-never-booted",
        ),
        pytest.param(
            "./mvnw -B verify sonar:sonar -Dsonar.projectKey=acme_inventory",
            "[ERROR] Failed to execute goal org.sonarsource.scanner.maven:sonar-maven-plugin:5.1.0:sonar "
            "(default-cli) on project inventory: Project not found. Please check the 'sonar.projectKey' and "
            "'sonar.organization' properties, the 'SONAR_TOKEN' environment variable, or contact the project "
            "administrator to check the permissions of the user the token belongs to -> [Help 1]",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="sonar-project-its-token-cannot-see",
        ),
        pytest.param(
            "cargo publish --dry-run -p logfmt-derive",
            "error: failed to prepare local package for uploading\n\nCaused by:\n"
            "  all dependencies must have a version specified when packaging.\n"
            "  dependency `logfmt-core` does not specify a version",
            Owner.CODE,
            Action.AGENT,
            id="cargo-package-path-dependency-without-a-version",
        ),
        pytest.param(
            "cargo publish --dry-run -p keel",
            "error: failed to prepare local package for uploading\n\nCaused by:\n"
            "  all dependencies must have a version requirement specified when publishing.\n"
            "  dependency `keel-macros` does not specify a version",
            Owner.CODE,
            Action.AGENT,
            id="cargo-publish-path-dependency-without-a-version-requirement",
        ),
        pytest.param(
            "sudo apt-get update -qq && sudo apt-get install -y libboost-all-dev",
            "Err:1 http://archive.ubuntu.com/ubuntu noble InRelease\n"
            "  Temporary failure resolving 'archive.ubuntu.com'\n"
            "W: Failed to fetch http://archive.ubuntu.com/ubuntu/dists/noble/InRelease  "
            "Temporary failure resolving 'archive.ubuntu.com'\n"
            "W: Some index files failed to download. They have been ignored, or old ones used instead.\n"
            "E: Unable to locate package libboost-all-dev",
            Owner.PLATFORM,
            Action.RERUN,
            id="apt-cannot-locate-a-package-after-its-index-fetch-failed",
        ),
        pytest.param(
            "cargo build --locked",
            "error: failed to get `acme-proto` as a dependency of package `engine v0.8.0 (/w/e)`\n"
            "\nCaused by:\n  failed to load source for dependency `acme-proto`\n\nCaused by:\n"
            "  failed to authenticate when downloading repository\n\n"
            "  * attempted ssh-agent authentication, but no usernames succeeded: `git`",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="cargo-git-dependency-without-credentials",
        ),
        pytest.param(
            "travis_apt_get_update",
            "Err:3 http://archive.ubuntu.com/ubuntu focal Release\n"
            "  Temporary failure resolving 'archive.ubuntu.com'\n"
            "Reading package lists...\n"
            "E: The repository 'http://archive.ubuntu.com/ubuntu focal Release' no longer has a Release "
            "file.",
            Owner.PLATFORM,
            Action.RERUN,
            id="apt-mirror-name-not-resolved",
        ),
        pytest.param(
            "pytest -v",
            "    def fake_write(chunk):\n"
            '            raise OSError(errno.ENOSPC, "No space left on device")\n'
            '>       with pytest.raises(SpoolFull, match="No space left on device"):\n'
            "E       Failed: DID NOT RAISE <class 'spool.errors.SpoolFull'>\n"
            "WARNING  spool.writer:writer.py:141 write failed: [Errno 28] No space left on device\n"
            "FAILED tests/test_writer.py::test_enospc_is_reported - Failed: DID NOT RAISE "
            "<class 'spool.errors.SpoolFull'>",
            Owner.CODE,
            Action.AGENT,
            id="a-test-that-stages-a-full-disk",
        ),
        pytest.param(
            "pytest -q",
            "A module that was compiled using NumPy 1.x cannot be run in\n"
            "NumPy 2.1.3 as it may crash. To support both 1.x and 2.x\n"
            "versions of NumPy, modules must be compiled with NumPy 2.0.\n"
            "E   ImportError: numpy.core.multiarray failed to import",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="an-extension-built-for-numpy-1-under-numpy-2",
        ),
        pytest.param(
            "swift package resolve",
            "error: 'app': Revision 3a1b4a8e05a219c47efe85a120ec4e7ecd2071ca for swift-system "
            "remoteSourceControl https://github.com/apple/swift-system.git version 1.4.1 does not match "
            "previously recorded value "
            "c8a44d836fe7913603e246acab7c528c2e780168",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="swiftpm-version-retagged",
        ),
        pytest.param(
            "pytest -q",
            "    def test_sends(broker):\nE       fixture 'broker' not found\n"
            ">       available fixtures: cache, capfd, monkeypatch, tmp_path\n"
            "=========================== 1 error in 0.41s ===========================",
            Owner.CODE,
            Action.AGENT,
            id="a-fixture-the-project-lacks-is-the-codes",
        ),
        pytest.param(
            "bundle exec rake",
            "Your bundle is locked to json (1.8.3), but that version could not be found in any of the "
            "sources listed in your Gemfile. If you haven't changed sources, that means the author of "
            "json (1.8.3) has removed it. (Bundler::GemNotFound)",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="bundler-locked-gem-removed-older-wording",
        ),
        pytest.param(
            "npm ci",
            "npm ERR! code E404\n"
            "npm ERR! 404 Not Found - GET https://registry.npmjs.org/es-abstract/-/es-abstract-1.14.0.tgz\n"
            "npm ERR! 404  'es-abstract@1.14.0' is not in the npm registry.",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="npm-locked-tarball-unpublished",
        ),
        pytest.param(
            "yarn install --frozen-lockfile",
            'error An unexpected error occurred: "https://registry.yarnpkg.com/colors/-/colors-1.4.2.tgz: '
            'Request failed \\"404 Not Found\\"".',
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="yarn-locked-tarball-unpublished",
        ),
        pytest.param(
            "npm install",
            "npm ERR! code E404\nnpm ERR! 404 Not Found - GET https://registry.npmjs.org/reactt - Not found",
            Owner.CODE,
            Action.AGENT,
            id="npm-name-that-does-not-exist-is-the-codes",
        ),
        pytest.param(
            "bundle install",
            "Could not find gem 'standard (= 0.0.99)' in rubygems repository https://rubygems.org/ or "
            "installed locally.",
            Owner.CODE,
            Action.AGENT,
            id="bundler-pin-not-found-without-the-lock-saying-removed-is-the-codes",
        ),
        pytest.param(
            "nvm install 99",
            "Version '99' not found - try `nvm ls-remote` to browse available versions.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="nvm-version-that-does-not-exist",
        ),
        pytest.param(
            'eval "$(gimme 1.99)"',
            "I don't have any idea what to do with '1.99'.\n  (using download type 'auto')",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="gimme-go-version-it-cannot-install",
        ),
        pytest.param(
            '~/bin/install-jdk.sh --target "/home/travis/oraclejdk8" --feature "8" --license "BCL"',
            "install-jdk.sh 2019-09-04\nExpected feature release number in range of 9 to 14, but got: 8",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="install-jdk-feature-out-of-range",
        ),
        pytest.param(
            "source ~/virtualenv/python3.10/bin/activate",
            "curl: (22) The requested URL returned error: 404 Not Found\n"
            "Unable to download 3.10 archive. The archive may not exist. "
            "Please consider a different version.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="travis-python-archive-for-the-dist-missing",
        ),
        pytest.param(
            "composer install --no-interaction",
            "Could not fetch https://api.github.com/repos/symfony/yaml/zipball/v4.3.2, please create a "
            "GitHub OAuth token to go over the API rate limit",
            Owner.PLATFORM,
            Action.RERUN,
            id="composer-anonymous-github-rate-limit",
        ),
        pytest.param(
            "sudo apt-get update",
            "Err:3 http://ppa.launchpad.net/octo/tools/ubuntu xenial Release\n  404  Not Found\n"
            "E: The repository 'http://ppa.launchpad.net/octo/tools/ubuntu xenial Release' does not have a "
            "Release file.",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="apt-source-without-a-release-file",
        ),
        pytest.param(
            "sudo apt-get install -y libfoo-dev",
            "sudo: no tty present and no askpass program specified",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="sudo-refused-without-a-terminal",
        ),
        pytest.param(
            "sudo apt-get install -y libfoo-dev",
            "sudo: a terminal is required to read the password; either use the -S option to read from "
            "standard input or configure an askpass helper",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="sudo-refused-newer-wording",
        ),
        pytest.param(
            "nvm install 12",
            "Downloading https://nodejs.org/dist/v12.22.12/node-v12.22.12-linux-x64.tar.xz...\n"
            "Binary download from https://nodejs.org/dist/v12.22.12/node-v12.22.12-linux-x64.tar.xz failed, "
            "trying source.\nmake: *** [Makefile:98: node] Error 2",
            Owner.PLATFORM,
            Action.RERUN,
            id="a-version-managers-failure-is-no-check-of-the-code",
        ),
        pytest.param(
            "terraform init -input=false",
            "Error: Failed to query available provider packages\n"
            "Could not retrieve the list of available versions for provider hashicorp/azurerm:\n"
            "could not query provider registry for registry.terraform.io/hashicorp/azurerm:\n"
            "the request failed after 2 attempts, please try again later: Get\n"
            '"https://registry.terraform.io/v1/providers/hashicorp/azurerm/versions":\n'
            "context deadline exceeded (Client.Timeout exceeded while awaiting headers)",
            Owner.PLATFORM,
            Action.RERUN,
            id="terraform-registry-retries-spent",
        ),
        pytest.param(
            "terraform plan -input=false",
            "Error: GET https://api.github.com/repos/acme/api/branches/main/protection: 403 API rate limit "
            "of 5000 still exceeded until 2026-10-21 11:38:02 +0000 UTC, not making remote request. "
            "[rate reset in 7m]",
            Owner.PLATFORM,
            Action.RERUN,
            id="go-github-rate-limit-still-exceeded",
        ),
        pytest.param(
            "gcloud run deploy api --image europe-docker.pkg.dev/acme/api/api:1a2b3c --region europe-west1",
            "Deploying container to Cloud Run service [api] in project [acme] region [europe-west1]\n"
            "ERROR: (gcloud.run.deploy) HTTPError 503: The service is currently unavailable.",
            Owner.PLATFORM,
            Action.RERUN,
            id="gcloud-server-error",
        ),
        pytest.param(
            "sops --decrypt secrets.enc.yaml > secrets.yaml",
            "Failed to get the data key required to decrypt the SOPS file.\n"
            "  arn:aws:kms:eu-west-1:111122223333:key/0f0e0d0c: FAILED\n"
            "    - | Error decrypting key: operation error KMS: Decrypt, get identity: get\n"
            "      | credentials: failed to refresh cached credentials, no EC2 IMDS role found,\n"
            "      | operation error ec2imds: GetMetadata",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="aws-sdk-go-v2-without-credentials",
        ),
        pytest.param(
            "packer build -var-file=ci.pkrvars.hcl .",
            "Build 'amazon-ebs.base' errored after 1 second 12 milliseconds: "
            "no valid credential sources for  found.",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="packer-amazon-without-credentials",
        ),
        pytest.param(
            "mvn -B deploy -P release",
            "[INFO] Going to upload /home/runner/work/sdk/sdk/target/central-publishing/central-bundle.zip\n"
            "[ERROR] Unable to upload bundle for deployment: Deployment\n"
            "java.lang.RuntimeException: Invalid request. Status: 401 Response body: ",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="central-portal-refused-the-token",
        ),
        pytest.param(
            "docker-compose up -d",
            "/home/runner/work/_temp/5b9c2e44-7f0a-4c1e-9a55-2d6f0e1c3b7a.sh: line 1: docker-compose: "
            "command not found",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="compose-v1-gone-from-the-hosted-image",
        ),
        pytest.param(
            "docker-compose up -d",
            "/opt/actions-runner/_work/_temp/5b9c2e44-7f0a.sh: line 1: docker-compose: command not found",
            Owner.CODE,
            Action.AGENT,
            id="compose-missing-on-a-machine-of-ones-own-is-no-image-change",
        ),
        pytest.param(
            "sphinx-build -n -W -b html docs docs/_build/html",
            "WARNING: failed to reach any of the inventories with the following issues:\n"
            "intersphinx inventory 'https://docs.aiohttp.org/en/v3.8.1/objects.inv' not fetchable due to "
            "<class 'requests.exceptions.HTTPError'>: 404 Client Error: Not Found for url: "
            "https://docs.aiohttp.org/en/v3.8.1/objects.inv\n"
            "docs/client.rst:14: WARNING: py:class reference target not found: aiohttp.ClientSession\n"
            "build finished with problems, 2 warnings (with warnings treated as errors).",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="intersphinx-inventory-gone",
        ),
        pytest.param(
            "sphinx-build -W -b html docs docs/_build/html",
            "intersphinx inventory 'https://docs.aiohttp.org/en/v3.8.1/objects.inv' not fetchable due to "
            "<class 'requests.exceptions.HTTPError'>: 404 Client Error: Not Found for url: "
            "https://docs.aiohttp.org/en/v3.8.1/objects.inv\n"
            "docs/usage.rst:12: WARNING: undefined label: 'install'\n"
            "build finished with problems, 2 warnings (with warnings treated as errors).",
            Owner.CODE,
            Action.AGENT,
            id="a-documents-own-warning-beside-a-gone-inventory",
        ),
        pytest.param(
            "make -C docs html SPHINXOPTS=-W",
            "Running Sphinx v8.2.3\n\nExtension error:\nCould not import extension sphinx_autodoc_typehints "
            "(exception: cannot import name 'stringify_signature' from 'sphinx.util.inspect' "
            "(/opt/hostedtoolcache/Python/3.12.12/x64/lib/python3.12/site-packages/sphinx/util/inspect.py))\n"
            "make: *** [Makefile:20: html] Error 2",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="sphinx-extension-against-a-release-that-removed-its-import",
        ),
        pytest.param(
            "make -C docs html SPHINXOPTS=-W",
            "Running Sphinx v8.2.3\n\nExtension error:\nCould not import extension apiref "
            "(exception: cannot import name 'render_table' from 'apiref.tables' "
            "(/home/runner/work/atlas/atlas/docs/_ext/apiref/tables.py))\n"
            "make: *** [Makefile:20: html] Error 2",
            Owner.CODE,
            Action.AGENT,
            id="sphinx-extension-of-the-repository-missing-its-own-name",
        ),
        pytest.param(
            "actions/checkout@v4",
            "Retrieving the default branch name\n"
            "Not Found - https://docs.github.com/rest/repos/repos#get-a-repository\n"
            "Waiting 13 seconds before trying again\n"
            "##[error]Not Found - https://docs.github.com/rest/repos/repos#get-a-repository",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="checkout-of-a-repository-the-token-cannot-read",
        ),
        pytest.param(
            "conan upload '*' -r artifactory -c",
            "-------- Checking server existing packages --------\n"
            "ERROR: pochard/2.1.0: Upload recipe to 'artifactory' failed: 401: Unauthorized. "
            "[Remote: artifactory]",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="conan-remote-refused-the-login",
        ),
        pytest.param(
            "dvc pull",
            "ERROR: unexpected error - Access Denied: An error occurred (AccessDenied) when calling the "
            "ListObjectsV2 operation: Access Denied",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="dvc-remote-refused-the-key",
        ),
        pytest.param(
            "bundle exec fastlane ios beta",
            "[09:02:13]: Enter the passphrase that should be used to encrypt/decrypt your certificates\n"
            "[09:02:13]: Could not decrypt the repo, please make sure you enter the right password!",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="fastlane-match-passphrase",
        ),
        pytest.param(
            "bundle exec fastlane android deploy",
            "[!] Google Api Error: Invalid request - The caller does not have permission",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="play-console-service-account-without-permission",
        ),
        pytest.param(
            "docker buildx build --push -t docker.io/acme/exporter:latest .",
            "ERROR: failed to solve: failed to push docker.io/acme/exporter:latest: push access denied, "
            "repository does not exist or may require authorization: server message: insufficient_scope: "
            "authorization failed",
            Owner.REPOSITORY,
            Action.ESCALATE,
            id="registry-refused-the-push",
        ),
        pytest.param(
            "terraform plan -no-color -input=false",
            "Error: Invalid for_each argument\n\n"
            '  on main.tf line 12, in resource "aws_route53_record" "this":\n'
            '  12:   for_each = toset(aws_instance.web[*].id)\n\nThe "for_each" set includes values derived '
            "from resource attributes that cannot be determined until apply",
            Owner.CODE,
            Action.AGENT,
            id="terraform-for-each-unknown-until-apply",
        ),
        pytest.param(
            "terraform plan -no-color -input=false",
            "Error: Cycle: azurerm_network_security_rule.api, azurerm_subnet.aks",
            Owner.CODE,
            Action.AGENT,
            id="terraform-cycle",
        ),
        pytest.param(
            "terragrunt run-all plan --terragrunt-non-interactive",
            "10:22:09.901 STDERR [eu-west-1/app] terraform: Error: Unsupported attribute\n"
            "10:22:10.004 ERROR  [eu-west-1/app] error occurred:",
            Owner.CODE,
            Action.AGENT,
            id="terragrunt-quoting-terraforms-error",
        ),
        pytest.param(
            "nomad job validate jobs/ingest.nomad.hcl",
            "Error getting job struct: Error parsing job file from jobs/ingest.nomad.hcl:\n"
            'ingest.nomad.hcl:27,9-13: Unsupported argument; An argument named "cpus" is not expected here. '
            'Did you mean "cpu"?',
            Owner.CODE,
            Action.AGENT,
            id="nomad-hcl-diagnostic",
        ),
        pytest.param(
            "checkov -d infra --quiet",
            "Passed checks: 118, Failed checks: 3, Skipped checks: 4\n\n"
            'Check: CKV_AWS_18: "Ensure the S3 bucket has access logging enabled"\n'
            "\tFAILED for resource: aws_s3_bucket.exports\n\tFile: /infra/exports.tf:1-9",
            Owner.CODE,
            Action.AGENT,
            id="checkov-findings",
        ),
        pytest.param(
            "trivy config --exit-code 1 --severity HIGH,CRITICAL .",
            "infra/sg.tf (terraform)\n\nTests: 23 (SUCCESSES: 22, FAILURES: 1)\n"
            "Failures: 1 (HIGH: 0, CRITICAL: 1)\n\n"
            "AVD-AWS-0107 (CRITICAL): Security group rule allows ingress from public internet.",
            Owner.CODE,
            Action.AGENT,
            id="trivy-config-findings",
        ),
        pytest.param(
            "npx cdk synth --all",
            "[Error at /Platform-dev/Raw/IngestBucket/Resource] AwsSolutions-S1: The S3 Bucket has server "
            "access logs disabled.\n"
            "[Warning at /Platform-dev/Raw/Crawler] AwsSolutions-GL1: The Glue crawler uses no security "
            "configuration with CloudWatch Log encryption enabled.\nFound errors",
            Owner.CODE,
            Action.AGENT,
            id="cdk-nag-findings",
        ),
        pytest.param(
            "semgrep ci",
            "    ❯❯❱ python.lang.security.audit.subprocess-shell-true.subprocess-shell-true\n"
            "          Found 'subprocess' function 'run' with 'shell=True'.\n\n"
            "Ran 326 rules on 412 files: 1 finding.\nHas findings for blocking rules so exiting with code 1",
            Owner.CODE,
            Action.AGENT,
            id="semgrep-blocking-finding",
        ),
        pytest.param(
            "npx eslint@latest src/",
            "Oops! Something went wrong! :(\n\nESLint: 9.17.0\n\n"
            "ESLint couldn't find an eslint.config.(js|mjs|cjs) file.\n\n"
            "From ESLint v9.0.0, the default configuration file is now eslint.config.js.",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="eslint-latest-no-longer-reads-the-eslintrc",
        ),
        pytest.param(
            "npm install -g eslint && eslint src/",
            "Oops! Something went wrong! :(\n\nESLint: 9.17.0\n\n"
            "ESLint couldn't find an eslint.config.(js|mjs|cjs) file.\n\n"
            "From ESLint v9.0.0, the default configuration file is now eslint.config.js.",
            Owner.UPSTREAM,
            Action.ESCALATE,
            id="eslint-installed-unpinned-no-longer-reads-the-eslintrc",
        ),
        pytest.param(
            "npx eslint src/",
            "Oops! Something went wrong! :(\n\nESLint: 9.17.0\n\n"
            "ESLint couldn't find an eslint.config.(js|mjs|cjs) file.\n\n"
            "From ESLint v9.0.0, the default configuration file is now eslint.config.js.",
            Owner.CODE,
            Action.AGENT,
            id="eslint-of-the-lock-file-without-its-configuration",
        ),
    ],
)
def test_messages_whose_owner_is_plain(command: str, line: str, owner: Owner, action: Action) -> None:
    lines = line.split("\n")
    log = uses_log(command, {"a": "b"}, lines, "") if "@" in command else run_log(command, lines)
    diagnosis = diagnose(log, job="ci")
    assert (diagnosis.owner, diagnosis.action) == (owner, action)


def test_setup_javas_import_of_an_empty_signing_key_secret_is_the_repositorys() -> None:
    """setup-java imports its gpg-private-key input before anything runs: nothing of the runner's failed."""
    log = uses_log(
        "actions/setup-java@v4",
        {"java-version": "17", "distribution": "temurin", "gpg-private-key": "***"},
        ["Importing private gpg key", "##[error]gpg: no valid OpenPGP data found."],
        "gpg: Total number processed: 0",
    )
    diagnosis = diagnose(log, job="publish")
    assert (diagnosis.rule, diagnosis.owner, diagnosis.action) == (
        "config.signing-key-import",
        Owner.REPOSITORY,
        Action.ESCALATE,
    )


def test_an_anonymous_github_api_call_refused_is_the_shared_rate_limit_re_run() -> None:
    """60 unauthenticated requests an hour per address: a hosted runner's shared address runs out."""
    log = run_log(
        "curl -fsSL https://api.github.com/repos/protocolbuffers/protobuf/releases/latest | jq -r .tag_name",
        [
            "curl: (22) The requested URL returned error: 403",
            'jq: error (at <stdin>:0): Cannot index string with string "tag_name"',
        ],
        exit_code=5,
    )
    diagnosis = diagnose(log, job="lint")
    assert (diagnosis.rule, diagnosis.owner, diagnosis.action) == (
        "network.github-api-anonymous-limit",
        Owner.PLATFORM,
        Action.RERUN,
    )


def test_a_github_api_call_with_a_token_refused_is_not_the_anonymous_limit() -> None:
    log = run_log(
        'curl -fsSL -H "Authorization: Bearer $GH_PAT" https://api.github.com/repos/acme/tools/releases/latest',
        ["curl: (22) The requested URL returned error: 403"],
    )
    assert diagnose(log, job="lint").rule != "network.github-api-anonymous-limit"


def test_a_local_cluster_that_did_not_come_up_is_not_the_codes() -> None:
    """helm/kind-action creates the job's cluster before any test: a node whose kubelet never got healthy is
    the runner's, re-run, not the code's (the step's purpose comes from the action table)."""
    log = uses_log(
        "helm/kind-action@v1",
        {"cluster_name": "chart-testing"},
        [
            'Creating cluster "chart-testing" ...',
            " ✓ Ensuring node image (kindest/node:v1.32.2) 🖼",
            " ✓ Preparing nodes 📦",
            " ✗ Starting control-plane 🕹️",
            'ERROR: failed to create cluster: failed to init node with kubeadm: command "docker exec '
            "--privileged chart-testing-control-plane kubeadm init --skip-phases=preflight "
            '--config=/kind/kubeadm.conf --skip-token-print --v=6" failed with error: exit status 1',
            "[kubelet-check] The kubelet is not healthy after 4m0.000606531s",
        ],
        "##[error]Process completed with exit code 1.",
    )
    diagnosis = diagnose(log, job="chart-test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.PLATFORM, Action.RERUN)


def test_a_public_key_fetched_over_the_network_that_holds_no_key_is_not_the_signing_secrets() -> None:
    """The same words from a key a step downloaded: no secret of the repository's was imported."""
    log = run_log(
        "curl -fsSL https://packages.example.org/key.gpg | sudo apt-key add -",
        ["gpg: no valid OpenPGP data found."],
    )
    assert diagnose(log, job="ci").rule != "config.signing-key-import"


def test_a_required_cache_entry_the_service_failed_to_look_up_is_re_run() -> None:
    """A miss after the cache service failed the lookup may be a hit on a re-run: the platform's."""
    lines = [
        "##[warning]Failed to restore: Cache service responded with 503",
        "##[error]Failed to restore cache entry. Exiting as fail-on-cache-miss is set. Input key: nm-8a1c",
    ]
    diagnosis = diagnose(uses_log("actions/cache@v4", {"fail-on-cache-miss": "true"}, lines, ""), job="ci")
    assert (diagnosis.owner, diagnosis.action) == (Owner.PLATFORM, Action.RERUN)


def test_the_ending_comes_before_the_lines_a_killed_process_printed() -> None:
    log = run_log(
        "pytest -v tests/",
        [
            "tests/test_io.py::test_read PASSED",
            "tests/test_io.py::test_write FAILED",
            "tests/test_train.py::test_epoch",
            "/home/runner/work/_temp/1.sh: line 1:  2345 Killed                  pytest -v tests/",
        ],
        exit_code=137,
    )
    diagnosis = diagnose(log, job="test")
    assert (diagnosis.owner, diagnosis.category, diagnosis.action) == (
        Owner.PLATFORM,
        Category.INFRASTRUCTURE,
        Action.RERUN,
    )
    assert list(dict(diagnosis.decided_by))[0] == "ending"


@pytest.mark.parametrize(
    ("command", "output"),
    [
        pytest.param("npm run lint:ci", ['npm error Missing script: "lint:ci"'], id="missing-script"),
        pytest.param(
            "bash scripts/test.sh",
            ["scripts/test.sh: line 3: syntax error near unexpected token `fi'"],
            id="script-syntax",
        ),
        pytest.param(
            "mypy --strictest src",
            [
                "usage: mypy [-h] [-v] [-V] [more options; see below]",
                "mypy: error: unrecognized arguments: --strictest",
            ],
            id="tool-option",
        ),
        pytest.param(
            "./scripts/check.sh", ["bash: ./scripts/check.sh: Permission denied"], id="not-executable"
        ),
    ],
)
def test_a_checks_own_script_file_or_option_is_the_codes(command: str, output: list[str]) -> None:
    """A config-kind failure in a step that checks the code is the pull request's: the script, the file or
    the option is in its tree, so the agent gets it (not a person)."""
    diagnosis = diagnose(run_log(command, output), job="test")
    assert diagnosis.category is Category.CONFIG
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)
    assert dict(diagnosis.decided_by)["row"] == "(code, config) → agent"


def test_the_same_kind_outside_a_code_check_stays_the_repositorys() -> None:
    """An artifact download of a name no job uploaded is not a check of the code: a person sees to the
    workflow's wiring."""
    log = uses_log(
        "actions/download-artifact@v4",
        {"name": "dist"},
        ["##[error]Unable to download artifact(s): Artifact not found for name: dist"],
        "",
    )
    diagnosis = diagnose(log, job="package")
    assert (diagnosis.owner, diagnosis.action) == (Owner.REPOSITORY, Action.ESCALATE)


def test_an_upload_that_found_none_of_its_files_is_the_builds() -> None:
    """upload-artifact with `if-no-files-found: error` fails when the steps before it wrote none of the files
    its path names: the pull request's build or paths decide that, and the agent can follow the output."""
    log = uses_log(
        "actions/upload-artifact@v4",
        {"name": "dist", "path": "dist/"},
        ["##[error]No files were found with the provided path: dist/. No artifacts will be uploaded."],
        "",
    )
    diagnosis = diagnose(log, job="package")
    assert (diagnosis.owner, diagnosis.action, diagnosis.rule) == (
        Owner.CODE,
        Action.AGENT,
        "config.artifact-no-files",
    )


def test_a_rule_that_names_the_repository_keeps_a_code_checks_config_failure_with_a_person() -> None:
    """A version the setup cannot find, or a token without a permission, is the workflow's or the settings',
    even inside a test step: the rule says so itself."""
    log = run_log(
        "gh pr comment 7 --body done && pytest",
        ["GraphQL: Resource not accessible by integration (addComment)"],
    )
    diagnosis = diagnose(log, job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.REPOSITORY, Action.ESCALATE)


def test_a_rule_that_names_the_code_says_so_in_a_release_job_too() -> None:
    """A package.json that does not parse is the pull request's file, even when a release job reads it."""
    log = run_log(
        "VERSION=$(jq -e -r '.version' package.json)",
        ['jq: error (at package.json:7): Cannot index string with string "version"'],
        exit_code=5,
    )
    diagnosis = diagnose(log, job="release")
    assert diagnosis.purpose == "release"
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)


PLAYWRIGHT = [
    "  ✘  10 [chromium] › tests/search.spec.ts:14:5 › search suggests products (6.1s)",
    "  ✓  11 [chromium] › tests/search.spec.ts:14:5 › search suggests products (retry #1) (1.9s)",
    "",
    "  1 flaky",
    "    [chromium] › tests/search.spec.ts:14:5 › search suggests products ──────────",
]


def test_a_playwright_run_failed_only_for_flaky_tests_is_the_tests_history() -> None:
    diagnosis = diagnose(run_log("npx playwright test", [*PLAYWRIGHT, "  63 passed (1.4m)"]), job="e2e")
    assert (diagnosis.owner, diagnosis.action) == (Owner.HISTORY, Action.RERUN)


def test_a_playwright_test_that_failed_every_retry_beside_a_flaky_one_is_re_run_first() -> None:
    """The run shows a test passing on a retry: the one that failed every retry is re-run once before the
    agent sees it (the policy gives it to the code when the same commit fails again)."""
    failed = ["  1 failed", "    [chromium] › tests/cart.spec.ts:9:5 › cart keeps items ───────────"]
    diagnosis = diagnose(
        run_log("npx playwright test", [*PLAYWRIGHT, *failed, "  62 passed (1.4m)"]), job="e2e"
    )
    assert (diagnosis.owner, diagnosis.action, diagnosis.rerun_first) == (Owner.HISTORY, Action.RERUN, True)
    assert "1 flaky test(s) failed and then passed on a retry" in dict(diagnosis.decided_by)["history"]


def test_a_playwright_test_that_failed_every_retry_with_no_flaky_one_is_the_codes() -> None:
    failed = ["  1 failed", "    [chromium] › tests/cart.spec.ts:9:5 › cart keeps items ───────────"]
    diagnosis = diagnose(run_log("npx playwright test", [*failed, "  63 passed (1.4m)"]), job="e2e")
    assert (diagnosis.owner, diagnosis.action, diagnosis.rerun_first) == (Owner.CODE, Action.AGENT, False)


def test_a_job_github_would_not_start_for_billing_is_the_repositorys() -> None:
    log = "".join(
        f"{STAMP}{line}\n"
        for line in [
            "##[error]The job was not started because recent account payments have failed or your spending "
            "limit needs to be increased. Please check the 'Billing & plans' section in your settings",
        ]
    )
    diagnosis = diagnose(log, job="build")
    assert (diagnosis.owner, diagnosis.action) == (Owner.REPOSITORY, Action.ESCALATE)


def test_a_test_that_failed_on_an_assertion_beside_network_errors_is_still_the_codes() -> None:
    lines = [
        "FAILED tests/test_live.py::test_forecast - requests.exceptions.ConnectionError: "
        "HTTPSConnectionPool(...)",
        "FAILED tests/test_units.py::test_kelvin - AssertionError: assert 273.1 == 273.15",
        "2 failed, 40 passed in 3.10s",
    ]
    diagnosis = diagnose(run_log("pytest -q", lines), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)


def test_a_document_warning_beside_an_unreachable_inventory_is_the_documents() -> None:
    lines = [
        "intersphinx inventory 'https://docs.python.org/3/objects.inv' not fetchable due to <class "
        "'requests.exceptions.ConnectionError'>: HTTPSConnectionPool(host='docs.python.org', port=443)",
        "docs/usage.rst:12: WARNING: undefined label: 'install'",
        "build finished with problems, 2 warnings (with warnings treated as errors).",
    ]
    diagnosis = diagnose(run_log("sphinx-build -W -b html docs out", lines), job="docs")
    assert diagnosis.owner is Owner.CODE


GO_RUNS = [
    "=== RUN   TestTickerDrift",
    "--- PASS: TestTickerDrift (0.21s)",
    "=== RUN   TestTickerDrift",
    "    ticker_test.go:41: drift 12ms exceeds 10ms",
    "--- FAIL: TestTickerDrift (0.23s)",
    "=== RUN   TestTickerDrift",
    "--- PASS: TestTickerDrift (0.20s)",
    "FAIL",
    "FAIL\texample.com/tickerd/scheduler\t0.701s",
]


def test_a_go_test_that_passed_and_failed_in_one_repeated_run_is_flaky() -> None:
    diagnosis = diagnose(run_log("go test -count=3 -v ./scheduler/...", GO_RUNS), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.HISTORY, Action.RERUN)
    assert "passed and failed in the same run" in dict(diagnosis.decided_by)["history"]


def test_a_go_test_of_the_same_name_passing_once_elsewhere_is_not_flaky() -> None:
    """Without -count, a PASS of the same name may be another package's test: the failure stays the code's."""
    diagnosis = diagnose(run_log("go test -v ./...", GO_RUNS), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)


def test_a_go_test_that_raced_in_one_of_its_repeated_runs_is_the_codes() -> None:
    """The race detector reports races that happened: a bug of the code, though the next run missed it."""
    runs = ["==================", "WARNING: DATA RACE", "Write at 0x00c0000a4010 by goroutine 8:", *GO_RUNS]
    runs.insert(
        runs.index("--- FAIL: TestTickerDrift (0.23s)"),
        "    testing.go:1465: race detected during execution of test",
    )
    diagnosis = diagnose(run_log("go test -race -count=3 -v ./scheduler/...", runs), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)


REPEATS = [
    "tests/test_cache.py::test_evict[1-3] PASSED                              [ 33%]",
    "tests/test_cache.py::test_evict[2-3] FAILED                              [ 66%]",
    "tests/test_cache.py::test_evict[3-3] PASSED                              [100%]",
    "=========================== short test summary info ============================",
    "FAILED tests/test_cache.py::test_evict[2-3] - assert 2 == 3",
    "========================= 1 failed, 2 passed in 0.12s ==========================",
]


def test_a_pytest_repeat_test_that_passed_in_another_repetition_is_flaky() -> None:
    diagnosis = diagnose(run_log("pytest -v --count=3 tests/", REPEATS), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.HISTORY, Action.RERUN)
    assert "pytest-repeat" in dict(diagnosis.decided_by)["history"]


def test_parametrised_ids_that_look_like_repetitions_are_the_codes_without_count() -> None:
    diagnosis = diagnose(run_log("pytest -v tests/", REPEATS), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)


def test_a_pytest_repeat_test_that_failed_every_repetition_is_the_codes() -> None:
    lines = [line.replace("] PASSED", "] FAILED") for line in REPEATS]
    lines.insert(4, "FAILED tests/test_cache.py::test_evict[1-3] - assert 2 == 3")
    diagnosis = diagnose(run_log("pytest -v --count=3 tests/", lines), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)


QUIET_REPEATS = [
    "collected 90 items",
    "tests/test_pool.py ..F....F.......F..F.......",
    "=========================== short test summary info ============================",
    "FAILED tests/test_pool.py::test_checkout[1-3] - assert 3 == 4",
    "FAILED tests/test_pool.py::test_reuse[2-3] - AssertionError: connection 7 not reused",
    "FAILED tests/test_pool.py::test_checkout[3-3] - assert 2 == 4",
    "========================= 3 failed, 87 passed in 9.91s ==========================",
]


def test_without_v_a_repeated_test_that_failed_in_fewer_than_n_repetitions_passed_the_others() -> None:
    diagnosis = diagnose(run_log("pytest --count=3 tests/", QUIET_REPEATS), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.HISTORY, Action.RERUN)
    assert "fewer than 3 repetitions" in dict(diagnosis.decided_by)["history"]
    # a test that failed in every repetition failed the same way each time
    every = [
        *QUIET_REPEATS[:4],
        "FAILED tests/test_pool.py::test_checkout[2-3] - assert 3 == 4",
        *QUIET_REPEATS[4:],
    ]
    assert diagnose(run_log("pytest --count=3 tests/", every), job="test").owner is Owner.CODE
    # -x stops the run at its first failure: the other repetitions may never have run
    for stop in ("pytest -x --count=3 tests/", "pytest --count=3 --maxfail=2 tests/"):
        assert diagnose(run_log(stop, QUIET_REPEATS), job="test").owner is Owner.CODE


def flaky_report(passes: int) -> list[str]:
    return [
        "===Flaky Test Report===",
        "test_fetch failed (1 runs remaining out of 2).",
        f"test_fetch failed; it passed {passes} out of the required 2 times.",
        "\t<class 'AssertionError'>",
        "===End Flaky Test Report===",
        "FAILED tests/test_net.py::test_fetch - assert 500 == 200",
        "1 failed, 9 passed in 2.10s",
    ]


def test_a_test_the_flaky_plugin_saw_pass_then_fail_is_flaky() -> None:
    diagnosis = diagnose(run_log("pytest", flaky_report(1)), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.HISTORY, Action.RERUN)


def test_a_test_in_the_flaky_plugins_report_is_one_its_authors_marked_flaky() -> None:
    """The plugin reports only tests marked ``@flaky``: the repository calls it flaky, as a ``flaky-tests:``
    entry would; re-run, then escalated (not re-run first)."""
    diagnosis = diagnose(run_log("pytest", flaky_report(0)), job="test")
    assert (diagnosis.owner, diagnosis.action, diagnosis.rerun_first) == (Owner.HISTORY, Action.RERUN, False)
    assert "marks every failing test flaky" in dict(diagnosis.decided_by)["history"]


def test_a_flaky_plugin_pass_does_not_excuse_another_failing_test() -> None:
    lines = flaky_report(1)
    lines.insert(-1, "FAILED tests/test_parse.py::test_token - ValueError: bad token")
    diagnosis = diagnose(run_log("pytest", lines), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)


GRADLE_RETRY = [
    "> Task :app:test",
    "CacheTest > evicts() FAILED",
    "    org.opentest4j.AssertionFailedError: expected: <3> but was: <2>",
    "CacheTest > evicts() PASSED",
    "3 tests completed, 1 failed",
    "> Task :app:test FAILED",
]


def test_a_gradle_test_that_passed_on_a_retry_in_the_same_task_is_flaky() -> None:
    diagnosis = diagnose(run_log("./gradlew test", GRADLE_RETRY), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.HISTORY, Action.RERUN)


def test_a_gradle_test_of_the_same_name_passing_in_another_module_is_the_codes() -> None:
    app = [line for line in GRADLE_RETRY if line != "CacheTest > evicts() PASSED"]
    lines = ["> Task :core:test", "CacheTest > evicts() PASSED", *app]
    diagnosis = diagnose(run_log("./gradlew test", lines), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)


def test_surefire_flakes_beside_a_test_that_failed_for_good_are_re_run_first() -> None:
    lines = [
        "[ERROR] Tests run: 12, Failures: 1, Errors: 0, Skipped: 0, Flakes: 1",
        "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:3.2.5:test "
        "(default-test) on project app: There are test failures.",
        "[ERROR] There are 1 flakes and failOnFlakeCount is set to 1.",
    ]
    diagnosis = diagnose(run_log("mvn -B test", lines), job="test")
    assert (diagnosis.owner, diagnosis.action, diagnosis.rerun_first) == (Owner.HISTORY, Action.RERUN, True)


def test_a_crash_of_the_repositorys_own_eslint_rule_is_the_codes() -> None:
    lines = [
        "TypeError: Cannot read properties of undefined (reading 'name')",
        "Occurred while linting /home/runner/work/app/app/src/index.ts:12",
        'Rule: "local-rules/no-default-export"',
    ]
    diagnosis = diagnose(run_log("npx eslint .", lines, exit_code=2), job="lint")
    assert diagnosis.owner is Owner.CODE


def test_black_that_cannot_parse_a_file_is_the_codes() -> None:
    line = "error: cannot format src/app/models.py: Cannot parse: 12:4:     def broken("
    diagnosis = diagnose(run_log("black --check .", [line], exit_code=123), job="lint")
    assert diagnosis.owner is Owner.CODE


def test_a_go_test_that_failed_every_repeated_run_is_the_codes() -> None:
    runs = [line.replace("PASS", "FAIL") for line in GO_RUNS]
    diagnosis = diagnose(run_log("go test -count=3 -v ./scheduler/...", runs), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)


@pytest.mark.parametrize(
    "failure",
    [
        pytest.param(
            "stripe._error.AuthenticationError: No API key provided. (HINT: set your API key...)",
            id="sdk-auth",
        ),
        pytest.param(
            "requests.exceptions.HTTPError: 401 Client Error: Unauthorized for url: "
            "https://api.example.com/v1",
            id="http-401",
        ),
        pytest.param("ValueError: PAYWALL_WEBHOOK_SECRET is empty", id="secret-empty"),
    ],
)
def test_tests_that_failed_only_on_credentials_are_the_repositorys(failure: str) -> None:
    """A fork's pull request gets no secrets: tests that could not log in are not the code's to fix."""
    lines = [
        f"FAILED tests/integration/test_pay.py::test_checkout - {failure}",
        "1 failed, 30 passed in 2.41s",
    ]
    diagnosis = diagnose(run_log("pytest tests/integration -q", lines), job="integration")
    assert (diagnosis.owner, diagnosis.action) == (Owner.REPOSITORY, Action.ESCALATE)


def test_githubs_rate_limit_under_every_failing_test_is_the_platforms_not_a_refused_credential() -> None:
    error = (
        "requests.exceptions.HTTPError: 403 Client Error: rate limit exceeded for url: "
        "https://api.github.com/repos/acme/harbour/releases/latest"
    )
    lines = [
        "____________________________ test_latest_release_tag ____________________________",
        f"E   {error}",
        f"FAILED tests/integration/test_releases.py::test_latest_release_tag - {error}",
        "1 failed, 30 passed in 2.41s",
    ]
    diagnosis = diagnose(run_log("pytest tests/integration -q", lines), job="integration")
    assert (diagnosis.owner, diagnosis.action) == (Owner.PLATFORM, Action.RERUN)


def test_a_test_that_failed_on_an_assertion_beside_a_refused_key_is_still_the_codes() -> None:
    lines = [
        "FAILED tests/test_pay.py::test_checkout - stripe._error.AuthenticationError: No API key provided.",
        "FAILED tests/test_pay.py::test_total - AssertionError: assert 10 == 12",
        "2 failed, 30 passed in 2.41s",
    ]
    diagnosis = diagnose(run_log("pytest -q", lines), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)


def test_a_test_that_checks_pull_request_titles_is_still_the_codes() -> None:
    # a project whose own code checks titles: its test framework's report outranks the words of the message
    log = run_log(
        "npx jest",
        [
            "FAIL src/title.test.ts",
            "  ● rejects a title without a type",
            "    expect(received).toBe(expected) // Object.is equality",
            '    Expected: "PR title must start with a type"',
            '    Received: "ok"',
            "Tests:       1 failed, 12 passed, 13 total",
        ],
    )
    diagnosis = diagnose(log, job="test")
    assert (diagnosis.owner, diagnosis.action, diagnosis.rule) == (Owner.CODE, Action.AGENT, "js.jest-failed")


def test_gradles_task_summary_names_no_owner_the_step_does() -> None:
    summary = [
        "FAILURE: Build failed with an exception.",
        "* What went wrong:",
        "Execution failed for task ':plugin:publishPlugins'.",
        "> Failed to post to server.",
    ]
    published = diagnose(run_log("./gradlew publishPlugins", summary), job="ci")
    assert (published.owner, published.action) == (Owner.REPOSITORY, Action.ESCALATE)
    built = diagnose(run_log("./gradlew build", [line.replace("publishPlugins", "jar") for line in summary]))
    assert built.owner is Owner.CODE


def retried(*attempts: list[str], reason: str = "Child_process exited with error code 1") -> list[str]:
    """nick-fields/retry's output: its warning between the attempts, its error after the last."""
    lines: list[str] = []
    for n, attempt in enumerate(attempts, 1):
        lines += attempt
        if n < len(attempts):
            lines.append(f"##[warning]Attempt {n} failed. Reason: {reason}")
    return [*lines, "##[error]Final attempt failed. Child_process exited with error code 1"]


def failed_pytest(*ids: str) -> list[str]:
    return [*(f"FAILED {i} - AssertionError: assert 1 == 2" for i in ids), f"{len(ids)} failed, 9 passed"]


def retry_log(lines: list[str]) -> str:
    return uses_log("nick-fields/retry@v3", {"max_attempts": "2", "command": "pytest"}, lines, "")


def test_a_retried_command_that_failed_other_tests_on_each_attempt_is_flaky() -> None:
    lines = retried(failed_pytest("tests/test_a.py::test_one"), failed_pytest("tests/test_b.py::test_two"))
    diagnosis = diagnose(retry_log(lines), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.HISTORY, Action.RERUN)
    assert diagnosis.test_ids == ("tests/test_b.py::test_two",)
    assert "2 attempts" in dict(diagnosis.decided_by)["history"]


def test_a_retried_command_that_failed_the_same_test_on_every_attempt_is_the_codes() -> None:
    lines = retried(failed_pytest("tests/test_a.py::test_one"), failed_pytest("tests/test_a.py::test_one"))
    diagnosis = diagnose(retry_log(lines), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)


def test_a_retried_command_whose_attempt_hit_the_time_limit_is_not_read_as_flaky() -> None:
    """A killed attempt did not run all its tests: one that did not fail there may not have run."""
    lines = retried(
        failed_pytest("tests/test_a.py::test_one"),
        failed_pytest("tests/test_b.py::test_two"),
        reason="Timeout of 600000ms hit",
    )
    diagnosis = diagnose(retry_log(lines), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)


def test_travis_retry_attempts_that_failed_other_tests_are_flaky() -> None:
    said = 'The command "pytest tests" failed. Retrying, {} of 3.'
    lines = [
        *failed_pytest("tests/test_a.py::test_one"),
        said.format(2),
        *failed_pytest("tests/test_b.py::test_two"),
        said.format(3),
        *failed_pytest("tests/test_c.py::test_three"),
        'The command "pytest tests" failed 3 times.',
    ]
    diagnosis = diagnose(run_log("travis_retry pytest tests", lines), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.HISTORY, Action.RERUN)


@pytest.mark.parametrize(
    "annotation",
    [
        "##[error]Container operations are only supported on Linux runners",
        "##[error]The job has exceeded the maximum execution time while awaiting a runner for 24h0m0s",
        "##[error]The job was not acquired by Runner of type self-hosted even after multiple attempts",
    ],
)
def test_a_job_the_runner_could_not_take_as_written_is_the_repositorys(annotation: str) -> None:
    text = "\n".join(
        ["Requested labels: self-hosted, macOS", "Waiting for a runner to pick up this job...", annotation]
    )
    diagnosis = diagnose(text, job="unit-tests")
    assert (diagnosis.owner, diagnosis.action) == (Owner.REPOSITORY, Action.ESCALATE)


def test_a_job_no_hosted_runner_took_is_githubs_to_re_run() -> None:
    text = "\n".join(
        [
            "Requested labels: ubuntu-latest",
            "Waiting for a runner to pick up this job...",
            "##[error]The job was not acquired by Runner of type hosted even after multiple attempts",
        ]
    )
    diagnosis = diagnose(text, job="unit-tests")
    assert (diagnosis.owner, diagnosis.action) == (Owner.PLATFORM, Action.RERUN)


def vitest_output(*, failed: bool) -> list[str]:
    """Vitest's end of a run whose pool could not start a worker; ``failed`` adds a test that failed."""
    lines = [" ✓ src/cart.test.ts (12 tests) 48ms"]
    if failed:
        lines += [
            " FAIL  src/price.test.ts > price > rounds half up",
            "AssertionError: expected 1.01 to be 1.02",
        ]
    lines += [
        "⎯⎯⎯⎯⎯⎯ Unhandled Error ⎯⎯⎯⎯⎯⎯⎯",
        "Error: [vitest-pool]: Timeout starting forks runner.",
        " ❯ Timeout.<anonymous> node_modules/vitest/dist/chunks/cli-api.BQ-bjcRi.js:7235:65",
        "",
        f" Test Files  {'1 failed | ' if failed else ''}5 passed (14)",
        f"      Tests  {'1 failed | ' if failed else ''}77 passed (78)",
        "     Errors  1 error",
    ]
    return lines


def cypress_output(*, asserted: bool) -> list[str]:
    """Cypress's run: the renderer crashes under one spec; ``asserted`` fails another's assertion."""
    lines = ["  Running:  editor.cy.ts", "  Editor", "    ✓ creates a note (1204ms)", ""]
    lines += ["We detected that the Chrome Renderer process just crashed.", ""]
    lines += ["We have failed the current spec but will continue running the next spec.", ""]
    if asserted:
        lines += ["  Running:  search.cy.ts", "  1) Search", "       finds a note:", ""]
        lines += [
            "     AssertionError: Timed out retrying after 4000ms: expected '<li>' to have text 'Notes'"
        ]
    failed = 2 if asserted else 1
    return [*lines, f"  ✖  {failed} of 12 failed ({100 * failed // 12}%)  02:41  88  86  {failed}  0  0"]


@pytest.mark.parametrize(
    ("command", "job", "output", "rule"),
    [
        # a Vitest worker that did not start in time, unless a test failed beside it
        pytest.param(
            "npx vitest run",
            "test",
            lambda failed: vitest_output(failed=failed),
            "js.vitest-pool-start",
            id="vitest-pool",
        ),
        # a renderer that crashed under Cypress, unless a spec asserted
        pytest.param(
            "npx cypress run",
            "e2e",
            lambda failed: cypress_output(asserted=failed),
            "browser.renderer-crashed",
            id="cypress-renderer",
        ),
    ],
)
def test_a_runner_that_broke_under_the_tests_is_the_machines_unless_a_test_failed(
    command: str, job: str, output: Callable[[bool], list[str]], rule: str
) -> None:
    diagnosis = diagnose(run_log(command, output(False)), job=job)
    assert (diagnosis.rule, diagnosis.owner, diagnosis.action) == (rule, Owner.PLATFORM, Action.RERUN)
    diagnosis = diagnose(run_log(command, output(True)), job=job)
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)


def test_a_static_web_apps_token_the_service_does_not_know_is_the_repositorys_credential() -> None:
    output = [
        "Looking for event info",
        "The content server has rejected the request with: BadRequest",
        "Reason: No matching Static Web App was found or the api key was invalid.",
        "",
        "Exiting",
    ]
    diagnosis = diagnose(run_log("Azure/static-web-apps-deploy@v1", output), job="build_and_deploy")
    assert (diagnosis.rule, diagnosis.owner, diagnosis.action) == (
        "config.credentials-refused",
        Owner.REPOSITORY,
        Action.ESCALATE,
    )
