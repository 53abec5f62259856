"""The agent's model keys: which variables of the healer's environment hold one, and the environment of code
from the pull request without any of them.

Code from the pull request (set-up, fix commands, the agent and what it runs, verification) never sees a model
key: the agent reaches its model through the healer's loopback proxy (:mod:`.proxy`), which holds the
keys and hands the agent a token made for one heal. The healer recognises a key by its variable's name (the
variables the agent recipes document, and those of the other providers its users are likely to pass) and by
its value (the ``agent-api-key`` input, for a key under a name the healer does not know: every variable that
holds the same value is a key too).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

# Claude Code: ANTHROPIC_API_KEY (sent as x-api-key) or ANTHROPIC_AUTH_TOKEN (sent as a bearer token); Codex
# CLI: CODEX_API_KEY (`codex exec`) or OPENAI_API_KEY; Gemini CLI: GEMINI_API_KEY; aider (litellm): the
# provider's own variable.
ANTHROPIC_VARIABLES = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN")
OPENAI_VARIABLES = ("OPENAI_API_KEY", "CODEX_API_KEY")
# Gemini CLI and litellm's Gemini provider (sent as x-goog-api-key)
GEMINI_VARIABLES = ("GEMINI_API_KEY", "GOOGLE_API_KEY")
OTHER_VARIABLES = (
    "MISTRAL_API_KEY",
    "OPENROUTER_API_KEY",
    "GROQ_API_KEY",
    "DEEPSEEK_API_KEY",
    "XAI_API_KEY",
    "TOGETHER_API_KEY",
    "COHERE_API_KEY",
    "AZURE_OPENAI_API_KEY",
    "AZURE_API_KEY",
    "AWS_BEARER_TOKEN_BEDROCK",
)
KEY_VARIABLES = (*ANTHROPIC_VARIABLES, *OPENAI_VARIABLES, *GEMINI_VARIABLES, *OTHER_VARIABLES)
# Shorter values are not keys (an empty or placeholder variable); they are still removed by name.
_MIN_KEY_CHARS = 8


@dataclass(frozen=True)
class ModelKeys:
    """The model keys found in the healer's environment: variable name → value, and the ``agent-api-key``
    input (a key whose variable the healer does not know)."""

    by_variable: Mapping[str, str] = field(default_factory=dict, repr=False)
    extra: str = field(default="", repr=False)

    @property
    def names(self) -> tuple[str, ...]:
        """The variables that hold a key, as the summary names them (never their values)."""
        return tuple(self.by_variable)

    @property
    def values(self) -> tuple[str, ...]:
        """Every key value (to mask and to scrub)."""
        found = [v for v in (*self.by_variable.values(), self.extra) if v]
        return tuple(dict.fromkeys(found))

    def __bool__(self) -> bool:
        return bool(self.values)

    def anthropic(self) -> tuple[str, str] | None:
        """The header and value the proxy sends to the Anthropic API: ``agent-api-key`` or
        ``ANTHROPIC_API_KEY`` as ``x-api-key``, else ``ANTHROPIC_AUTH_TOKEN`` as a bearer token."""
        for value in (self.extra, self.by_variable.get("ANTHROPIC_API_KEY", "")):
            if value:
                return ("x-api-key", value)
        token = self.by_variable.get("ANTHROPIC_AUTH_TOKEN", "")
        return ("authorization", f"Bearer {token}") if token else None

    def openai(self) -> tuple[str, str] | None:
        """The header and value the proxy sends to the OpenAI APIs (a bearer token)."""
        for value in (self.extra, *(self.by_variable.get(n, "") for n in OPENAI_VARIABLES)):
            if value:
                return ("authorization", f"Bearer {value}")
        return None

    def gemini(self) -> tuple[str, str] | None:
        """The header and value the proxy sends to the Gemini API (``x-goog-api-key``)."""
        for value in (self.extra, *(self.by_variable.get(n, "") for n in GEMINI_VARIABLES)):
            if value:
                return ("x-goog-api-key", value)
        return None


def find_keys(env: Mapping[str, str], extra: str = "") -> ModelKeys:
    """The keys in ``env``: each recognised variable with a value, and every variable that holds ``extra``
    (the ``agent-api-key`` input) whatever its name."""
    extra = extra.strip()
    found = {name: env[name].strip() for name in KEY_VARIABLES if env.get(name, "").strip()}
    if extra:
        for name, value in env.items():
            if value.strip() == extra and not name.startswith("HEALER_"):
                found.setdefault(name, extra)
    return ModelKeys(found, extra)


def without_keys(env: Mapping[str, str], keys: ModelKeys) -> dict[str, str]:
    """``env`` without a model key: no recognised variable (set or empty), no variable that holds a key's
    value, and no value that contains one (``OPENAI_API_KEY=... tool`` in a wrapper's variable)."""
    values = [v for v in keys.values if len(v) >= _MIN_KEY_CHARS]
    return {
        name: value
        for name, value in env.items()
        if name not in KEY_VARIABLES and name not in keys.by_variable and not any(v in value for v in values)
    }


def scrub_keys(text: str, keys: ModelKeys) -> str:
    """``text`` with every model key replaced by ``***`` (what is posted; a key cannot reach the agent under
    ``isolation: user``, but with ``none`` the code of the pull request could print one)."""
    for value in sorted(keys.values, key=len, reverse=True):
        if len(value) >= _MIN_KEY_CHARS:
            text = text.replace(value, "***")
    return text


def reachable_warning(names: Iterable[str]) -> str:
    """The summary's sentence for ``isolation: none``, naming the keys by variable (never by value)."""
    listed = tuple(names)
    shown = ", ".join(f"`{name}`" for name in listed)
    return (
        f"warning: `isolation: none`: the model key{'s' if len(listed) > 1 else ''} in {shown} "
        "stayed out of the environment of the code from the pull request, but that code ran as the "
        "healer's own user, which can reach them (the healer's files and code, `sudo` on a hosted "
        "runner); use `isolation: user` (see SECURITY.md)"
    )
