"""Settings an agent CLI must find in its home before it starts, so that each recipe of docs/agents.md stays
one line and reaches the model proxy.

Gemini CLI takes its base URL (``GOOGLE_GEMINI_BASE_URL``, set to the proxy) only with an auth type chosen in
its user settings: with none chosen it infers a "gateway" type that its non-interactive mode then refuses
("Invalid auth method selected", google-gemini/gemini-cli#27550), and no flag or variable chooses one. So
for a heal whose model is behind the proxy, the healer writes ``.gemini/settings.json`` with the API-key auth
type (and Gemini's usage statistics, which would go to Google past the proxy, off):

- under ``isolation: user`` into the throwaway user's own, new home, as that user;
- under ``isolation: none`` into a folder of the run's temp directory named by ``GEMINI_CLI_HOME`` (Gemini
  CLI's variable for "the root of its user-level configuration"), never over the runner's own settings.

Other CLIs read everything they need from the variables of :meth:`ModelProxy.agent_variables`.
"""

from __future__ import annotations

import json
from pathlib import Path

from healer.heal.isolation import ThrowawayUser

GEMINI_SETTINGS = {
    "security": {"auth": {"selectedType": "gemini-api-key"}},
    "privacy": {"usageStatisticsEnabled": False},
}
GEMINI_SETTINGS_FILE = ".gemini/settings.json"


def prepare_agent_home(user: ThrowawayUser | None, temp_dir: Path) -> dict[str, str]:
    """Write the CLIs' settings where the agent's user reads them; returns the variables that say where."""
    text = json.dumps(GEMINI_SETTINGS, indent=2) + "\n"
    if user is not None:
        user.write_home_file(GEMINI_SETTINGS_FILE, text)
        return {}
    home = temp_dir / "agent-home"
    (home / ".gemini").mkdir(parents=True, exist_ok=True)
    (home / GEMINI_SETTINGS_FILE).write_text(text, encoding="utf-8")
    return {"GEMINI_CLI_HOME": str(home)}
