import pytest

from healer.config import INPUTS, Config, ConfigError, config_from_env


def test_defaults_table_matches_config_defaults():
    config = config_from_env({})
    assert config == Config()


@pytest.mark.parametrize(
    ("env", "message"),
    [
        pytest.param({"HEALER_MAX_ATTEMPTS": "three"}, "max-attempts", id="not-a-number"),
        pytest.param({"HEALER_DELIVERY": "email"}, "delivery", id="bad-choice"),
        pytest.param({"HEALER_DRY_RUN": "maybe"}, "dry-run", id="bad-bool"),
        pytest.param({"HEALER_MAX_ATTEMPTS": "99"}, "from 0 to 20", id="out-of-range"),
        pytest.param(
            {"HEALER_MODEL_API_URL": "http://gateway.example"}, "model-api-url", id="clear-text-url"
        ),
        pytest.param(
            {"HEALER_MODEL_API_URL": "https://u:p@gw.example"}, "model-api-url", id="url-credentials"
        ),
        pytest.param({"HEALER_AGENT_TOKEN_BUDGET": "-1"}, "agent-token-budget", id="negative-budget"),
    ],
)
def test_bad_inputs_name_the_input(env, message):
    with pytest.raises(ConfigError, match=message):
        config_from_env(env)


def test_list_inputs_accept_lines_and_commas():
    config = config_from_env({"HEALER_PROTECTED_PATHS": "docs/**\n setup.py, Makefile"})
    assert config.protected_paths == ("docs/**", "setup.py", "Makefile")


def test_token_is_not_in_repr():
    config = config_from_env({"HEALER_GITHUB_TOKEN": "ghs_secretvalue"})
    assert "ghs_secretvalue" not in repr(config)


def test_every_input_has_an_env_name():
    assert {spec.env for spec in INPUTS} >= {
        "HEALER_GITHUB_TOKEN",
        "HEALER_AGENT_COMMAND",
        "HEALER_MAX_ATTEMPTS",
    }


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param("4MiB", 4 * 1024 * 1024, id="mib"),
        pytest.param("512KiB", 512 * 1024, id="kib"),
        pytest.param(" 8 mib ", 8 * 1024 * 1024, id="spaces-and-case"),
        pytest.param("1GiB", 1024**3, id="gib"),
        pytest.param("1048576", 1024 * 1024, id="plain-bytes"),
    ],
)
def test_log_read_limit_accepts_sizes(raw, expected):
    assert config_from_env({"HEALER_LOG_READ_LIMIT": raw}).log_read_limit == expected


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        pytest.param("8MB", "KiB, MiB or GiB", id="decimal-unit"),
        pytest.param("-1", "number of bytes", id="negative"),
        pytest.param("1.5MiB", "number of bytes", id="fraction"),
        pytest.param("1KiB", "from 64 KiB to 1024 MiB", id="too-small"),
        pytest.param("2GiB", "from 64 KiB to 1024 MiB", id="too-large"),
    ],
)
def test_bad_log_read_limit_names_the_input(raw, message):
    with pytest.raises(ConfigError, match="log-read-limit") as caught:
        config_from_env({"HEALER_LOG_READ_LIMIT": raw})
    assert message in str(caught.value)


def test_the_model_inputs_parse_and_the_key_stays_out_of_repr():
    config = config_from_env(
        {
            "HEALER_AGENT_API_KEY": "gw-SecretKey-123",
            "HEALER_MODEL_API_URL": "https://gateway.example/v0/anthropic",
            "HEALER_AGENT_TOKEN_BUDGET": "0",
            "HEALER_AGENT_REQUEST_BUDGET": "12",
            "HEALER_MAX_AGENT_TOKENS_PER_PR": "5000",
        }
    )
    assert config.model_api_url == "https://gateway.example/v0/anthropic"
    assert (config.agent_token_budget, config.agent_request_budget, config.max_agent_tokens_per_pr) == (
        0,
        12,
        5000,
    )
    assert "gw-SecretKey-123" not in repr(config)
    assert config_from_env({"HEALER_MODEL_API_URL": "http://127.0.0.1:8080"}).model_api_url


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        pytest.param("30d", 30, id="days"),
        pytest.param("4w", 28, id="weeks"),
        pytest.param(" 7 ", 7, id="plain"),
    ],
)
def test_report_window_accepts_days_and_weeks(raw, expected):
    assert config_from_env({"HEALER_REPORT_WINDOW": raw}).report_window == expected


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        pytest.param("30 days", "a number of days such as `30d`", id="words"),
        pytest.param("0d", "from 1 to 366 days", id="zero"),
        pytest.param("60w", "from 1 to 366 days", id="too-long"),
    ],
)
def test_bad_report_window_names_the_input(raw, message):
    with pytest.raises(ConfigError, match="report-window") as caught:
        config_from_env({"HEALER_REPORT_WINDOW": raw})
    assert message in str(caught.value)


def test_the_dashboard_is_off_unless_asked_for():
    assert not config_from_env({}).dashboard
    assert config_from_env({"HEALER_DASHBOARD": "true"}).dashboard
