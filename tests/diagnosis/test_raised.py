"""An exception a file of the checkout raised is the pull request's code, whatever the step is for; one
raised by an installed package, or about the world (the network, a credential, an unset variable), is
left to the other readings."""

from __future__ import annotations

import pytest
from joblogs import diagnose_log, job_log

from healer.diagnosis.raised import in_the_checkout, last_raised
from healer.diagnosis.thrown import last_thrown
from healer.model import Action, Category, Owner

WORK = "/home/runner/work/acme/acme"


def diagnose(command: str, output: list[str], job: str = "release"):  # noqa: ANN201
    return diagnose_log(job_log(command, output, cleanup=True), job=job)


def traceback(*frames: str, last: str) -> list[str]:
    out = ["Traceback (most recent call last):"]
    for path in frames:
        out += [f'  File "{path}", line 12, in main', "    do_it()"]
    return [*out, last]


def test_a_release_script_that_raised_is_the_codes() -> None:
    output = traceback(
        f"{WORK}/scripts/release.py",
        f"{WORK}/scripts/changelog.py",
        last="AttributeError: 'NoneType' object has no attribute 'group'",
    )
    diagnosis = diagnose("python scripts/release.py --tag v1.4.0", output)
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)
    assert "AttributeError raised in changelog.py" in dict(diagnosis.decided_by)["evidence"]


def test_a_warning_made_an_error_in_the_checkout_is_the_codes() -> None:
    output = traceback(
        f"{WORK}/run.py",
        f"{WORK}/pkg/__init__.py",
        last="DeprecationWarning: pkg.config.load() is deprecated; use pkg.settings",
    )
    diagnosis = diagnose("python -W error::DeprecationWarning run.py", output, job="smoke")
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)


def test_an_import_the_checkout_made_is_a_dependency_of_the_code() -> None:
    output = traceback("docs/conf.py", last="ModuleNotFoundError: No module named 'sphinx_rtd_theme'")
    diagnosis = diagnose("python docs/build.py", output, job="docs")
    assert (diagnosis.owner, diagnosis.category, diagnosis.action) == (
        Owner.CODE,
        Category.DEPENDENCY,
        Action.AGENT,
    )


@pytest.mark.parametrize(
    "output",
    [
        pytest.param(
            traceback(f"{WORK}/scripts/release.py", last="KeyError: 'PYPI_TOKEN'"), id="unset-variable"
        ),
        pytest.param(
            traceback(
                f"{WORK}/scripts/release.py",
                f"{WORK}/.venv/lib/python3.12/site-packages/requests/adapters.py",
                last="requests.exceptions.ConnectionError: HTTPSConnectionPool(host='upload.pypi.org')",
            ),
            id="installed-package-and-network",
        ),
        pytest.param(
            traceback(
                f"{WORK}/scripts/release.py",
                last="RuntimeError: upload refused: 403 Forbidden (invalid API token)",
            ),
            id="refused-credential",
        ),
        pytest.param(
            traceback(f"{WORK}/scripts/release.py", last="SystemExit: 2"),
            id="stopped-on-purpose",
        ),
    ],
)
def test_an_exception_about_the_world_or_installed_code_is_not_read_as_the_codes(output: list[str]) -> None:
    diagnosis = diagnose("python scripts/release.py --tag v1.4.0", output)
    assert diagnosis.owner is not Owner.CODE
    assert diagnosis.action is not Action.AGENT


def test_the_innermost_frame_of_the_last_traceback_near_the_end_is_read() -> None:
    first = traceback("a.py", last="ValueError: first")
    second = traceback("b.py", "/usr/lib/python3.12/json/decoder.py", last="json.JSONDecodeError: bad")
    assert last_raised(
        [*first, "During handling of the above exception, another exception occurred:", *second]
    ) == (
        "/usr/lib/python3.12/json/decoder.py",
        "json.JSONDecodeError",
        "bad",
    )
    assert last_raised([*first, *(["noise"] * 60)]) is None


@pytest.mark.parametrize(
    ("path", "ours"),
    [
        (f"{WORK}/src/app.py", True),
        ("/home/travis/build/acme/acme/setup.py", True),
        ("/__w/acme/acme/tools/gen.py", True),
        ("D:\\a\\acme\\acme\\build.py", True),
        ("scripts/release.py", True),
        (f"{WORK}/.venv/lib/python3.12/site-packages/x.py", False),
        ("/usr/lib/python3.12/subprocess.py", False),
        ("<frozen runpy>", False),
        ("/opt/hostedtoolcache/Python/3.12.8/x64/lib/python3.12/x.py", False),
    ],
)
def test_which_files_are_the_checkouts(path: str, ours: bool) -> None:
    assert in_the_checkout(path) is ours


SITE = "/opt/hostedtoolcache/Python/3.9.24/x64/lib/python3.9/site-packages"


def collection_error(importer: str, target: str) -> list[str]:
    return [
        "==================================== ERRORS ====================================",
        "___________________ ERROR collecting tests/test_render.py ___________________",
        "tests/test_render.py:1: in <module>",
        "    from reports import render",
        f"{importer}:25: in <module>",
        "    from .defaults import BLOCK_END_STRING",
        f"E   ImportError: cannot import name 'soft_unicode' from 'markupsafe' ({target})",
        "=========================== short test summary info ============================",
        "ERROR tests/test_render.py",
        "!!!!!!!!!!!!!!!!!!!! Interrupted: 1 error during collection !!!!!!!!!!!!!!!!!!!!",
    ]


def test_an_installed_package_importing_a_name_another_no_longer_has_is_upstreams() -> None:
    output = collection_error(f"{SITE}/jinja2/environment.py", f"{SITE}/markupsafe/__init__.py")
    diagnosis = diagnose("pytest -q", output, job="test")
    assert (diagnosis.owner, diagnosis.category, diagnosis.action) == (
        Owner.UPSTREAM,
        Category.DEPENDENCY,
        Action.ESCALATE,
    )


@pytest.mark.parametrize(
    ("importer", "target"),
    [
        pytest.param(f"{WORK}/reports/render.py", f"{SITE}/markupsafe/__init__.py", id="the-code-imports"),
        pytest.param(f"{WORK}/reports/render.py", f"{WORK}/reports/defaults.py", id="the-code-renamed-it"),
    ],
)
def test_the_codes_own_import_of_a_missing_name_stays_the_codes(importer: str, target: str) -> None:
    diagnosis = diagnose("pytest -q", collection_error(importer, target), job="test")
    assert diagnosis.owner is Owner.CODE


def import_of(module: str) -> list[str]:
    return [
        "ImportError while loading conftest '/home/runner/work/acme/acme/conftest.py'.",
        "conftest.py:2: in <module>",
        "    import yamlkit",
        f"{SITE}/yamlkit/__init__.py:4: in <module>",
        "    from ._speedups import load",
        f"E   ModuleNotFoundError: No module named '{module}'",
    ]


def test_an_installed_package_missing_a_module_of_its_own_is_a_broken_release() -> None:
    diagnosis = diagnose("pytest -q", import_of("yamlkit._speedups"), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.UPSTREAM, Action.ESCALATE)


def test_an_installed_package_missing_another_package_is_left_to_the_other_readings() -> None:
    # the job's install may have left the other package out (`--no-deps`, an extra not asked for)
    assert diagnose("pytest -q", import_of("charset_normalizer"), job="test").owner is not Owner.UPSTREAM


def test_an_older_pythons_import_error_without_its_module_is_read_the_same() -> None:
    """Before Python 3.8 the message names the missing name only: the importing frame says whose it is."""
    output = [
        "Traceback (most recent call last):",
        '  File "/home/travis/virtualenv/python3.6.7/bin/pytest", line 8, in <module>',
        "    sys.exit(main())",
        '  File "/home/travis/virtualenv/python3.6.7/lib/python3.6/site-packages/pytest_cov/plugin.py", '
        "line 12, in <module>",
        "    from coverage.results import display_covered",
        "ImportError: cannot import name 'display_covered'",
    ]
    diagnosis = diagnose("pytest", output, job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.UPSTREAM, Action.ESCALATE)


def internal_error(where: str) -> list[str]:
    return [
        "INTERNALERROR> Traceback (most recent call last):",
        f'INTERNALERROR>   File "{SITE}/_pytest/main.py", line 289, in wrap_session',
        "INTERNALERROR>     session.exitstatus = doit(config, session) or 0",
        f'INTERNALERROR>   File "{where}", line 41, in pytest_collection_modifyitems',
        'INTERNALERROR>     for marker in item.iter_markers(name="parametrize", closest=True):',
        "INTERNALERROR> TypeError: Node.iter_markers() got an unexpected keyword argument 'closest'",
    ]


def test_a_pytest_plugin_that_crashed_pytest_is_upstreams() -> None:
    output = internal_error(f"{SITE}/pytest_lazy_fixtures/plugin.py")
    diagnosis = diagnose_log(job_log("pytest", output, exit_code=3), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.UPSTREAM, Action.ESCALATE)
    assert "installed plugin pytest_lazy_fixtures" in dict(diagnosis.decided_by)["evidence"]


@pytest.mark.parametrize(
    "where", [f"{WORK}/tests/conftest.py", f"{SITE}/_pytest/python.py"], ids=["conftest", "pytest-itself"]
)
def test_an_internal_error_of_the_checkouts_conftest_or_of_pytest_itself_is_not_a_plugins(where: str) -> None:
    diagnosis = diagnose_log(job_log("pytest", internal_error(where), exit_code=3), job="test")
    assert diagnosis.owner is not Owner.UPSTREAM


def configure_crash(*frames: str) -> list[str]:
    return [
        "Traceback (most recent call last):",
        '  File "/opt/hostedtoolcache/Python/3.12.12/x64/bin/pytest", line 8, in <module>',
        "    sys.exit(console_main())",
        f'  File "{SITE}/_pytest/config/__init__.py", line 201, in console_main',
        "    code = main()",
        *frames,
        "TypeError: Config.addinivalue_line() got an unexpected keyword argument 'legacy'",
    ]


def test_a_plugin_that_crashed_pytest_before_any_checkout_file_ran_is_upstreams() -> None:
    output = configure_crash(f'  File "{SITE}/pytest_snapcheck/plugin.py", line 44, in pytest_configure')
    diagnosis = diagnose_log(job_log("pytest", output), job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.UPSTREAM, Action.ESCALATE)


def test_a_crash_through_the_checkouts_conftest_is_not_read_as_a_plugins() -> None:
    output = configure_crash(
        f'  File "{WORK}/tests/conftest.py", line 9, in pytest_configure',
        f'  File "{SITE}/pytest_snapcheck/plugin.py", line 44, in register',
    )
    diagnosis = diagnose_log(job_log("pytest", output), job="test")
    assert diagnosis.owner is not Owner.UPSTREAM


ACTION_CRASH = [
    "Restoring Gradle User Home from cache key: gradle-home-v1|Linux-X64|build",
    "##[error]TypeError: Cannot read properties of undefined (reading 'split')",
    "    at parseCacheKey (/home/runner/work/_actions/gradle/actions/v5/dist/main/index.js:18:31)",
    "    at process.processTicksAndRejections (node:internal/process/task_queues:105:5)",
]


def test_an_action_that_crashed_in_its_own_code_is_upstreams() -> None:
    diagnosis = diagnose("gradle/actions/setup-gradle@v5", ACTION_CRASH, job="build")
    assert (diagnosis.owner, diagnosis.action) == (Owner.UPSTREAM, Action.ESCALATE)
    assert "an action crashed in its own code" in dict(diagnosis.decided_by)["evidence"]


def test_an_actions_ref_without_its_entry_file_is_upstreams() -> None:
    missing = (
        "##[error]File not found: '/home/runner/work/_actions/acme-labs/setup-protoc/main/dist/index.js'"
    )
    diagnosis = diagnose("acme-labs/setup-protoc@main", [missing], job="build")
    assert (diagnosis.owner, diagnosis.action) == (Owner.UPSTREAM, Action.ESCALATE)
    assert "lacks its own entry file" in dict(diagnosis.decided_by)["evidence"]
    # a local action's file is the checkout's: not the publisher's
    local = f"##[error]File not found: '{WORK}/.github/actions/setup/dist/index.js'"
    assert diagnose("./.github/actions/setup", [local], job="build").owner is not Owner.UPSTREAM


def test_an_actions_bundle_without_a_module_it_needs_is_upstreams() -> None:
    # Node's MODULE_NOT_FOUND for the action's own entry, and for a module its bundle requires
    entry = "Error: Cannot find module '/home/runner/work/_actions/acme-labs/setup-taplo/v2/dist/index.js'"
    required = [
        "Error: Cannot find module './lib/download'",
        "Require stack:",
        "- /home/runner/work/_actions/acme-labs/setup-taplo/v2/dist/index.js",
    ]
    for output in ([entry], required):
        diagnosis = diagnose("acme-labs/setup-taplo@v2", output, job="build")
        assert (diagnosis.owner, diagnosis.action) == (Owner.UPSTREAM, Action.ESCALATE)
        assert "lacks a file of its own bundle" in dict(diagnosis.decided_by)["evidence"]
    # the project's own script that misses a module it requires: the code's
    own = ["Error: Cannot find module './lib/download'", "Require stack:", f"- {WORK}/scripts/fetch.js"]
    assert diagnose("node scripts/fetch.js", own, job="build").owner is not Owner.UPSTREAM


@pytest.mark.parametrize(
    "output",
    [
        # the step's own script, run by actions/github-script as eval: the script's error
        [
            "TypeError: Cannot read properties of undefined (reading 'number')",
            "    at eval (eval at callAsyncFunction (/home/runner/work/_actions/actions/github-script/v8/"
            "dist/index.js:36187:16), <anonymous>:3:40)",
        ],
        # an HTTP answer the action passes on is not a bug of its code
        [
            "RequestError [HttpError]: Resource not accessible by integration",
            "    at /home/runner/work/_actions/actions/github-script/v8/dist/index.js:9537:21",
        ],
        # the project's own script crashed
        [
            "TypeError: this.emit is not a function",
            f"    at Server.close ({WORK}/src/server.js:40:12)",
        ],
    ],
)
def test_an_error_that_is_not_the_actions_own_crash_is_left_to_the_other_readings(output: list[str]) -> None:
    assert diagnose("actions/github-script@v8", output, job="label").owner is not Owner.UPSTREAM


@pytest.mark.parametrize(
    ("command", "output"),
    [
        # pytest importing an installed release written for a newer Python
        (
            "pytest",
            [
                "ImportError while loading conftest '/home/travis/build/a/b/conftest.py'.",
                'E     File "/home/travis/virtualenv/python2.7.15/lib/python2.7/site-packages/more_itertools/'
                'more.py", line 340',
                "E       def _collate(*iterables, key=lambda a: a, reverse=False):",
                "E                                  ^",
                "E   SyntaxError: invalid syntax",
            ],
        ),
        # pytest's own location line for a module its conftest imported and could not parse
        (
            "python -m pytest",
            [
                "ImportError while loading conftest '/home/travis/build/a/b/tests/conftest.py'.",
                "tests/conftest.py:3: in <module>",
                "    import weirctl",
                "weirctl/__init__.py:1: in <module>",
                "    from tinyfsm import Machine",
                "../../../virtualenv/python3.7.13/lib/python3.7/site-packages/tinyfsm/__init__.py:41",
                "    if (n := len(states)) == 0:",
                "           ^",
                "SyntaxError: invalid syntax",
            ],
        ),
        # pip collecting a dependency whose setup.py this Python cannot parse
        (
            "pip install -e .[test]",
            [
                "Collecting zope.deprecation>=4.0",
                "    Traceback (most recent call last):",
                '      File "<string>", line 1, in <module>',
                '      File "/tmp/pip-install-2b7yq1/zope.deprecation/setup.py", line 35',
                "        python_requires=f'>={MIN_PY}',",
                "    SyntaxError: invalid syntax",
            ],
        ),
    ],
)
def test_a_release_this_python_cannot_parse_is_upstreams(command: str, output: list[str]) -> None:
    diagnosis = diagnose(command, output, job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.UPSTREAM, Action.ESCALATE)
    assert "newer Python" in dict(diagnosis.decided_by)["evidence"]


def test_a_syntax_error_in_the_checkout_or_in_code_run_from_a_string_stays_the_codes() -> None:
    mine = [
        f'  File "{WORK}/src/app/cli.py", line 12',
        "    print 'hello'",
        "SyntaxError: Missing parentheses in call to 'print'. Did you mean print(...)?",
    ]
    assert diagnose("python -m app", mine, job="test").owner is Owner.CODE
    located = [
        "tests/conftest.py:3: in <module>",
        "app/models.py:41",
        "    match kind:",
        "SyntaxError: invalid",
    ]
    assert diagnose("python -m pytest", located, job="test").owner is Owner.CODE
    inline = ['  File "<string>", line 1', "    import app;;", "SyntaxError: invalid syntax"]
    assert diagnose("python -c 'import app;;'", inline, job="test").owner is Owner.CODE


def test_the_projects_own_package_tox_installed_stays_the_codes() -> None:
    # tox builds the checkout into an sdist and installs it into the environment's site-packages
    tox = ".tox/py39/lib/python3.9/site-packages"
    output = [
        "py39: install_package> python -I -m pip install --force-reinstall --no-deps "
        f"{WORK}/.tox/.tmp/package/1/routewise-0.9.1.dev3.tar.gz",
        "py39: commands[0]> pytest -q",
        f"ImportError while loading conftest '{WORK}/tests/conftest.py'.",
        f'E     File "{WORK}/{tox}/routewise/dispatch.py", line 41',
        "E       match request.method:",
        "E   SyntaxError: invalid syntax",
    ]
    assert diagnose("tox -e py39", output, job="test").owner is Owner.CODE
    # another package in the same environment is still another's release
    other = [line.replace("/routewise/dispatch.py", "/more_itertools/more.py") for line in output]
    assert diagnose("tox -e py39", other, job="test").owner is Owner.UPSTREAM
    # tox 3 says the same install as "py39 inst: …"
    tox3 = [f"py39 inst: {WORK}/.tox/.tmp/package/1/routewise-0.9.1.zip", *output[2:]]
    assert diagnose("tox -e py39", tox3, job="test").owner is Owner.CODE


def node_syntax(path: str, message: str) -> list[str]:
    """Node.js's report of a file it cannot parse: location, source line, caret, then the error."""
    return [
        "> acme@3.0.1 test",
        "> mocha test/",
        f"{path}:41",
        "    const depth = suite?.parent ? indent(suite.parent) + 1 : 0;",
        "                        ^",
        "",
        f"SyntaxError: {message}",
        "    at new Script (vm.js:83:7)",
        "    at Module._compile (internal/modules/cjs/loader.js:633:28)",
        "npm ERR! Test failed.  See above for more details.",
    ]


@pytest.mark.parametrize(
    "message", ["Unexpected token .", "Unexpected token '?'", "Invalid regular expression flags"]
)
def test_a_release_this_node_cannot_parse_is_upstreams(message: str) -> None:
    output = node_syntax("/home/travis/build/a/acme/node_modules/mocha-spec-tree/lib/reporter.js", message)
    diagnosis = diagnose("npm test", output, job="node 8")
    assert (diagnosis.owner, diagnosis.action) == (Owner.UPSTREAM, Action.ESCALATE)
    assert "newer Node.js" in dict(diagnosis.decided_by)["evidence"]


def test_an_es_module_release_that_imports_what_this_nodes_built_ins_lack_is_upstreams() -> None:
    npx = (
        "file:///home/runner/.npm/_npx/a4bc0da72d6a9daa/node_modules/markdownlint-cli2/markdownlint-cli2.mjs"
    )
    message = "The requested module 'node:util' does not provide an export named 'styleText'"
    diagnosis = diagnose("npx markdownlint-cli2 '**/*.md'", node_syntax(npx, message), job="docs")
    assert (diagnosis.owner, diagnosis.action) == (Owner.UPSTREAM, Action.ESCALATE)
    # the project's own module missing an export of another of its modules stays the code's
    mine = node_syntax(
        f"file://{WORK}/src/cli.mjs", "The requested module './util.js' does not provide an export named 'x'"
    )
    assert diagnose("node src/cli.mjs", mine, job="test").owner is not Owner.UPSTREAM


def test_node_syntax_the_project_must_change_stays_the_codes() -> None:
    # a file of the checkout
    mine = node_syntax(f"{WORK}/lib/reporter.js", "Unexpected token .")
    assert diagnose("npm test", mine, job="test").owner is Owner.CODE
    # an ES module loaded as CommonJS: how the project requires it, not a newer syntax
    esm = node_syntax(f"{WORK}/node_modules/uuid/dist/index.js", "Unexpected token 'export'")
    assert diagnose("npm test", esm, job="test").owner is Owner.CODE
    # Jest's report of a dependency it did not transform: the project's Jest configuration
    jest = [
        " FAIL  src/id.test.js",
        "  ● Test suite failed to run",
        "",
        "    Jest encountered an unexpected token",
        "",
        "    Details:",
        "",
        f"    {WORK}/node_modules/nanoid/index.js:3",
        "    const x = a?.b;",
        "              ^",
        "",
        "    SyntaxError: Unexpected token .",
        "",
        "Test Suites: 1 failed, 4 passed, 5 total",
    ]
    assert diagnose("npx jest", jest, job="test").owner is Owner.CODE


def test_an_installed_package_requiring_one_that_became_an_es_module_is_upstreams() -> None:
    modules = "/home/runner/work/sage/sage/node_modules"
    esm = (
        f"Error [ERR_REQUIRE_ESM]: require() of ES Module {modules}/string-width/index.js from "
        f"{modules}/cliui/build/index.cjs not supported."
    )
    diagnosis = diagnose("npm test", [esm, "  code: 'ERR_REQUIRE_ESM'"], job="test")
    assert (diagnosis.owner, diagnosis.action) == (Owner.UPSTREAM, Action.ESCALATE)
    assert "now an ES module" in dict(diagnosis.decided_by)["evidence"]
    # the project's own file require()-ing it: the code moves to import
    own = esm.replace(f"{modules}/cliui/build/index.cjs", f"{WORK}/src/cli.js")
    assert diagnose("npm test", [own, "  code: 'ERR_REQUIRE_ESM'"], job="test").owner is not Owner.UPSTREAM


def stack(*frames: str, error: str) -> list[str]:
    """Node's report of an uncaught error: the error's line, then its frames from the innermost."""
    return [error, *(f"    at {frame}" for frame in frames), "", "Node.js v20.19.2"]


def test_a_node_error_thrown_by_a_file_of_the_checkout_is_the_codes() -> None:
    output = [
        f"{WORK}/lib/ingest-stack.ts:38",
        "      BUCKET_NAME: props.archive.bucketName,",
        "                                 ^",
        *stack(
            f"new IngestStack ({WORK}/lib/ingest-stack.ts:38:34)",
            f"Object.<anonymous> ({WORK}/bin/app.ts:21:1)",
            "Module._compile (node:internal/modules/cjs/loader:1730:14)",
            error="TypeError: Cannot read properties of undefined (reading 'bucketName')",
        ),
        "",
        "Subprocess exited with error 1",
    ]
    diagnosis = diagnose("npx cdk synth --all --quiet", output, job="synth")
    assert (diagnosis.owner, diagnosis.action) == (Owner.CODE, Action.AGENT)
    assert "ingest-stack.ts" in dict(diagnosis.decided_by)["evidence"]


@pytest.mark.parametrize(
    "output",
    [
        pytest.param(
            stack(f"file://{WORK}/scripts/deploy.mjs:8:9", error="Error: AWS_ACCESS_KEY_ID is not set"),
            id="unset-variable",
        ),
        pytest.param(
            stack(
                f"fetchRelease ({WORK}/node_modules/@acme/publish/dist/index.js:88:11)",
                f"async main ({WORK}/scripts/publish.js:12:3)",
                error="TypeError: Cannot read properties of null (reading 'tag_name')",
            ),
            id="installed-package",
        ),
        pytest.param(
            stack(
                "Object.openSync (node:fs:573:18)",
                f"Object.<anonymous> ({WORK}/scripts/publish.js:4:20)",
                error="Error: ENOENT: no such file or directory, open 'dist/index.js'",
            ),
            id="nodes-own-module",
        ),
        pytest.param(
            stack(f"async main ({WORK}/scripts/publish.js:30:5)", error="HttpError: Bad credentials"),
            id="refused-credential",
        ),
    ],
)
def test_a_node_error_about_the_world_installed_code_or_node_itself_is_not_read_as_the_codes(
    output: list[str],
) -> None:
    diagnosis = diagnose("node scripts/publish.js", output)
    assert diagnosis.owner is not Owner.CODE
    assert diagnosis.action is not Action.AGENT


def test_the_innermost_frame_of_the_last_node_stack_near_the_end_is_read() -> None:
    first = stack("a (/tmp/a.js:1:1)", error="Error: first")
    second = stack(
        f"b (file://{WORK}/b.mjs:2:3)", "c (/tmp/c.js:4:5)", error="RangeError [ERR_OUT_OF_RANGE]: x"
    )
    assert last_thrown([*first, *second]) == (f"{WORK}/b.mjs", "RangeError", "x")
    assert last_thrown(["Error: far", "    at f (/tmp/f.js:1:1)", *["ok"] * 60]) is None
    assert last_thrown(["Error: no frame", "then a line"]) is None
