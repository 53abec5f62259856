"""Rules for the families of failures the rule-free readings showed, on output in their tools' formats."""

from __future__ import annotations

import pytest

from healer.diagnosis.classify import diagnose_text
from healer.diagnosis.rules import load_rules
from healer.model import Action, Owner

RULES = load_rules()


def _job_log(command: str, output: str) -> str:
    lines = [f"##[group]Run {command}", command, "shell: /usr/bin/bash -e {0}", "##[endgroup]"]
    lines += [*output.splitlines(), "##[error]Process completed with exit code 1."]
    return "".join(f"2026-03-04T05:06:07.{n:07d}Z {line}\n" for n, line in enumerate(lines))


@pytest.mark.parametrize(
    ("command", "output", "rule", "category", "shown"),
    [
        pytest.param(
            "bun test",
            "src/sum.test.ts:\nerror: expect(received).toBe(expected)\n\nExpected: 4\nReceived: 5\n"
            "(fail) sum > adds [0.31ms]\n\n 3 pass\n 1 fail\nRan 4 tests across 1 files. [12.00ms]",
            "js.bun-test-failed",
            "test",
            "(fail) sum > adds [0.31ms]",
            id="bun-test",
        ),
        pytest.param(
            "go test ./...",
            'go: github.com/robfig/cron/v3@v3.0.1: Get "https://proxy.golang.org/github.com/robfig/cron/v3/@v/'
            'v3.0.1.zip": dial tcp 142.250.72.113:443: i/o timeout\n'
            "FAIL\tgithub.com/acme/cronpilot/internal/schedule [setup failed]\n"
            "FAIL\tgithub.com/acme/cronpilot/internal/runner [setup failed]",
            "go.module-network",
            "transient",
            "dial tcp 142.250.72.113:443: i/o timeout",
            id="go-module-download-under-setup-failed",
        ),
        pytest.param(
            "python manage.py makemigrations --check --dry-run",
            "Migrations for 'billing':\n  billing/migrations/0042_invoice_due_date.py\n"
            "    - Add field due_date to invoice",
            "python.django-missing-migration",
            "config",
            "Migrations for 'billing':",
            id="django-makemigrations-check",
        ),
        pytest.param(
            "lhci autorun",
            "Checking assertions against 1 URL(s), 2 total run(s)\n\n"
            "1 result(s) for http://localhost:8080/ :\n\n"
            "  ✘  categories.performance failure for minScore assertion\n       expected: >=0.9\n"
            "          found: 0.81\n\nAssertion failed. Exiting with status code 1.",
            "js.lighthouse-assertion",
            "test",
            "categories.performance failure for minScore assertion",
            id="lighthouse",
        ),
        pytest.param(
            "vendor/bin/pint --test",
            "  ⨯ app/Models/User.php  unary_operator_spaces\n\n"
            "  FAIL   ........................................ 31 files, 1 style issue",
            "php.pint",
            "format",
            "31 files, 1 style issue",
            id="pint",
        ),
        pytest.param(
            "./gradlew lint",
            "> Task :app:lintDebug FAILED\nLint found 2 errors, 5 warnings. First failure:\n\n"
            "FAILURE: Build failed with an exception.\n\n* What went wrong:\n"
            "Execution failed for task ':app:lintDebug'.\n> Lint found errors in the project; aborting.",
            "jvm.gradle-lint-task-failed",
            "lint",
            "Execution failed for task ':app:lintDebug'.",
            id="gradle-lint-task",
        ),
        pytest.param(
            "./gradlew connectedCheck",
            "> Task :app:connectedDebugAndroidTest FAILED\n\nFAILURE: Build failed with an exception.\n\n"
            "* What went wrong:\nExecution failed for task ':app:connectedDebugAndroidTest'.\n"
            "> com.android.builder.testing.api.DeviceException: No online devices found.",
            "jvm.gradle-test-task-failed",
            "test",
            "Execution failed for task ':app:connectedDebugAndroidTest'.",
            id="gradle-test-task",
        ),
        pytest.param(
            "./gradlew assembleRelease",
            "> Task :app:validateSigningRelease FAILED\n\nFAILURE: Build failed with an exception.\n\n"
            "* What went wrong:\nExecution failed for task ':app:validateSigningRelease'.\n"
            "> Keystore file '/home/runner/work/app/release.jks' not found for signing config 'release'.",
            "android.signing-keystore",
            "config",
            "not found for signing config 'release'",
            id="android-keystore",
        ),
        pytest.param(
            "mvn -B checkstyle:check",
            "[ERROR] src/main/java/com/example/App.java:[10,1] (imports) UnusedImports: Unused import - "
            "java.util.List.\n[INFO] You have 1 Checkstyle violation.",
            "jvm.checkstyle",
            "lint",
            "(imports) UnusedImports",
            id="maven-checkstyle-violation-is-no-compile-error",
        ),
        pytest.param(
            "mvn -B verify",
            "[ERROR] Failed to execute goal com.github.spotbugs:spotbugs-maven-plugin:4.8.3.0:check "
            "(default) on project app: failed with 1 bugs and 0 errors -> [Help 1]",
            "jvm.checkstyle",
            "lint",
            "failed with 1 bugs and 0 errors",
            id="spotbugs-check",
        ),
        pytest.param(
            "mvn -B verify",
            "[WARNING] Rule violated for bundle app: lines covered ratio is 0.71, but expected minimum is "
            "0.80\n[ERROR] Failed to execute goal org.jacoco:jacoco-maven-plugin:0.8.11:check (check) on "
            "project app: Coverage checks have not been met. See log for details.",
            "test.coverage-threshold",
            "test",
            "Rule violated for bundle app",
            id="jacoco-check",
        ),
        pytest.param(
            "npx nyc check-coverage --lines 90",
            "ERROR: Coverage for lines (75%) does not meet global threshold (90%)",
            "test.coverage-threshold",
            "test",
            "does not meet global threshold",
            id="nyc-and-vitest-threshold",
        ),
        pytest.param(
            "swiftlint --strict",
            "/Users/runner/work/app/app/App/Model.swift:12:1: error: Line Length Violation: Line should be "
            "120 characters or less; currently it has 140 characters (line_length)\n"
            "Done linting! Found 1 violation, 1 serious in 42 files.",
            "apple.swiftlint",
            "lint",
            "Line Length Violation",
            id="swiftlint",
        ),
        pytest.param(
            "./build/tests",
            "/home/runner/work/app/app/tests/calc.cpp:7: FAILED:\n  REQUIRE( add(2, 2) == 4 )\n"
            "with expansion:\n  5 == 4\n\ntest cases: 3 | 2 passed | 1 failed\n"
            "assertions: 6 | 5 passed | 1 failed",
            "cpp.catch2-failed",
            "test",
            "REQUIRE( add(2, 2) == 4 )",
            id="catch2",
        ),
        pytest.param(
            "valgrind --error-exitcode=1 ./build/tests",
            "==4321== Invalid read of size 4\n==4321==    at 0x109156: parse (parse.c:20)\n"
            "==4321== ERROR SUMMARY: 1 errors from 1 contexts (suppressed: 0 from 0)",
            "cpp.valgrind",
            "test",
            "Invalid read of size 4",
            id="valgrind",
        ),
        pytest.param(
            "dotnet build -warnaserror",
            "/home/runner/work/app/app/src/App/Service.cs(20,21): error CA1822: Member 'Run' does not access "
            "instance data and can be marked as static [/home/runner/work/app/app/src/App/App.csproj]",
            "dotnet.analyzers",
            "lint",
            "error CA1822",
            id="dotnet-analyzer-as-error",
        ),
        pytest.param(
            "./fuzz_decode -max_total_time=1800 corpus/",
            "==4122==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000001a31 at pc 0x55d2c1\n"
            "READ of size 1 at 0x602000001a31 thread T0\n"
            "    #0 0x55d2c1 in read_marker /home/runner/work/jp/jp/src/markers.c:88:17\n"
            "SUMMARY: AddressSanitizer: heap-buffer-overflow /home/runner/work/jp/jp/src/markers.c:88:17 in "
            "read_marker",
            "cpp.sanitizer",
            "test",
            "ERROR: AddressSanitizer: heap-buffer-overflow",
            id="asan-in-a-fuzzer",
        ),
        pytest.param(
            "dune build",
            'File "src/ini.ml", line 57, characters 20-25:\n57 |   let port = value in\n'
            "                         ^^^^^\n"
            "Error: This expression has type string but an expression was expected of type int",
            "ocaml.compile",
            "build",
            'File "src/ini.ml", line 57, characters 20-25:',
            id="ocaml-type-error",
        ),
        pytest.param(
            "gitlint --commits origin/main..HEAD",
            "Commit 6f29bf81:\n"
            '1: T1 Title exceeds max length (94>72): "fix the thing where flags were not being refreshed"\n'
            "3: B6 Body message is missing",
            "lint.gitlint",
            "lint",
            "1: T1 Title exceeds max length (94>72)",
            id="gitlint-commit-messages",
        ),
        pytest.param(
            "ansible-playbook --syntax-check -i inventory/ci site.yml",
            "ERROR! We were unable to read either as JSON nor YAML, these are the errors we got from each:\n"
            "Syntax Error while loading YAML.\n  did not find expected key\n\n"
            "The error appears to be in '/home/runner/work/ops/ops/roles/web/tasks/main.yml': line 12, "
            "column 5",
            "config.ansible-syntax",
            "config",
            "roles/web/tasks/main.yml': line 12",
            id="ansible-not-yaml",
        ),
        pytest.param(
            "ansible-playbook --syntax-check -i inventory/ci site.yml",
            "ERROR! couldn't resolve module/action 'community.general.ufw'. This often indicates a "
            "misspelling, missing collection, or incorrect module path.\n\n"
            "The error appears to be in '/home/runner/work/ops/ops/roles/firewall/tasks/main.yml': line 3, "
            "column 3, but may\nbe elsewhere in the file depending on the exact syntax problem.",
            "config.ansible-syntax",
            "config",
            "couldn't resolve module/action 'community.general.ufw'",
            id="ansible-unresolved-module",
        ),
        pytest.param(
            "ansible-playbook --syntax-check site.yml",
            "ERROR! 'apt' is not a valid attribute for a Play\n\n"
            "The error appears to be in '/home/runner/work/ops/ops/site.yml': line 2, column 3",
            "config.ansible-syntax",
            "config",
            "'apt' is not a valid attribute for a Play",
            id="ansible-not-a-play-keyword",
        ),
        pytest.param(
            "ansible-playbook -i inventories/ci site.yml --syntax-check",
            "[ERROR]: YAML parsing failed: Mapping values are not allowed in this context.\n"
            "Origin: /home/runner/work/ops/ops/roles/beacon/tasks/main.yml:14:13\n\n"
            "12 - name: Install beacon unit\n13   ansible.builtin.template:\n14     src: beacon.service.j2",
            "config.ansible-syntax",
            "config",
            "Origin: /home/runner/work/ops/ops/roles/beacon/tasks/main.yml:14:13",
            id="ansible-core-2-19-yaml-parsing-failed",
        ),
        pytest.param(
            "bin/rails zeitwerk:check",
            "Hold on, I am eager loading the application.\n"
            "expected file /home/runner/work/app/app/app/models/api_key.rb to define constant ApiKey, "
            "but didn't",
            "ruby.zeitwerk-name",
            "build",
            "to define constant ApiKey, but didn't",
            id="zeitwerk-file-and-constant-differ",
        ),
        pytest.param(
            "npx astro check && npx wrangler pages deploy dist",
            "Result (42 files):\n"
            "src/components/PriceCard.astro:14:23 - error ts(2339): Property 'discount' does not exist on "
            "type 'Plan'.\n\n- 1 error\n- 0 warnings",
            "js.tsc",
            "typecheck",
            "error ts(2339)",
            id="astro-check-type-error",
        ),
        pytest.param(
            "npm run build && npx netlify deploy --dir=dist",
            "> astro build\n\n10:21:03 [build] Building static entrypoints...\n"
            "[InvalidContentEntryDataError] blog → 2026-10-lights data does not match collection schema.\n"
            "  pubDate: Required\n\n  Error reference:\n"
            "    https://docs.astro.build/en/reference/errors/invalid-content-entry-data-error/",
            "js.astro-build",
            "build",
            "[InvalidContentEntryDataError] blog",
            id="astro-content-entry-invalid",
        ),
        pytest.param(
            "npm run build && npx wrangler pages deploy dist",
            "> astro build\n\n10:41:08 [build] Collecting build info...\n"
            "10:41:09 [ERROR] [InvalidContentEntryDataError] blog → launch data does not match collection "
            "schema.\n\n  **pubDate**: Expected type `date`, received `string`\n\n  Error reference:\n"
            "    https://docs.astro.build/en/reference/errors/invalid-content-entry-data-error/",
            "js.astro-build",
            "build",
            "[InvalidContentEntryDataError] blog",
            id="astro-error-after-its-loggers-time",
        ),
        pytest.param(
            "make test",
            "ginkgo -r ./internal/...\nRunning Suite: Webhook Suite\nWill run 31 of 31 specs\n•••••\n"
            "• [FAILED] [10.003 seconds]\nValidating webhook [It] rejects a shrinking volume\n"
            "  [FAILED] Timed out after 10.001s.\n  Expected an error to have occurred.  Got:\n"
            "      <nil>: nil\n\nRan 31 of 31 Specs in 58.221 seconds\n"
            "FAIL! -- 30 Passed | 1 Failed | 0 Pending | 0 Skipped\nmake: *** [Makefile:71: test] Error 1",
            "go.test-failed",
            "test",
            "• [FAILED] [10.003 seconds]",
            id="ginkgo-spec-failed",
        ),
        pytest.param(
            "go test ./test/e2e/...",
            "Summarizing 1 Failure:\n"
            "  [FAIL] Books Categorizing books [It] can extract the author's last name\n"
            "  /home/runner/work/lib/lib/books_test.go:27\n\nRan 3 of 3 Specs in 0.002 seconds\n"
            "FAIL! -- 2 Passed | 1 Failed | 0 Pending | 0 Skipped",
            "go.test-failed",
            "test",
            "[FAIL] Books Categorizing books [It]",
            id="ginkgo-summary-of-failures",
        ),
        pytest.param(
            "gcloud run deploy web-pr-417 --source ./web --region europe-west1",
            "Deploying container to Cloud Run service [web-pr-417]\n"
            "ERROR: (gcloud.run.deploy) Revision 'web-pr-417-00001-qzb' is not ready and cannot serve "
            "traffic. The user-provided container failed to start and listen on the port defined provided "
            "by the PORT=8080 environment variable within the allocated timeout.",
            "deploy.container-not-listening",
            "build",
            "The user-provided container failed to start",
            id="cloud-run-revision-not-listening",
        ),
        pytest.param(
            "make -C docs html SPHINXOPTS=-W",
            "Running Sphinx v4.5.0\n\nSphinx version error:\n"
            "The sphinxcontrib.applehelp extension used by this project needs at least Sphinx v5.0; it "
            "therefore cannot be built with this version.\n"
            "make: *** [Makefile:20: html] Error 2",
            "build.docs-extension-needs-newer-sphinx",
            "dependency",
            "needs at least Sphinx v5.0",
            id="sphinx-extension-needs-newer-sphinx",
        ),
        pytest.param(
            "micromamba create -y -f environment.yml",
            "error    libmamba Could not solve for environment specs\n"
            "    The following packages are incompatible\n"
            "    ├─ numpy >=2.1 * is requested and can be installed;\n"
            "    └─ scipy ==1.10 * is not installable because it requires\n"
            "       └─ numpy <1.27.0 , which conflicts with any installable versions previously reported;\n"
            "critical libmamba Could not solve for environment specs",
            "python.conda-unsatisfiable",
            "dependency",
            "which conflicts with any installable versions previously reported",
            id="libmamba-could-not-solve",
        ),
        pytest.param(
            "luarocks install --only-deps rockspec/app-1.0-1.rockspec",
            "Warning: Failed searching manifest: Failed fetching manifest for https://luarocks.org - Failed "
            "downloading https://luarocks.org/manifest-5.4 - /home/runner/.cache/luarocks/manifest-5.4\n"
            "Error: Could not satisfy dependency busted >= 2.2: No results matching query were found.",
            "network.luarocks-manifest",
            "transient",
            "Failed searching manifest",
            id="luarocks-servers-down",
        ),
        pytest.param(
            "luarocks install --only-deps rockspec/app-1.0-1.rockspec",
            "Error: Could not satisfy dependency bustd >= 2.2: No results matching query were found.",
            "lua.luarocks-missing",
            "dependency",
            "Could not satisfy dependency bustd",
            id="luarocks-rock-missing",
        ),
        pytest.param(
            "./gradlew build",
            "* What went wrong:\nExecution failed for task ':compileJava'.\n"
            "> Could not resolve all files for configuration ':compileClasspath'.\n"
            "   > Could not download x-2.17.2.jar (com.acme:x:2.17.2)\n"
            "      > Could not get resource 'https://repo.maven.apache.org/maven2/x.jar'.\n"
            "         > Could not GET 'https://repo.maven.apache.org/maven2/x.jar'.\n"
            "            > Connection reset",
            "jvm.network",
            "transient",
            "> Connection reset",
            id="gradle-nested-cause-connection-reset",
        ),
        pytest.param(
            "./gradlew build",
            "* What went wrong:\nA problem occurred configuring root project 'app'.\n"
            "> Could not GET 'https://plugins.gradle.org/m2/org/jetbrains/kotlin/kotlin-gradle-plugin/2.1.0/"
            "kotlin-gradle-plugin-2.1.0.pom'.\n"
            "   > Connect to plugins.gradle.org:443 [plugins.gradle.org/104.18.12.34] failed: "
            "Connect timed out",
            "jvm.network",
            "transient",
            "Connect timed out",
            id="gradle-httpclient-connect-timeout",
        ),
        pytest.param(
            "bazel build --config=ci //...",
            "WARNING: Remote Cache: UNAVAILABLE: io exception\n"
            "ERROR: /home/runner/work/app/app/third_party/BUILD.bazel:3:8: GoCompilePkg lib/api.a failed: "
            "Failed to fetch blobs because they do not exist remotely.: Missing digest: "
            "fbd40ec8dbe0ae82202efcc85ed2eb1f6a8fbaaf9eea4e5be3cbb67337097bf4/349056 for "
            "bazel-out/k8-opt/bin/lib/client.x\n"
            "ERROR: Build did NOT complete successfully",
            "bazel.remote-cache-evicted",
            "transient",
            "Failed to fetch blobs because they do not exist remotely",
            id="bazel-remote-cache-evicted-inputs",
        ),
        pytest.param(
            "npx playwright test",
            "[WebServer] SyntaxError: The requested module './version.mjs' does not provide an export named "
            "'version'\n"
            "Error: Process from config.webServer was not able to start. Exit code: 1\n\n"
            "  Error: connect ECONNREFUSED 127.0.0.1:4173",
            "js.playwright-webserver",
            "test",
            "[WebServer] SyntaxError",
            id="playwright-web-server-did-not-start",
        ),
        pytest.param(
            "cargo build --locked",
            "    Updating git repository `https://github.com/acme/proto-rs`\n"
            "warning: spurious network error (2 tries remaining): unexpected http status code: 502; "
            "class=Http (34)\n"
            "error: failed to get `proto` as a dependency of package "
            "`app v0.2.0 (/home/runner/work/app/app)`\n"
            "Caused by:\n  failed to load source for dependency `proto`\n"
            "Caused by:\n  unexpected http status code: 502; class=Http (34)",
            "rust.cargo-network",
            "transient",
            "unexpected http status code: 502; class=Http (34)",
            id="cargo-git-dependency-host-502",
        ),
    ],
)
def test_a_family_rule_names_the_failure(
    command: str, output: str, rule: str, category: str, shown: str
) -> None:
    diagnosis = diagnose_text(_job_log(command, output), RULES)
    assert (diagnosis.rule, diagnosis.category.value) == (rule, category)
    assert any(shown in line for line in diagnosis.excerpt)


def test_a_lookup_of_a_service_of_the_jobs_own_network_is_not_the_internets_dns() -> None:
    public = (
        'go: downloading x: Get "https://proxy.golang.org/x": dial tcp: lookup proxy.golang.org on '
        "127.0.0.53:53: server misbehaving"
    )
    assert diagnose_text(_job_log("go mod download", public), RULES).rule == "network.dns"
    # Docker's embedded DNS server on a user-defined network answers for the job's own containers
    compose = (
        "tests-1  | error: app did not become healthy: dial tcp: lookup app on 127.0.0.11:53: no such host"
    )
    assert (
        diagnose_text(_job_log("docker compose up --exit-code-from tests", compose), RULES).rule
        != "network.dns"
    )
    # libpq naming a service container of one label, and a host with a dot
    libpq = (
        'psycopg.OperationalError: could not translate host name "db" to address: Temporary failure in name'
    )
    assert diagnose_text(_job_log("alembic upgrade head", libpq + " resolution"), RULES).rule != "network.dns"
    remote = 'could not translate host name "db.acme.example.net" to address: Name or service not known'
    assert diagnose_text(_job_log("alembic upgrade head", remote), RULES).rule == "network.dns"


def test_zeitwerk_naming_an_installed_gems_file_is_not_the_applications_code() -> None:
    gem = (
        "expected file /home/runner/work/app/app/vendor/bundle/ruby/3.3.0/gems/concurrent_rails-0.6.0/lib/"
        "concurrent_rails.rb to define constant ConcurrentRails, but didn't (Zeitwerk::NameError)"
    )
    assert diagnose_text(_job_log("bin/rails zeitwerk:check", gem), RULES).rule != "ruby.zeitwerk-name"


def test_astros_build_error_in_a_preview_deploy_step_is_the_codes() -> None:
    output = (
        "> astro build\n[ERROR] [GetEntryDeprecationError] Entry talks → spring-2027 was not found.\n"
        "  Error reference:\n    https://docs.astro.build/en/reference/errors/get-entry-deprecation-error/"
    )
    command = "pnpm --filter site build && npx wrangler pages deploy apps/site/dist"
    diagnosis = diagnose_text(_job_log(command, output), RULES)
    assert (diagnosis.rule, diagnosis.owner, diagnosis.action) == ("js.astro-build", Owner.CODE, Action.AGENT)


def test_a_cloud_run_revision_whose_container_did_not_listen_is_the_codes_not_the_runners() -> None:
    output = (
        "ERROR: (gcloud.run.deploy) Revision 'orders-00042-vuk' is not ready and cannot serve traffic. The "
        "user-provided container failed to start and listen on the port defined provided by the PORT=8080 "
        "environment variable within the allocated timeout."
    )
    diagnosis = diagnose_text(_job_log("gcloud run deploy orders --image $IMAGE", output), RULES)
    assert (diagnosis.rule, diagnosis.owner, diagnosis.action) == (
        "deploy.container-not-listening",
        Owner.CODE,
        Action.AGENT,
    )
    # the runner's own job container that did not start stays the runner's
    runner = diagnose_text(_job_log("make test", "Error: container failed to start"), RULES)
    assert runner.rule == "runner.container-failed"
