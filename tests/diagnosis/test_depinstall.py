"""Installing dependencies (`healer/diagnosis/rules/depinstall.yml`, and the entries of the ecosystem packs it
touches): each entry, written from a package manager's own words, has one case here with the rule that must
read it and the decision that follows, and the traps: the code's own failure that merely mentions the
words."""

from __future__ import annotations

import pytest
from joblogs import PLATFORM, REPO, UPSTREAM, diagnose_log, job_log

from healer.model import Action, Owner

SHA = "3f2a1b9c8d7e6f5a4b3c2d1e0f9a8b7c6d5e4f3a"


def diagnose(command: str, output: str, exit_code: int = 1):  # noqa: ANN201
    return diagnose_log(job_log(command, output, exit_code=exit_code), job="build")


GONE, NET, CREDS = (
    "dependency.git-ref-gone",
    "network.package-registry",
    "config.package-registry-credentials",
)
CASES = [
    # a git dependency's pinned commit, gone upstream
    (
        "npm ci",
        f"npm ERR! code 128\nnpm ERR! fatal: reference is not a tree: {SHA}",
        GONE,
        UPSTREAM,
        "npm-not-a-tree",
    ),
    (
        "pip install -r requirements.txt",
        f"  fatal: remote error: upload-pack: not our ref {SHA}\n  error: subprocess-exited-with-error",
        GONE,
        UPSTREAM,
        "pip-not-our-ref",
    ),
    (
        "cargo build --locked",
        "error: failed to get `mylib` as a dependency of package `app v0.1.0`\n\nCaused by:\n  "
        "revspec '3f2a1b9c' not found; class=Reference (4); code=NotFound (-3)",
        GONE,
        UPSTREAM,
        "cargo-revspec",
    ),
    (
        "bundle install",
        f"Revision {SHA} does not exist in the repository https://github.com/acme/mylib.git. "
        "Maybe you misspelled it?",
        GONE,
        UPSTREAM,
        "bundler-revision",
    ),
    (
        "go mod download",
        "go: github.com/acme/mylib@v0.0.0-20240101120000-3f2a1b9c8d7e: invalid version: unknown revision "
        "3f2a1b9c8d7e",
        GONE,
        UPSTREAM,
        "go-pseudo-version",
    ),
    # a registry or mirror that did not answer
    (
        "cargo fetch --locked",
        "error: failed to get `serde` as a dependency of package `app v0.1.0`\n\nCaused by:\n  download of "
        "se/rd/serde failed\n\nCaused by:\n  failed to get successful HTTP response from "
        "`https://index.crates.io/se/rd/serde` (151.101.2.137), got 503",
        NET,
        PLATFORM,
        "cargo-index-503",
    ),
    (
        "bundle install",
        "Could not reach host rubygems.org. Check your network connection and try again.",
        NET,
        PLATFORM,
        "bundler-could-not-reach",
    ),
    (
        "bun install --frozen-lockfile",
        "error: ConnectionRefused downloading package manifest react\nerror: react@18.3.1 failed to resolve",
        NET,
        PLATFORM,
        "bun-connection-refused",
    ),
    (
        "Rscript -e 'install.packages(\"dplyr\")'",
        "Warning: unable to access index for repository https://cloud.r-project.org/src/contrib:\n"
        "  cannot open URL 'https://cloud.r-project.org/src/contrib/PACKAGES'\n"
        "Warning message:\npackage ‘dplyr’ is not available for this version of R",
        NET,
        PLATFORM,
        "r-cannot-open-index",
    ),
    (
        "vcpkg install --triplet x64-linux",
        "error: Failed to download from mirror set\n"
        "error: https://github.com/madler/zlib/archive/v1.3.1.tar.gz: "
        "curl failed to download with exit code 28",
        NET,
        PLATFORM,
        "vcpkg-curl-28",
    ),
    (
        "vcpkg install --triplet x64-windows",
        "error: Failed to download from mirror set\n"
        "error: https://github.com/curl/curl/archive/curl-8_0_1.tar.gz: "
        "WinHttpSendRequest failed with exit code 12002",
        NET,
        PLATFORM,
        "vcpkg-winhttp-12002",
    ),
    (
        "mix deps.get",
        "Failed to fetch record for 'hexpm/phoenix' from registry (using cache instead)\n"
        "{:failed_connect, [{:to_address, {'repo.hex.pm', 443}}, {:inet, [:inet], :econnrefused}]}\n"
        "** (Mix) Unknown package phoenix in lockfile",
        "elixir.hex-network",
        PLATFORM,
        "hex-failed-connect",
    ),
    (
        "dotnet restore",
        "App.sln : error NU1301: Unable to load the service index for source https://api.nuget.org/v3/index.json.\n"
        "App.sln : error NU1301:   The SSL connection could not be established, see inner exception.",
        "dotnet.restore-network",
        PLATFORM,
        "nuget-nu1301-unreachable",
    ),
    (
        "composer install",
        'In CurlDownloader.php line 390:\n\n  The "https://repo.packagist.org/p2/symfony/console.json" file '
        "could not be downloaded (HTTP/2 502 )",
        "network.http-5xx",
        PLATFORM,
        "composer-header-is-not-shellcheck",
    ),
    (
        "bundle install --jobs=3 --retry=3",
        "Fetching source index from https://rubygems.org/\n"
        "Could not fetch specs from https://rubygems.org/ due to underlying error <timed out "
        "(https://rubygems.org/specs.4.8.gz)>",
        "ruby.bundler-network",
        PLATFORM,
        "bundler-rubygems-timed-out",
    ),
    (
        "bundle install --jobs=3 --retry=3 --deployment",
        "Fetching gem metadata from https://rubygems.org/.........\n"
        "Retrying download gem from https://rubygems.org/ due to error (2/4): Gem::Net::OpenTimeout Failed "
        "to open TCP connection to rubygems.org:443 (execution expired)\n"
        "Gem::Net::OpenTimeout: Failed to open TCP connection to rubygems.org:443 (execution expired)",
        "ruby.bundler-network",
        PLATFORM,
        "bundler-retried-download-open-timeout",
    ),
    (
        "yarn install --immutable",
        "➤ YN0035: │ @babel/parser@npm:7.27.5: The remote server failed to provide the requested resource\n"
        "➤ YN0035: │   Response Code: 500 (Internal Server Error)\n"
        "➤ YN0035: │   Request Method: GET\n"
        "➤ YN0035: │   Request URL: https://registry.yarnpkg.com/@babel%2fparser",
        "network.http-5xx",
        PLATFORM,
        "yarn-berry-response-500",
    ),
    (
        "sudo apt-get update && sudo apt-get install -y g++-9",
        "Hit:1 http://archive.ubuntu.com/ubuntu noble InRelease\n"
        "Err:5 http://ppa.launchpadcontent.net/ubuntu-toolchain-r/test/ubuntu noble InRelease\n"
        "  503  Service Unavailable [IP: 185.125.190.80 80]\n"
        "Reading package lists...\nE: Unable to locate package g++-9",
        "network.http-5xx",
        PLATFORM,
        "apt-index-503",
    ),
    # a private registry that refused the job's credentials
    (
        "pnpm install --frozen-lockfile",
        " ERR_PNPM_FETCH_401  GET https://npm.pkg.github.com/@acme%2Fui: Unauthorized - 401\n\n"
        "No authorization header was set for the request.",
        CREDS,
        REPO,
        "pnpm-fetch-401",
    ),
    (
        "cargo build --locked",
        "Caused by:\n  token rejected for `acme`, please run `cargo login --registry acme`\n"
        "  or use environment variable CARGO_REGISTRIES_ACME_TOKEN",
        CREDS,
        REPO,
        "cargo-token-rejected",
    ),
    (
        "cargo build --locked",
        "error: failed to download `acme-lib v1.2.0`\n\nCaused by:\n  no token found for `acme`, please run "
        "`cargo login --registry acme`",
        CREDS,
        REPO,
        "cargo-no-token",
    ),
    (
        "bundle install",
        "Authentication is required for gems.acme.com.\n"
        "Please supply credentials for this source. You can do "
        "this by running:\n`bundle config set --global gems.acme.com username:password`",
        CREDS,
        REPO,
        "bundler-authentication-required",
    ),
    (
        "bundle install",
        "Bad username or password for https://ci@gems.acme.com/.\nPlease double-check your credentials and "
        "correct them.",
        CREDS,
        REPO,
        "bundler-bad-username",
    ),
    (
        "uv sync --locked",
        "error: Failed to fetch: `https://pypi.acme.com/simple/acme-lib/`\n  Caused by: HTTP status client "
        "error (401 Unauthorized) for url (https://pypi.acme.com/simple/acme-lib/)",
        CREDS,
        REPO,
        "uv-401",
    ),
    (
        "uv lock",
        "  × No solution found when resolving dependencies:\n"
        "  ╰─▶ Because acme-lib was not found in the package "
        "registry and you require acme-lib, we can conclude that your requirements are unsatisfiable.\n\n"
        "      hint: An index URL (https://pypi.acme.com/simple) could not be queried due to a lack of valid "
        "authentication credentials (401 Unauthorized).",
        CREDS,
        REPO,
        "uv-hint-credentials",
    ),
    (
        "conan install . --build=missing",
        "ERROR: Package 'acme-core/1.2.0' not resolved: acme-core/1.2.0: Wrong user or password. "
        "[Remote: acme-artifactory]",
        CREDS,
        REPO,
        "conan-wrong-user",
    ),
    (
        "conan install . --build=missing",
        "ERROR: Permission denied for user: 'ci'. [Remote: artifactory]",
        CREDS,
        REPO,
        "conan-permission-denied",
    ),
    # cpanm installing the dependencies: a CPAN release it fetched fails its own tests
    (
        "cpanm --quiet --installdeps .",
        "--> Working on .\nConfiguring /home/runner/work/Pod-Tern/Pod-Tern ... OK\n"
        "Configuring Data-Walkie-0.31 ... OK\nBuilding and testing Data-Walkie-0.31 ... FAIL\n"
        "! Installing Data::Walkie failed. See /home/runner/.cpanm/work/1720288288.1415/build.log for "
        "details. Retry with --force to force install it.\n"
        "! Installing the dependencies failed: Module 'Data::Walkie' is not installed\n"
        "! Bailing out the installation for /home/runner/work/Pod-Tern/Pod-Tern.",
        "perl.dependency-build-failed",
        UPSTREAM,
        "cpanm-dependency-tests-fail",
    ),
    # a package the release the image runs no longer ships (apt-get's words): the image moved
    (
        "sudo apt-get install -y python2 libasound2",
        "Reading package lists...\nBuilding dependency tree...\nPackage python2 is not available, but is "
        "referred to by another package.\nThis may mean that the package is missing, has been obsoleted, or\n"
        "is only available from another source\n\nE: Package 'python2' has no installation candidate",
        "dependency.system-package-dropped",
        UPSTREAM,
        "apt-no-installation-candidate",
    ),
    # an R package its repository no longer serves: install.packages' warning, pak's error
    (
        'Rscript -e \'install.packages(c("rgeos", "sf"))\'',
        "Warning message:\npackage ‘rgeos’ is not available for this version of R\n\nA version of this "
        "package for your version of R might be available elsewhere,\nsee the ideas at\n"
        "https://cran.r-project.org/doc/manuals/r-patched/R-admin.html#Installing-packages\n"
        "Error in loadNamespace(x) : there is no package called ‘rgeos’",
        "r.package-unavailable",
        UPSTREAM,
        "r-not-available-for-this-version",
    ),
    (
        "Rscript -e 'install.packages(\"rgeos\")'",
        "Warning message:\npackage 'rgeos' is not available (for R version 3.6.3)\n"
        "Error in library(rgeos) : there is no package called 'rgeos'",
        "r.package-unavailable",
        UPSTREAM,
        "r-3-not-available",
    ),
    (
        "Rscript -e 'remotes::install_deps(dependencies = TRUE)'",
        "Error: Failed to install 'unknown package' from CRAN:\n"
        "  package ‘rgeos’ is not available for this version of R\nExecution halted",
        "r.package-unavailable",
        UPSTREAM,
        "remotes-not-available",
    ),
    (
        "Rscript -e 'pak::local_install_deps()'",
        "✖ Failed to resolve dependencies.\nError:\n! error in pak subprocess\nCaused by error:\n"
        "! Could not solve package dependencies:\n* deps::.: Can't install dependency geoshelf\n"
        "* geoshelf: Can't find package called geoshelf.",
        "r.package-unavailable",
        UPSTREAM,
        "pak-cannot-find-package",
    ),
    # node-sass with no binary for the Node that runs it, and the build from source that then fails
    (
        "npm ci",
        "> node-sass@4.14.1 install /home/runner/work/app/app/node_modules/node-sass\n"
        "> node scripts/install.js\n\n"
        "Downloading binary from https://github.com/sass/node-sass/releases/download/v4.14.1/"
        "linux-x64-115_binding.node\n"
        'Cannot download "https://github.com/sass/node-sass/releases/download/v4.14.1/'
        'linux-x64-115_binding.node": \n\nHTTP error 404 Not Found\n\n'
        "Hint: If github.com is not accessible in your location\n"
        "> node-sass@4.14.1 postinstall /home/runner/work/app/app/node_modules/node-sass\n"
        "> node scripts/build.js\n"
        "gyp ERR! build error\ngyp ERR! stack Error: `make` failed with exit code: 2\n"
        "npm ERR! node-sass@4.14.1 postinstall: `node scripts/build.js`\nnpm ERR! Exit status 1",
        "dependency.node-sass-no-binary",
        UPSTREAM,
        "node-sass-no-binary-for-this-node",
    ),
    # a certificate the client refused: the same answer on a re-run, for a person
    (
        "pip install -r requirements.txt",
        "Could not fetch URL https://pypi.org/simple/torch/: There was a problem confirming the ssl "
        "certificate: HTTPSConnectionPool(host='pypi.org', port=443): Max retries exceeded with url: "
        "/simple/torch/ (Caused by SSLError(SSLCertVerificationError(1, '[SSL: CERTIFICATE_VERIFY_FAILED] "
        "certificate verify failed: self-signed certificate in certificate chain (_ssl.c:1000)'))) - skipping"
        "\nERROR: No matching distribution found for torch==2.5.1",
        "network.certificate",
        REPO,
        "pip-certificate-refused",
    ),
]


@pytest.mark.parametrize(
    ("command", "output", "rule", "want"), [pytest.param(*c[:4], id=c[4]) for c in CASES]
)
def test_each_entry_reads_its_tools_words(command: str, output: str, rule: str, want: tuple) -> None:
    diagnosis = diagnose(command, output)
    assert (diagnosis.rule, diagnosis.owner, diagnosis.action) == (rule, *want)


@pytest.mark.parametrize(
    ("command", "output"),
    [
        pytest.param(
            "cargo build --locked",
            "warning: spurious network error (2 tries remaining): [28] Timeout was reached\n   Compiling app "
            "v0.1.0\nerror[E0425]: cannot find value `confg` in this scope\n --> src/main.rs:12:5\n\n"
            'error: could not compile `app` (bin "app") due to 1 previous error',
            id="cargo-retry-then-compile-error",
        ),
        pytest.param(
            "cargo build",
            "warning: spurious network error (2 tries remaining): "
            "failed to get successful HTTP response from "
            "`https://index.crates.io/to/ki/tokio` (151.101.2.137), got 503\n"
            "error: failed to select a version "
            'for the requirement `tokio = "^9.0"`\ncandidate versions found which didn\'t match: 1.37.0',
            id="cargo-503-retry-then-conflict",
        ),
        pytest.param(
            "go test ./...",
            '--- FAIL: TestResolveRef (0.00s)\n    resolve_test.go:31: got error "invalid version: unknown '
            'revision deadbeef", want nil\nFAIL\nFAIL\texample.com/app/resolve\t0.012s',
            id="go-test-quotes-unknown-revision",
        ),
        pytest.param(
            "bundle exec rspec",
            "Failures:\n\n  1) GemSource#fetch asks for credentials\n     Failure/Error: expect(message).to "
            'eq("Authentication is required for gems.acme.com.")\n\n       expected: "Authentication is '
            'required for gems.acme.com."\n            got: "Bad username or password."\n\n'
            "10 examples, 1 failure",
            id="rspec-quotes-bundler-auth",
        ),
        pytest.param(
            "npx jest",
            " FAIL  src/git.test.ts\n  ● git › reports a missing commit\n\n"
            "    expect(received).toBe(expected)"
            f'\n\n    Expected: "fatal: reference is not a tree: {SHA}"\n    Received: "ok"\n\n'
            "Tests:       1 failed, 9 passed, 10 total",
            id="jest-quotes-not-a-tree",
        ),
        pytest.param(
            "cpanm --verbose .",
            "Configuring Pod-Tern-0.01 ... OK\nBuilding and testing Pod-Tern-0.01 ... FAIL\n"
            "t/parse.t .. 1/12\n#   Failed test 'parses a heading'\n# Looks like you failed 1 test of 12.\n"
            "! Installing . failed. See /home/runner/.cpanm/work/1720288288.1415/build.log for details. "
            "Retry with --force to force install it.",
            id="cpanm-testing-the-project-itself",
        ),
        # a package name apt has never heard of: a typo in the pull request's install line
        pytest.param(
            "sudo apt-get install -y libpqq-dev",
            "Reading package lists...\nBuilding dependency tree...\nE: Unable to locate package libpqq-dev",
            id="apt-misspelt-package",
        ),
        # a Suggests package R could not install warns; the failure is the tests'
        pytest.param(
            "Rscript -e 'devtools::test()'",
            "package ‘spatstatlite’ is not available for this version of R\n"
            "══ Failed tests ════════════════════════════════════════════════\n"
            "── Failure ('test-area.R:12:3'): area of a unit square is 1 ──\n"
            "area(unit_square()) not equal to 1.\n1/1 mismatches\n[1] 0 - 1 == -1\n\n"
            "[ FAIL 1 | WARN 1 | SKIP 0 | PASS 41 ]",
            id="r-tests-fail-beside-an-unavailable-suggestion",
        ),
        pytest.param(
            "python -m pytest",
            "    def test_rejects_an_expired_certificate(server):\n>       assert fetch(server.url) == 200\n"
            "E       ssl.SSLCertVerificationError: [SSL: CERTIFICATE_VERIFY_FAILED] "
            "certificate verify failed: certificate has expired (_ssl.c:1000)\n"
            "FAILED tests/test_tls.py::test_rejects_an_expired_certificate - ssl.SSLCertVerificationError\n"
            "========================= 1 failed, 40 passed in 3.10s =========================",
            id="pytest-fixture-certificate-expired",
        ),
        pytest.param(
            "bundle install",
            "Retrying download gem from https://rubygems.org/ due to error (2/4): "
            "Gem::RemoteFetcher::FetchError Net::OpenTimeout: Failed to open TCP connection to "
            "rubygems.org:443 (execution expired)\n"
            "Installing pg_ext 0.3.1 with native extensions\n"
            "Gem::Ext::BuildError: ERROR: Failed to build gem native extension.\n"
            "ext.c:12:10: error: 'PQ_NEW_FLAG' undeclared (first use in this function)\n"
            "An error occurred while installing pg_ext (0.3.1), and Bundler cannot continue.",
            id="bundler-retried-then-a-build-failed",
        ),
    ],
)
def test_the_codes_own_failures_stay_the_codes(command: str, output: str) -> None:
    diagnosis = diagnose(command, output)
    assert diagnosis.owner is Owner.CODE and diagnosis.action in (Action.AGENT, Action.FIX)


@pytest.mark.parametrize(
    "said",
    [
        "You are trying to install in deployment mode after changing\nyour Gemfile. Run `bundle install` "
        "elsewhere and add the\nupdated Gemfile.lock to version control.",
        "The dependencies in your gemfile changed, but the lockfile can't be updated because frozen mode is "
        "set\n\nYou have added to the Gemfile:\n* pagy (~> 9.3)\n\nRun `bundle install` elsewhere and add "
        "the updated Gemfile.lock to version control.",
    ],
)
def test_a_gemfile_changed_without_its_lock_file_is_the_codes(said: str) -> None:
    # ruby/setup-ruby's bundler-cache runs the frozen install in the set-up step
    diagnosis = diagnose_log(job_log("ruby/setup-ruby@v1", ["##[group]bundle install", *said.splitlines()]))
    assert diagnosis.rule == "ruby.bundler"
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)
