"""A minimal composite-action runner for tests: ``action.yml`` step by step, as the Actions runner runs it.

It supports exactly what ``action.yml`` uses, and fails loudly (:class:`CompositeError`) on anything else, so
a change to the action that this runner would silently get wrong breaks the test instead:

- expressions (``if:`` and ``${{ }}`` in ``env:``, ``with:`` and ``outputs:``): the contexts ``inputs.NAME``
  (the action's defaults for inputs not given), ``steps.ID.outputs.NAME``, ``github.token``,
  ``github.action_path``, ``runner.os``, ``runner.arch``, ``runner.temp``; string literals; ``==``, ``!=``
  (strings compare case-insensitively, other types are coerced to numbers, as GitHub does), ``||`` and ``&&``
  (which yield an operand, not a boolean, as GitHub's do), parentheses, and ``startsWith(text, prefix)``
  (case-insensitive, as GitHub's);
- ``uses: actions/setup-python@<sha>`` (outputs ``python-path`` = this interpreter, ``python-version``) and
  ``uses: actions/cache@<sha>`` (a hit: the cached path is provided by a callable, by default
  :func:`tiny_venv`);
- ``run:`` steps with ``shell: bash`` run as ``bash --noprofile --norc -eo pipefail {0}`` from
  ``GITHUB_WORKSPACE``, with ``GITHUB_ACTION_PATH``, a fresh ``GITHUB_OUTPUT`` per step (``name=value`` and
  ``name<<DELIMITER`` forms) and the job's environment; the first failing step ends the action;
- the action's ``outputs:`` evaluated from the steps' outputs at the end.
"""

from __future__ import annotations

import math
import platform
import re
import site as site_module
import sys
import sysconfig
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from healer.demo.sandbox import run_child

Value = str | bool | None


class CompositeError(Exception):
    """``action.yml`` uses something this runner does not support, or misuses what it does."""


# -- expressions ---------------------------------------------------------------------------------------------

_TOKEN = re.compile(
    r"\s*(?:(?P<string>'(?:[^']|'')*')|(?P<op>==|!=|&&|\|\|)|(?P<not>!)"
    r"|(?P<call>(?:success|failure|cancelled|always)\(\))|(?P<function>startsWith)\(|(?P<open>\()"
    r"|(?P<close>\))|(?P<comma>,)"
    r"|(?P<path>[A-Za-z_][A-Za-z0-9_-]*(?:\.[A-Za-z_][A-Za-z0-9_-]*)*))"
)
# The status functions, for a job or step that runs while nothing before it failed or was cancelled.
_STATUS = {"success()": True, "failure()": False, "cancelled()": False, "always()": True}
_TEMPLATE = re.compile(r"\$\{\{(.*?)\}\}", re.DOTALL)


@dataclass
class Context:
    """What expressions can read."""

    inputs: Mapping[str, str]  # every declared input, defaults applied
    step_ids: frozenset[str]  # every step id the action declares
    github: Mapping[str, str]  # token, action_path
    runner: Mapping[str, str]  # os, arch, temp
    steps: dict[str, dict[str, str]] = field(default_factory=dict)  # outputs of the steps that ran

    def lookup(self, path: str) -> Value:
        parts = path.split(".")
        head = parts[0]
        if head == "inputs" and len(parts) == 2:
            if parts[1] not in self.inputs:
                raise CompositeError(f"`{path}`: the action declares no input {parts[1]!r}")
            return self.inputs[parts[1]]
        if head == "steps" and len(parts) == 4 and parts[2] == "outputs":
            if parts[1] not in self.step_ids:
                raise CompositeError(f"`{path}`: the action has no step with id {parts[1]!r}")
            # a step that did not run, or did not set the output: null, as on GitHub
            return self.steps.get(parts[1], {}).get(parts[3])
        if head in ("github", "runner") and len(parts) == 2:
            values = self.github if head == "github" else self.runner
            if parts[1] not in values:
                raise CompositeError(f"`{path}` is not supported by the test runner")
            return values[parts[1]]
        raise CompositeError(f"`{path}` is not supported by the test runner")


def _tokens(text: str) -> list[tuple[str, str]]:
    found, position = [], 0
    while position < len(text):
        if not text[position:].strip():
            break
        match = _TOKEN.match(text, position)
        if match is None or match.end() == position:
            raise CompositeError(f"unsupported expression syntax at {text[position:]!r} in {text!r}")
        kind = match.lastgroup or ""
        found.append((kind, match.group(kind)))
        position = match.end()
    return found


def _number(value: Value) -> float:
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    stripped = value.strip()
    if not stripped:
        return 0.0
    try:
        return float(int(stripped, 0)) if stripped.lower().startswith(("0x", "0o")) else float(stripped)
    except ValueError:
        return math.nan


def _equal(left: Value, right: Value) -> bool:
    if isinstance(left, str) and isinstance(right, str):
        return left.casefold() == right.casefold()  # GitHub ignores case when comparing strings
    if type(left) is type(right):
        return left == right
    return _number(left) == _number(right)  # NaN equals nothing, as on GitHub


def truthy(value: Value) -> bool:
    return bool(value)  # null, false and '' are falsy; every other string is truthy


def evaluate(expression: str, context: Context) -> Value:
    """The value of one expression (without ``${{ }}``)."""
    tokens = _tokens(expression)
    if not tokens:
        raise CompositeError("an empty expression")
    position = 0

    def operand() -> Value:
        nonlocal position
        if position >= len(tokens):
            raise CompositeError(f"an operand is missing in {expression!r}")
        kind, text = tokens[position]
        position += 1
        if kind == "string":
            return text[1:-1].replace("''", "'")
        if kind == "path":
            return context.lookup(text)
        if kind == "call":
            return _STATUS[text]
        if kind == "not":
            return not truthy(operand())
        if kind == "open":
            value = disjunction()
            expect("close")
            return value
        if kind == "function":  # startsWith(text, prefix): case-insensitive, as GitHub's
            text_value = disjunction()
            expect("comma")
            prefix = disjunction()
            expect("close")
            return as_string(text_value).casefold().startswith(as_string(prefix).casefold())
        raise CompositeError(f"unexpected {text!r} in {expression!r}")

    def expect(kind: str) -> None:
        nonlocal position
        if position >= len(tokens) or tokens[position][0] != kind:
            raise CompositeError(f"a `{kind}` is missing in {expression!r}")
        position += 1

    def comparison() -> Value:
        nonlocal position
        left = operand()
        if position < len(tokens) and tokens[position][1] in ("==", "!="):
            op = tokens[position][1]
            position += 1
            right = operand()
            if position < len(tokens) and tokens[position][1] in ("==", "!="):
                raise CompositeError(f"chained comparison in {expression!r}")
            return _equal(left, right) == (op == "==")
        return left

    def conjunction() -> Value:
        nonlocal position
        value = comparison()
        while position < len(tokens) and tokens[position][1] == "&&":
            position += 1
            right = comparison()
            value = right if truthy(value) else value
        return value

    def disjunction() -> Value:
        nonlocal position
        value = conjunction()
        while position < len(tokens) and tokens[position][1] == "||":
            position += 1
            right = conjunction()
            value = value if truthy(value) else right
        return value

    result = disjunction()
    if position != len(tokens):
        raise CompositeError(f"unexpected {tokens[position][1]!r} in {expression!r}")
    return result


def as_string(value: Value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return value


def scalar(value: Any) -> str:
    """A YAML scalar as the action sees it: a string (``false`` → ``'false'``, not ``'False'``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if not isinstance(value, str):
        raise CompositeError(f"expected a scalar value, got {value!r}")
    return value


def interpolate(text: Any, context: Context) -> str:
    """A ``with:``/``env:``/``outputs:`` value with every ``${{ }}`` replaced by its value."""
    text = scalar(text)
    if text.count("${{") != len(_TEMPLATE.findall(text)):
        raise CompositeError(f"an unclosed `${{{{` in {text!r}")
    return _TEMPLATE.sub(lambda m: as_string(evaluate(m.group(1), context)), text)


def condition(text: Any, context: Context) -> bool:
    """An ``if:`` (bare or wrapped in ``${{ }}``)."""
    if isinstance(text, bool):
        return text
    if not isinstance(text, str):
        raise CompositeError(f"unsupported if: {text!r}")
    wrapped = _TEMPLATE.fullmatch(text.strip())
    return truthy(evaluate(wrapped.group(1) if wrapped else text, context))


# -- GITHUB_OUTPUT -------------------------------------------------------------------------------------------


def parse_outputs(text: str) -> dict[str, str]:
    """``$GITHUB_OUTPUT``: ``name=value`` lines and ``name<<DELIMITER`` … ``DELIMITER`` blocks; anything
    else, or a block without its closing delimiter, is an error (the runner fails the step on it too)."""
    outputs: dict[str, str] = {}
    lines = iter(text.splitlines())
    for line in lines:
        if not line.strip():
            continue
        heredoc = re.fullmatch(r"([^=<]+)<<(.+)", line)
        if heredoc:
            name, delimiter = heredoc.groups()
            value: list[str] = []
            for inner in lines:
                if inner == delimiter:
                    break
                value.append(inner)
            else:
                raise CompositeError(f"GITHUB_OUTPUT: {name!r} has no closing {delimiter!r}")
            outputs[name] = "\n".join(value)
        elif "=" in line and line.index("=") > 0:
            name, _, value_text = line.partition("=")
            outputs[name] = value_text
        else:
            raise CompositeError(f"GITHUB_OUTPUT: malformed line {line!r}")
    return outputs


# -- the runner ----------------------------------------------------------------------------------------------


def tiny_venv(path: Path) -> None:
    """What a cache hit restores at ``path``: a virtual environment whose ``bin/python`` is a symlink to this
    interpreter and whose packages are this interpreter's (a ``.pth`` adds its site-packages), the project
    itself excepted."""
    version = f"python{sys.version_info.major}.{sys.version_info.minor}"
    site = path / "lib" / version / "site-packages"
    site.mkdir(parents=True)
    (path / "bin").mkdir()
    (path / "bin" / "python").symlink_to(sys.executable)
    home = Path(getattr(sys, "_base_executable", sys.executable)).parent
    (path / "pyvenv.cfg").write_text(
        f"home = {home}\ninclude-system-site-packages = false\nversion = {platform.python_version()}\n",
        encoding="utf-8",
    )
    # a plain path line: the site-packages' own .pth files (the project's editable install) are not run, so
    # the healer is importable only from the action's directory, as from the real venv (the lock's packages)
    paths = [sysconfig.get_paths()["purelib"]]
    # a test venv made with --system-site-packages finds its dependencies in the base interpreter's too
    paths += [p for p in site_module.getsitepackages() if p not in paths and Path(p).is_dir()]
    (site / "test-runner.pth").write_text("".join(p + "\n" for p in paths), encoding="utf-8")


@dataclass
class StepResult:
    """One step of the action: whether it ran, why not, and what it did."""

    index: int
    id: str
    name: str
    ran: bool
    condition: str | None = None  # the `if:` that was evaluated, if any
    outputs: dict[str, str] = field(default_factory=dict)
    returncode: int = 0
    stdout: str = ""
    stderr: str = ""
    seconds: float = 0.0
    with_: dict[str, str] = field(default_factory=dict)  # evaluated `with:` of a `uses:` step
    env: dict[str, str] = field(default_factory=dict)  # evaluated `env:` of a `run:` step


@dataclass
class CompositeResult:
    """The whole action: its steps, its outputs, the step that failed (if one did)."""

    steps: list[StepResult]
    outputs: dict[str, str]
    failed: StepResult | None
    seconds: float
    env: dict[str, str]  # the job's environment the steps ran in

    @property
    def returncode(self) -> int:
        return self.failed.returncode if self.failed else 0

    @property
    def stdout(self) -> str:
        return "".join(step.stdout for step in self.steps)

    @property
    def stderr(self) -> str:
        return "".join(step.stderr for step in self.steps)

    def step(self, name: str) -> StepResult:
        """A step by id, else by name."""
        for step in self.steps:
            if name in (step.id, step.name):
                return step
        raise KeyError(name)


_STEP_KEYS = frozenset({"name", "id", "if", "uses", "with", "run", "shell", "env", "working-directory"})
_SETUP_PYTHON_WITH = frozenset({"python-version", "update-environment", "cache", "check-latest"})
_CACHE_WITH = frozenset({"path", "key", "restore-keys"})
_PINNED = re.compile(r"[0-9a-f]{40}")


def runner_os() -> str:
    return {"linux": "Linux", "darwin": "macOS", "win32": "Windows"}.get(sys.platform, sys.platform)


def runner_arch() -> str:
    machine = platform.machine().lower()
    return {"x86_64": "X64", "amd64": "X64", "aarch64": "ARM64", "arm64": "ARM64"}.get(machine, machine)


class CompositeRunner:
    """Runs ``action.yml`` of ``action_path`` step by step in ``job_env`` (the job's environment)."""

    def __init__(
        self,
        action_path: Path,
        *,
        job_env: Mapping[str, str],
        github_token: str,
        restore_cache: Callable[[Path], None] = tiny_venv,
        github_action_path: str | None = None,
        timeout: float = 60.0,
    ) -> None:
        """``github_action_path``: what ``${{ github.action_path }}`` gives when it is not ``action_path``
        (in a ``container:`` job, the host's path: actions/runner#2185); ``GITHUB_ACTION_PATH`` is right."""
        self.action_path = action_path
        self.action: dict[str, Any] = yaml.safe_load((action_path / "action.yml").read_text("utf-8"))
        runs = self.action.get("runs", {})
        if runs.get("using") != "composite":
            raise CompositeError("the action is not a composite action")
        self.steps: list[dict[str, Any]] = runs["steps"]
        self.job_env = dict(job_env)
        self.github_token = github_token
        self.restore_cache = restore_cache
        self.github_action_path = github_action_path or str(action_path)
        self.timeout = timeout
        self.saved: list[tuple[str, str]] = []  # (path, key) of each actions/cache/save

    def context(self, inputs: Mapping[str, str]) -> Context:
        """The expression context for ``inputs`` (undeclared inputs are an error, not a warning)."""
        declared: dict[str, Any] = self.action.get("inputs") or {}
        unknown = sorted(set(inputs) - set(declared))
        if unknown:
            raise CompositeError(f"inputs the action does not declare: {', '.join(unknown)}")
        values = {name: scalar(spec.get("default", "")) for name, spec in declared.items()}
        templated = sorted(name for name, value in values.items() if "${{" in value)
        if templated:
            raise CompositeError(f"expressions in input defaults are not supported: {', '.join(templated)}")
        values.update(inputs)
        return Context(
            inputs=values,
            step_ids=frozenset(str(step["id"]) for step in self.steps if "id" in step),
            github={"token": self.github_token, "action_path": self.github_action_path},
            runner={"os": runner_os(), "arch": runner_arch(), "temp": self.job_env["RUNNER_TEMP"]},
        )

    def run(self, inputs: Mapping[str, str] | None = None) -> CompositeResult:
        """Run every step in order; the first failing step ends the action (as `if: success()` does)."""
        started = time.monotonic()
        context = self.context(inputs or {})
        results: list[StepResult] = []
        failed: StepResult | None = None
        for index, step in enumerate(self.steps):
            result = self.run_step(index, step, context)
            results.append(result)
            if result.ran:
                if result.id:
                    context.steps[result.id] = result.outputs
                if result.returncode != 0:
                    failed = result
                    break
        declared: dict[str, Any] = self.action.get("outputs") or {}
        outputs = {name: interpolate(spec["value"], context) for name, spec in declared.items()}
        return CompositeResult(results, outputs, failed, time.monotonic() - started, self.job_env)

    def run_step(self, index: int, step: Mapping[str, Any], context: Context) -> StepResult:
        """One step: its `if:`, then its `uses:` or `run:`."""
        unknown = sorted(set(step) - _STEP_KEYS)
        if unknown:
            raise CompositeError(f"step {index}: unsupported keys {', '.join(unknown)}")
        result = StepResult(index, str(step.get("id", "")), str(step.get("name", f"step {index}")), ran=True)
        if "if" in step:
            result.condition = str(step["if"])
            if not condition(step["if"], context):
                result.ran = False
                return result
        began = time.monotonic()
        if "uses" in step:
            self._uses(step, context, result)
        elif "run" in step:
            self._run(step, context, result)
        else:
            raise CompositeError(f"step {index} has neither `uses:` nor `run:`")
        result.seconds = time.monotonic() - began
        return result

    def _uses(self, step: Mapping[str, Any], context: Context, result: StepResult) -> None:
        action, _, ref = str(step["uses"]).partition("@")
        if not _PINNED.fullmatch(ref):
            raise CompositeError(f"{step['uses']!r} is not pinned to a full commit")
        result.with_ = {name: interpolate(value, context) for name, value in (step.get("with") or {}).items()}
        if action == "actions/setup-python":
            self._known(result.with_, _SETUP_PYTHON_WITH, action)
            result.outputs = {"python-path": sys.executable, "python-version": platform.python_version()}
        elif action == "actions/cache/save":
            self._known(result.with_, _CACHE_WITH, action)
            self.saved.append((result.with_["path"], result.with_["key"]))
        elif action in ("actions/cache", "actions/cache/restore"):
            self._known(result.with_, _CACHE_WITH, action)
            paths = [line.strip() for line in result.with_["path"].splitlines() if line.strip()]
            if len(paths) != 1 or not Path(paths[0]).is_absolute() or not result.with_.get("key"):
                raise CompositeError(
                    f"actions/cache: expected one absolute path and a key, got {result.with_}"
                )
            self.restore_cache(Path(paths[0]))
            result.outputs = {"cache-hit": "true", "cache-matched-key": result.with_["key"]}
        else:
            raise CompositeError(f"the test runner does not know {action!r}")

    @staticmethod
    def _known(given: Mapping[str, str], known: frozenset[str], action: str) -> None:
        unknown = sorted(set(given) - known)
        if unknown:
            raise CompositeError(f"{action}: unknown `with:` keys {', '.join(unknown)}")

    def _run(self, step: Mapping[str, Any], context: Context, result: StepResult) -> None:
        if step.get("shell") != "bash":
            raise CompositeError(
                f"step {result.name!r}: only `shell: bash` is supported, not {step.get('shell')}"
            )
        temp = Path(self.job_env["RUNNER_TEMP"])
        files = {name: temp / f"step-{result.index}-{name.lower()}" for name in ("OUTPUT", "ENV", "PATH")}
        for path in files.values():
            path.write_text("", encoding="utf-8")
        script = temp / f"step-{result.index}.sh"
        script.write_text(str(step["run"]), encoding="utf-8")
        result.env = {name: interpolate(value, context) for name, value in (step.get("env") or {}).items()}
        env = {
            **self.job_env,
            "GITHUB_ACTION_PATH": str(self.action_path),
            **{f"GITHUB_{name}": str(path) for name, path in files.items()},
            **result.env,
        }
        cwd = Path(interpolate(step.get("working-directory", self.job_env["GITHUB_WORKSPACE"]), context))
        argv = ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)]
        result.returncode, result.stdout, result.stderr, _ = run_child(
            argv, cwd=cwd, env=env, timeout=self.timeout
        )
        result.outputs = parse_outputs(files["OUTPUT"].read_text(encoding="utf-8"))
        for name in ("ENV", "PATH"):
            if files[name].read_text(encoding="utf-8"):
                raise CompositeError(f"step {result.name!r} wrote GITHUB_{name}, which this runner ignores")
