"""Fixtures of the client's tests: GitHub faked with ``responses`` (every call checked against the REST
description when the test ends), and a client of the fake repository that never sleeps."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import responses
from fakegithub import API, REPO, TOKEN
from openapi_contract import check_calls

from healer.github import GitHub


@pytest.fixture
def rsps() -> Iterator[responses.RequestsMock]:
    with responses.RequestsMock(assert_all_requests_are_fired=True) as mock:
        yield mock
        check_calls(mock.calls, api_base=API)


@pytest.fixture
def gh() -> Iterator[GitHub]:
    client = GitHub(TOKEN, REPO, api_url=API, sleep=lambda s: None)
    yield client
    client.close()
