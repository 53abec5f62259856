"""What a child process may see of the step's environment: no credential (:func:`scrubbed_env`), and for git
nothing that would point it elsewhere or make it print its requests (:func:`git_env`).

Both stages start processes: the heal stage its fix commands, the agent, set-up and verification, and both
stages git (the deliver stage to commit and push). Neither hands them the step's credentials.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping

# Variables that hold a credential able to write to the repository or mint one. The agent runs code from the
# pull request (tests, build scripts), so it must not see them unless the maintainer says so (`agent-token`).
# HEALER_LEDGER_KEY signs the ledger's markers: code that could read it could forge them (see
# healer.ledger.markers).
SECRET_VARIABLES = (
    "HEALER_GITHUB_TOKEN",
    "HEALER_LEDGER_KEY",
    "HEALER_AGENT_API_KEY",  # a model key (healer.heal.modelkeys): it stays with the model proxy
    "GITHUB_TOKEN",
    "GH_TOKEN",
    "GITHUB_PAT",
    "ACTIONS_RUNTIME_TOKEN",
)
SECRET_PREFIXES = ("ACTIONS_ID_TOKEN_REQUEST_", "ACTIONS_RUNTIME_", "ACTIONS_CACHE_", "ACTIONS_RESULTS_")
# Variables that would point git somewhere else or make it print requests (headers included).
GIT_ENV_DROP = re.compile(
    r"^(GIT_(DIR|WORK_TREE|INDEX_FILE|OBJECT_DIRECTORY|CONFIG_(?:COUNT|KEY_\d+|VALUE_\d+|PARAMETERS)|TRACE\w*|CURL_VERBOSE|"
    r"ASKPASS|SSH_COMMAND|EXEC_PATH|NAMESPACE|COMMON_DIR)|SSH_ASKPASS)$"
)


def scrubbed_env(env: Mapping[str, str], *, token: str = "", pass_token: bool = False) -> dict[str, str]:
    """``env`` without credentials; with ``pass_token`` the token is set as ``GITHUB_TOKEN``/``GH_TOKEN``."""
    clean = {
        k: v
        for k, v in env.items()
        if k not in SECRET_VARIABLES and not k.startswith(SECRET_PREFIXES) and not (token and v == token)
    }
    if pass_token and token:
        clean["GITHUB_TOKEN"] = token
        clean["GH_TOKEN"] = token
    return clean


def git_env(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The environment of a git process: the step's, without credentials or what would redirect git."""
    # git runs in a tree a PR (and an agent) wrote; no credential of the step reaches it through the
    # environment (a push gets the token through its own GIT_CONFIG_* entries, see push_auth_env)
    env = {
        k: v
        for k, v in scrubbed_env(base if base is not None else os.environ).items()
        if not GIT_ENV_DROP.match(k)
    }
    # No system or global configuration: only the repository's own, which no code from the pull request can
    # write under `isolation: user`. (A credential helper, an `insteadOf` or a hook path set there would act
    # with the token at hand.) safe.directory is given per command (see healer.change.workspace).
    env.update(GIT_TERMINAL_PROMPT="0", LC_ALL="C", GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=os.devnull)
    return env
