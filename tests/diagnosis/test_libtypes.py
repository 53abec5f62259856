"""Type errors only in installed packages' declarations are upstream's (`healer/diagnosis/libtypes.py`);
one error in the project's own files keeps the type check the code's."""

from __future__ import annotations

import pytest
from joblogs import CODE, UPSTREAM, diagnose_log, job_log

CLASH = [
    "node_modules/@types/node/web-globals/fetch.d.ts(29,5): error TS2717: Subsequent property declarations "
    "must have the same type.  Property 'body' must be of type 'ReadableStream<any> | null'.",
    "node_modules/@cloudflare/workers-types/index.d.ts(41,13): error TS2403: Subsequent variable "
    "declarations must have the same type.",
]
PRETTY = [
    "node_modules/@types/node/globals.d.ts:72:13 - error TS2403: Subsequent variable declarations must have "
    "the same type.",
    "",
    "Found 1 error in node_modules/@types/node/globals.d.ts:72",
]


@pytest.mark.parametrize("output", [CLASH, PRETTY], ids=["plain", "pretty"])
def test_type_errors_only_in_installed_declarations_are_upstreams(output: list[str]) -> None:
    diagnosis = diagnose_log(job_log("npx tsc --noEmit", output), job="typecheck")
    assert (diagnosis.owner, diagnosis.action) == UPSTREAM
    assert "installed package's declarations" in dict(diagnosis.decided_by)["evidence"]


@pytest.mark.parametrize(
    "extra",
    [
        "src/server.ts(12,7): error TS2322: Type 'string' is not assignable to type 'number'.",
        "e2e/app.e2e-spec.ts (5,1): Cannot find name 'describe'. (2304)",
    ],
    ids=["tsc", "ts-node"],
)
def test_one_error_in_the_projects_files_keeps_it_the_codes(extra: str) -> None:
    diagnosis = diagnose_log(job_log("npx tsc --noEmit", [*CLASH, extra]), job="typecheck")
    assert (diagnosis.owner, diagnosis.action) == CODE
