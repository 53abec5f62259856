"""A Dependabot pull request's failure (the runner's `Secret source: Dependabot`): the bump's resolver
conflict and the bumped release failing in itself are upstream's; the project's code failing against the new
version stays the code's (`healer/diagnosis/botbump.py`)."""

from __future__ import annotations

import pytest
from joblogs import CODE, UPSTREAM, diagnose_log, job_log, stamped

from healer.diagnosis.botbump import from_dependabot
from healer.model import Owner

SETUP = ["Current runner version: '2.329.0'", "Secret source: Dependabot", "Prepare workflow directory"]


def bot_log(command: str, output: list[str], *, secrets: str = "Dependabot") -> str:
    setup = [line.replace("Dependabot", secrets) for line in SETUP]
    return stamped(setup) + job_log(command, output)


ERESOLVE = [
    "npm error code ERESOLVE",
    "npm error ERESOLVE unable to resolve dependency tree",
    'npm error peer eslint@"^8.0.0 || ^9.0.0" from eslint-plugin-import@2.32.0',
]
INSIDE = [
    "tests/test_client.py:31: in test_head_object",
    '    resp = client.head("bucket/key")',
    "src/s3mirror/client.py:88: in head",
    "/opt/hostedtoolcache/Python/3.12.12/x64/lib/python3.12/site-packages/urllib3/response.py:712: in _init",
    "    content_length = int(length)",
    "E   TypeError: int() argument must be a string, a bytes-like object or a real number, not 'NoneType'",
    "FAILED tests/test_client.py::test_head_object - TypeError: int() argument must be a string",
    "1 failed, 87 passed in 2.30s",
]
OWN_CODE = [
    "tests/test_models.py:12: in test_user",
    "    user = User.parse_obj({'name': 'a'})",
    "src/app/models.py:40: in parse",
    "    return cls.parse_obj(data)",
    "E   AttributeError: type object 'User' has no attribute 'parse_obj'",
    "FAILED tests/test_models.py::test_user - AttributeError: type object 'User' has no attribute 'x'",
    "1 failed, 30 passed in 1.00s",
]
VITE = [
    " FAIL  src/index.test.ts [ src/index.test.ts ]",
    'Error: Failed to resolve entry for package "tiny-emitterx". The package may have incorrect '
    'main/module/exports specified in its package.json: Missing "./dist/index.js" specifier',
]


NATIVE = [
    "Error: Cannot find module '../lightningcss.linux-x64-gnu.node'",
    "Require stack:",
    "- /home/runner/work/css/css/node_modules/lightningcss/node/index.js",
    "- /home/runner/work/css/css/scripts/build.mjs",
    "    at Module._resolveFilename (node:internal/modules/cjs/loader:1225:15) {",
    "  code: 'MODULE_NOT_FOUND',",
]

NODE_CRASH = [
    "node_modules/undici-lite/lib/pool.js:212",
    "    this[kConnect](client, (err) => {",
    "                      ^",
    "TypeError: this[kConnect] is not a function",
    "    at Pool._onDrain (node_modules/undici-lite/lib/pool.js:212:23)",
    "    at scripts/smoke.js:14:5",
    "Node.js v22.21.1",
]


@pytest.mark.parametrize(
    ("command", "output"),
    [
        ("npm ci", ERESOLVE),
        ("pytest", INSIDE),
        ("npm test", VITE),
        ("npm run build", NATIVE),
        ("npm run smoke", NODE_CRASH),
    ],
    ids=[
        "resolver-conflict",
        "raised-inside-the-release",
        "release-without-its-entry",
        "release-without-a-file",
        "node-stack-inside-the-release",
    ],
)
def test_a_dependabot_bumps_own_failure_is_upstreams(command: str, output: list[str]) -> None:
    diagnosis = diagnose_log(bot_log(command, output), job="test")
    assert (diagnosis.owner, diagnosis.action) == UPSTREAM
    assert "Dependabot pull request" in dict(diagnosis.decided_by)["evidence"]


def test_the_projects_code_failing_against_the_bumped_version_is_the_codes() -> None:
    diagnosis = diagnose_log(bot_log("pytest", OWN_CODE), job="test")
    assert (diagnosis.owner, diagnosis.action) == CODE
    # the project's own script requiring a file it does not have
    own = [line.replace("node_modules/lightningcss/node/index.js", "scripts/css.js") for line in NATIVE]
    assert (diagnose_log(bot_log("npm run build", own), job="build").owner) is Owner.CODE
    # a Node.js stack whose innermost frame is the project's script
    mine = [NODE_CRASH[3], "    at runSmoke (scripts/smoke.js:14:5)", NODE_CRASH[4]]
    assert (diagnose_log(bot_log("npm run smoke", mine), job="test").owner) is Owner.CODE


@pytest.mark.parametrize("output", [ERESOLVE, INSIDE, VITE, NATIVE])
def test_the_same_failures_of_a_persons_pull_request_keep_their_reading(output: list[str]) -> None:
    diagnosis = diagnose_log(bot_log("npm ci", output, secrets="Actions"), job="test")
    assert (diagnosis.owner, diagnosis.action) == CODE


def test_only_the_set_up_section_says_whose_secrets_the_job_has() -> None:
    assert from_dependabot(stamped(SETUP).splitlines())
    late = stamped(["##[group]Run echo", "##[endgroup]", "Secret source: Dependabot"]).splitlines()
    assert not from_dependabot(late)


def test_a_release_that_says_the_api_moved_leaves_the_change_to_the_code() -> None:
    moved = [
        "tests/test_settings.py:4: in <module>",
        "    from app.settings import Settings",
        "app/settings.py:2: in <module>",
        "    from pydantic import BaseSettings",
        "/opt/hostedtoolcache/Python/3.12.12/x64/lib/python3.12/site-packages/pydantic/__init__.py:426: in "
        "__getattr__",
        "    return _getattr_migration(attr_name)",
        "E   pydantic.errors.PydanticImportError: `BaseSettings` has been moved to the `pydantic-settings` "
        "package. See https://docs.pydantic.dev/2.12/migration/#basesettings-has-moved-to-pydantic-settings",
        "ERROR tests/test_settings.py - pydantic.errors.PydanticImportError: `BaseSettings` has been moved",
    ]
    assert diagnose_log(bot_log("pytest", moved), job="test").owner is Owner.CODE


def test_a_release_that_says_a_keyword_is_removed_and_what_to_use_leaves_the_change_to_the_code() -> None:
    removed = [
        "tests/test_schema.py:3: in <module>",
        "    from app.schema import Event",
        "app/schema.py:9: in Event",
        "    kind: str = Field(const=True)",
        "/opt/hostedtoolcache/Python/3.12.12/x64/lib/python3.12/site-packages/pydantic/fields.py:1026: "
        "in Field",
        "    raise PydanticUserError('`const` is removed, use `Literal` instead', code='removed-kwargs')",
        "E   pydantic.errors.PydanticUserError: `const` is removed, use `Literal` instead",
        "ERROR tests/test_schema.py - pydantic.errors.PydanticUserError: `const` is removed, use `Literal` "
        "instead",
    ]
    assert diagnose_log(bot_log("pytest", removed), job="test").owner is Owner.CODE


def test_a_release_refusing_the_arguments_the_code_passed_leaves_the_change_to_the_code() -> None:
    refused = [
        "______________________ test_no_warning_on_valid_config ______________________",
        "tests/test_warnings.py:12: in test_no_warning_on_valid_config",
        "    with pytest.warns(None) as record:",
        "/opt/hostedtoolcache/Python/3.12.11/x64/lib/python3.12/site-packages/_pytest/recwarn.py:281: in"
        " __init__",
        "    raise TypeError(msg % type(expected_warning))",
        "E   TypeError: exceptions must be derived from Warning, not <class 'NoneType'>",
        "FAILED tests/test_warnings.py::test_no_warning_on_valid_config - TypeError: exceptions must be"
        " derived from Warning, not <class 'NoneType'>",
    ]
    assert diagnose_log(bot_log("pytest", refused), job="test").owner is Owner.CODE
    # the same release failing on its own internals stays the bump's
    crashed = [
        *refused[:4],
        "    return self._state.kind",
        "E   AttributeError: 'NoneType' object has no attribute 'kind'",
    ]
    crashed.append(
        "FAILED tests/test_warnings.py::test_no_warning_on_valid_config - AttributeError: 'NoneType'"
    )
    assert (diagnose_log(bot_log("pytest", crashed), job="test").owner, "escalate") == (
        Owner.UPSTREAM,
        "escalate",
    )


def test_a_removal_read_as_an_unpinned_releases_is_the_codes_on_the_bump_that_brought_it() -> None:
    removed = [
        "_______________ ERROR at setup of test_fetch_many ________________",
        "file /home/runner/work/relay/relay/tests/test_fetch.py, line 12",
        "  async def test_fetch_many(event_loop):",
        "E       fixture 'event_loop' not found",
        ">       available fixtures: anyio_backend, cache, capfd, monkeypatch, tmp_path",
        "ERROR tests/test_fetch.py::test_fetch_many",
    ]
    bumped = diagnose_log(bot_log("pytest", removed), job="test")
    assert (bumped.rule, bumped.owner, bumped.action) == (
        "python.pytest-asyncio-event-loop-removed",
        Owner.CODE,
        CODE[1],
    )
    # the same removal on a person's pull request: an unpinned install met the new release, upstream's
    assert diagnose_log(bot_log("pytest", removed, secrets="Actions"), job="test").owner is Owner.UPSTREAM
