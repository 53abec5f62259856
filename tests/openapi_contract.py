"""Check requests and fake responses against a copy of GitHub's OpenAPI description.

``tests/fixtures/github/rest-subset.openapi.json`` holds the REST operations the healer may use, cut from
GitHub's official description (fully dereferenced, OpenAPI 3.0). Tests use this module to prove that

* every request the client makes is an operation of that subset, with declared query parameters of the right
  type and a body that validates against the operation's ``requestBody`` schema (:func:`check_request`), and
* every fake response a test serves has GitHub's shape for that status (:func:`check_response`).

Typical use with ``responses``::

    # tests/ is on sys.path under pytest (rootdir-relative imports, no package)
    from openapi_contract import check_calls, example_response, url_pattern

    rsps.get(url_pattern(url), json=example_response("pulls/get"))
    ...
    check_calls(rsps.calls, api_base="https://api.github.com")

Requests that do not go to the API (the signed log URL a log download is redirected to) are told apart with
:func:`is_api_request` and are exempt.
"""

from __future__ import annotations

import copy
import functools
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import jsonschema

SPEC_PATH = Path(__file__).parent / "fixtures" / "github" / "rest-subset.openapi.json"
# operations the cut subset does not hold yet, written from GitHub's REST reference (see its description)
ADDITIONS_PATH = SPEC_PATH.with_name("rest-additions.openapi.json")
METHODS = ("get", "put", "post", "patch", "delete", "head")


@dataclass(frozen=True)
class Operation:
    """One REST operation of the subset, matched against a concrete request."""

    operation_id: str  # e.g. "pulls/get"
    method: str  # upper case
    template: str  # e.g. "/repos/{owner}/{repo}/pulls/{pull_number}"
    path_params: Mapping[str, str]  # the values in the request's path, percent-decoded
    spec: Mapping[str, Any]  # the operation object of the description

    def parameters(self, location: str) -> dict[str, Mapping[str, Any]]:
        """Declared parameters in ``location`` ("query", "path"), by name."""
        return {p["name"]: p for p in self.spec.get("parameters", ()) if p["in"] == location}


# -- the description, loaded once ----------------------------------------------------------------------------


@functools.lru_cache(maxsize=1)
def load_spec() -> dict[str, Any]:
    """The OpenAPI description (parsed once per test session)."""
    with SPEC_PATH.open(encoding="utf-8") as fh:
        spec: dict[str, Any] = json.load(fh)
    with ADDITIONS_PATH.open(encoding="utf-8") as fh:
        additions: dict[str, Any] = json.load(fh)
    for path, item in additions["paths"].items():
        assert path not in spec["paths"], f"{path} is in the subset now: drop it from {ADDITIONS_PATH.name}"
        spec["paths"][path] = item
    return spec


@dataclass(frozen=True)
class _Route:
    method: str
    template: str
    pattern: re.Pattern[str]
    literal_length: int  # prefer the most specific template when two could match


@functools.lru_cache(maxsize=1)
def _routes() -> tuple[_Route, ...]:
    routes = []
    for template, item in load_spec()["paths"].items():
        regex = ""
        for piece in re.split(r"(\{[^}]+\})", template):
            if piece.startswith("{"):
                name = piece[1:-1]
                # `{path}` of repos/get-content may span several segments (a file in a folder)
                # `{ref}` of git/delete-ref too (`heads/ci-healer/7-abc1234`: x-multi-segment)
                segment = ".+" if name in ("path", "ref") and template.endswith("{" + name + "}") else "[^/]+"
                regex += f"(?P<{name}>{segment})"
            else:
                regex += re.escape(piece)
        literal = len(re.sub(r"\{[^}]+\}", "", template))
        for method in item:
            if method in METHODS:
                routes.append(_Route(method.upper(), template, re.compile(regex + "$"), literal))
    return tuple(routes)


def _api_path(path: str) -> tuple[str, str]:
    """Split a request path into (prefix, API path): GHES serves the API under ``/api/v3``."""
    index = path.find("/repos/")
    if index <= 0:
        return "", path
    return path[:index], path[index:]


def match_operation(method: str, url: str) -> Operation:
    """The operation of the subset that ``method url`` calls; AssertionError when there is none.

    The API base prefix (``/api/v3`` on GitHub Enterprise Server) is ignored.
    """
    method = method.upper()
    _, path = _api_path(urlsplit(url).path)
    candidates = []
    for route in _routes():
        found = route.pattern.match(path)
        if found:
            candidates.append((route, found))
    with_method = [(r, f) for r, f in candidates if r.method == method]
    if not with_method:
        known = sorted({r.method for r, _ in candidates})
        hint = f" (the path exists for {', '.join(known)})" if known else ""
        raise AssertionError(f"{method} {path} is not an operation of rest-subset.openapi.json{hint}")
    route, found = max(with_method, key=lambda pair: pair[0].literal_length)
    spec = load_spec()["paths"][route.template][method.lower()]
    params = {name: unquote(value) for name, value in found.groupdict().items()}
    return Operation(spec["operationId"], method, route.template, params, spec)


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    default = {"https": 443, "http": 80}.get(parts.scheme)
    return parts.scheme, (parts.hostname or "").lower(), parts.port or default


def is_api_request(url: str, api_base: str) -> bool:
    """Whether ``url`` goes to the API at ``api_base`` (and not, say, to a signed log-download URL).

    A default port written out (PyGithub sends ``https://api.github.com:443/...``) is the same origin.
    """
    if _origin(url) != _origin(api_base):
        return False
    prefix = urlsplit(api_base).path.rstrip("/")
    path = urlsplit(url).path
    return path == prefix or path.startswith(prefix + "/")


def url_pattern(url: str) -> re.Pattern[str]:
    """A pattern for ``responses`` that matches ``url`` with or without its default port and any query.

    PyGithub writes the port into every URL (``https://api.github.com:443/repos/...``), which a plain string
    registered with ``responses`` does not match; filter the query with ``matchers.query_param_matcher``.
    """
    parts = urlsplit(url)
    default = {"https": 443, "http": 80}.get(parts.scheme)
    host = re.escape(f"{parts.scheme}://{parts.netloc}")
    port = f"(:{default})?" if parts.port is None and default else ""
    return re.compile(f"^{host}{port}{re.escape(parts.path)}" + r"(\?.*)?$")


# -- OpenAPI 3.0 schema → JSON Schema ------------------------------------------------------------------------

_DATA_KEYS = frozenset({"example", "examples", "default", "enum", "const", "required", "description"})


def to_json_schema(schema: Any) -> Any:
    """Translate an OpenAPI 3.0 schema object into JSON Schema (draft 7).

    * ``nullable: true`` is not JSON Schema: it becomes ``"type": [T, "null"]`` (and ``null`` joins an
      ``enum``), or ``anyOf: [schema, {"type": "null"}]`` when the schema names no type.
    * ``oneOf`` becomes ``anyOf``: GitHub's description uses ``oneOf`` for alternatives that overlap (a
      nullable string *or* a nullable integer both accept ``null``; a "simple user" is also a valid
      "enterprise"), which strict ``oneOf`` would reject although GitHub sends exactly such values.
    """
    if isinstance(schema, list):
        return [to_json_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in _DATA_KEYS:
            out[key] = value
        elif key == "properties" and isinstance(value, dict):
            out[key] = {name: to_json_schema(sub) for name, sub in value.items()}
        elif key == "oneOf":
            out["anyOf"] = to_json_schema(value)
        elif key == "nullable":
            continue
        else:
            out[key] = to_json_schema(value)
    if schema.get("nullable") is True:
        kind = out.get("type")
        if isinstance(kind, str):
            out["type"] = [kind, "null"]
            if "enum" in out and None not in out["enum"]:
                out["enum"] = [*out["enum"], None]
        elif kind is None:
            out = {"anyOf": [out, {"type": "null"}]}
    return out


@functools.lru_cache(maxsize=256)
def _validator(operation_id: str, where: str) -> jsonschema.Draft7Validator | None:
    """A validator for the request body (``where="request"``) or a response status (``where="200"``…)."""
    operation = _operation_by_id(operation_id)
    container = operation.get("requestBody", {}) if where == "request" else operation["responses"][where]
    schema = container.get("content", {}).get("application/json", {}).get("schema")
    if schema is None:
        return None
    return jsonschema.Draft7Validator(to_json_schema(schema))


@functools.lru_cache(maxsize=1)
def _operations() -> dict[str, dict[str, Any]]:
    found = {}
    for item in load_spec()["paths"].values():
        for method, operation in item.items():
            if method in METHODS:
                found[operation["operationId"]] = operation
    return found


def _operation_by_id(operation_id: str) -> dict[str, Any]:
    try:
        return _operations()[operation_id]
    except KeyError:
        raise AssertionError(f"{operation_id!r} is not an operation of rest-subset.openapi.json") from None


def _validate(validator: jsonschema.Draft7Validator, value: Any, what: str) -> None:
    errors = sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
    if errors:
        lines = [f"  at {'/'.join(map(str, e.absolute_path)) or '(root)'}: {e.message[:300]}" for e in errors]
        lines = lines[:10]
        raise AssertionError(f"{what} does not match GitHub's schema:\n" + "\n".join(lines))


# The shape of every REST error ("basic-error" in GitHub's description).
_BASIC_ERROR = jsonschema.Draft7Validator(
    {
        "type": "object",
        "required": ["message"],
        "properties": {"message": {"type": "string"}, "documentation_url": {"type": "string"}},
    }
)


def _coerce(raw: str, schema: Mapping[str, Any]) -> Any:
    """A query or path string as its parameter's declared type (so that enums and minimums can be checked)."""
    kind = schema.get("type")
    if kind == "integer":
        if not re.fullmatch(r"-?\d+", raw):
            raise ValueError(f"{raw!r} is not an integer")
        return int(raw)
    if kind == "boolean":
        if raw not in ("true", "false"):
            raise ValueError(f"{raw!r} is not true or false")
        return raw == "true"
    return raw


def _check_parameters(operation: Operation, query: list[tuple[str, str]]) -> None:
    where = f"{operation.method} {operation.template} ({operation.operation_id})"
    for location, values in (("path", list(operation.path_params.items())), ("query", query)):
        declared = operation.parameters(location)
        seen = [name for name, _ in values]
        for name in seen:
            if name not in declared:
                raise AssertionError(f"{where}: {location} parameter {name!r} is not declared")
            if seen.count(name) > 1:
                raise AssertionError(f"{where}: {location} parameter {name!r} is repeated")
        for name, raw in values:
            schema = to_json_schema(declared[name].get("schema", {}))
            try:
                value = _coerce(raw, schema)
            except ValueError as exc:
                raise AssertionError(f"{where}: {location} parameter {name!r}: {exc}") from None
            _validate(jsonschema.Draft7Validator(schema), value, f"{where}: {location} parameter {name!r}")
        for name, parameter in declared.items():
            if parameter.get("required") and name not in seen:
                raise AssertionError(f"{where}: required {location} parameter {name!r} is missing")


def check_request(method: str, url: str, body: Any = None) -> Operation:
    """Assert that a request is an operation of the subset with valid parameters and body; return it.

    ``body`` is the decoded JSON request body, or None when the request has none.
    """
    operation = match_operation(method, url)
    _check_parameters(operation, parse_qsl(urlsplit(url).query, keep_blank_values=True))
    request_body = operation.spec.get("requestBody")
    where = f"{operation.method} {operation.template} ({operation.operation_id})"
    if body is None:
        if request_body and request_body.get("required"):
            raise AssertionError(f"{where}: the request body is required")
        return operation
    if request_body is None:
        raise AssertionError(f"{where}: the operation takes no request body")
    validator = _validator(operation.operation_id, "request")
    if validator is not None:
        _validate(validator, body, f"{where}: request body")
    return operation


def check_response(method: str, url: str, status: int, body: Any = None) -> Operation:
    """Assert that a (fake) response has the shape GitHub's description gives that operation and status."""
    operation = match_operation(method, url)
    where = f"{operation.method} {operation.template} ({operation.operation_id}) → {status}"
    responses = operation.spec["responses"]
    if str(status) not in responses:
        if status >= 400:
            # GitHub can answer any operation with 401/403/404/422/5xx without the description listing each;
            # such an answer must still carry GitHub's error shape.
            _validate(_BASIC_ERROR, body, f"{where}: error body")
            return operation
        documented = ", ".join(responses)
        raise AssertionError(f"{where}: status {status} is not a documented response ({documented})")
    validator = _validator(operation.operation_id, str(status))
    if validator is None:
        if status >= 400 and body not in (None, b"", ""):
            # an error listed without a body (git/delete-ref's 422) still has GitHub's error shape
            _validate(_BASIC_ERROR, body, f"{where}: error body")
            return operation
        if body not in (None, b"", ""):
            raise AssertionError(f"{where}: this response has no body in the description")
        return operation
    _validate(validator, body, f"{where}: response body")
    return operation


def example_response(operation_id: str, status: str = "200", name: str | None = None) -> Any:
    """An example response body from the description (the first one, or the one named), made schema-valid.

    GitHub's examples lag behind its schemas (the jobs example has no ``created_at``, the pull request
    example's team has no ``type``), so required properties an example lacks are filled in from the schema
    (its own per-property ``example`` where it gives one). The result is a fresh copy that tests may change.
    """
    response = _operation_by_id(operation_id)["responses"][status]
    content = response["content"]["application/json"]
    if "examples" in content:
        examples = content["examples"]
        chosen = examples[name] if name is not None else next(iter(examples.values()))
        value = copy.deepcopy(chosen["value"])
    else:
        value = copy.deepcopy(content.get("example"))
    return _complete(value, to_json_schema(content["schema"]))


def _placeholder(schema: Mapping[str, Any]) -> Any:
    """A value of the schema's type, for a required property an example lacks."""
    if "example" in schema and not isinstance(schema["example"], (dict, list)):
        return schema["example"]
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    if "anyOf" in schema:
        return _placeholder(schema["anyOf"][0])
    return {"string": "", "integer": 0, "number": 0, "boolean": False, "array": [], "null": None}.get(
        str(kind), _complete({}, schema)
    )


def _complete(value: Any, schema: Mapping[str, Any]) -> Any:
    if "anyOf" in schema and isinstance(value, (dict, list)):
        # complete against the first alternative of the value's kind
        wanted = "object" if isinstance(value, dict) else "array"
        for option in schema["anyOf"]:
            kinds = option.get("type")
            if kinds == wanted or (isinstance(kinds, list) and wanted in kinds):
                return _complete(value, option)
        return value
    kinds = schema.get("type")
    allows_null = kinds == "null" or (isinstance(kinds, list) and "null" in kinds)
    if value is None and not allows_null and kinds in ("object", "array"):
        value = {} if kinds == "object" else []
    if isinstance(value, dict):
        properties = schema.get("properties", {})
        for key in schema.get("required", ()):
            if key not in value and key in properties:
                value[key] = _placeholder(properties[key])
        for key, item in value.items():
            if key in properties:
                value[key] = _complete(item, properties[key])
    elif isinstance(value, list) and isinstance(schema.get("items"), dict):
        value[:] = [_complete(item, schema["items"]) for item in value]
    return value


def _decode_body(body: Any) -> Any:
    if body in (None, b"", ""):
        return None
    if isinstance(body, bytes):
        body = body.decode("utf-8")
    return json.loads(body)


def check_graphql(method: str, url: str, body: Any) -> None:
    """GraphQL is no REST operation: the one mutation the healer sends (marking a pull request ready for
    review), a POST to ``/graphql`` with its query and its one variable."""
    assert method == "POST" and urlsplit(url).path.endswith("/graphql"), f"{method} {url}"
    assert isinstance(body, dict) and "markPullRequestReadyForReview" in str(body.get("query")), body
    assert set(body.get("variables") or {}) == {"id"}, body


def check_calls(calls: Iterable[Any], *, api_base: str) -> int:
    """Check every request (and its response) recorded by ``responses`` that went to the API; return how many.

    Requests outside ``api_base`` (the signed log URL) are exempt; GraphQL has its own check.
    """
    checked = 0
    for call in calls:
        request, response = call.request, call.response
        if not is_api_request(request.url, api_base):
            continue
        if urlsplit(request.url).path.endswith("/graphql"):
            check_graphql(request.method, request.url, _decode_body(request.body))
            checked += 1
            continue
        check_request(request.method, request.url, _decode_body(request.body))
        if response is not None and not isinstance(response, Exception):
            content = response.content if response.status_code != 302 else b""
            is_json = "json" in response.headers.get("Content-Type", "") and content
            body = json.loads(content) if is_json else None
            check_response(request.method, request.url, response.status_code, body)
        checked += 1
    return checked
