"""A refusal at a port none of the job's healthy service containers publishes
(`healer/diagnosis/serviceports.py`): the client's address is the code's; a refusal at a published port, a
service not reported healthy, or a job without services keeps the platform's reading."""

from __future__ import annotations

from joblogs import CODE, PLATFORM, diagnose_log, job_log, stamped

from healer.diagnosis.serviceports import refused_ports, services

PYTEST = "python -m pytest -q tests"
INSPECT = (
    '##[command]/usr/bin/docker inspect --format="{{{{if .Config.Healthcheck}}}}'
    '{{{{print .State.Health.Status}}}}{{{{end}}}}" 6c0d1f2e3a4b'
)
# the runner's own lines for a `services: postgres` with `ports: ["{host}:5432"]` and a health check
# (actions/runner's ContainerOperationProvider and its docker commands)
SERVICE = [
    "##[group]Starting postgres service container",
    "##[command]/usr/bin/docker pull postgres:16",
    "##[command]/usr/bin/docker create --name 5d1c_postgres16_8a2f --label 5a5b6c"
    " --network github_network_9f1e --network-alias postgres -p {host}:5432 --health-cmd pg_isready"
    " --health-interval 10s"
    ' --health-timeout 5s --health-retries 5 -e "POSTGRES_PASSWORD=postgres" -e GITHUB_ACTIONS=true'
    " -e CI=true postgres:16",
    "6c0d1f2e3a4b",
    "##[command]/usr/bin/docker start 6c0d1f2e3a4b",
    "##[command]/usr/bin/docker port 6c0d1f2e3a4b",
    "5432/tcp -> 0.0.0.0:{host}",
    "5432/tcp -> [::]:{host}",
    "##[endgroup]",
    "##[group]Waiting for all services to be ready",
    INSPECT,
    "starting",
    "postgres service is starting, waiting 2 seconds before checking again.",
    INSPECT,
    "{health}",
    "{said}",
    "##[endgroup]",
]
REFUSED = [
    "FAILED tests/test_orders.py::test_create - sqlalchemy.exc.OperationalError: (psycopg.OperationalError)"
    ' connection failed: connection to server at "127.0.0.1", port 5433 failed: Connection refused',
    "FAILED tests/test_orders.py::test_list - sqlalchemy.exc.OperationalError: (psycopg.OperationalError)"
    ' connection failed: connection to server at "127.0.0.1", port 5433 failed: Connection refused',
    "2 failed, 14 passed in 3.21s",
]


def _log(host: int, *, healthy: bool = True, output: list[str] = REFUSED) -> str:
    health, said = ("healthy", "postgres service is healthy.") if healthy else ("healthy", "")
    services_run = [line.format(host=host, health=health, said=said) for line in SERVICE if line]
    return stamped([line for line in services_run if line]) + job_log(PYTEST, output)


def test_the_runners_lines_give_the_services_health_and_published_ports() -> None:
    checked, healthy, published = services(_log(5432).splitlines()) or ((), (), ())
    assert (set(checked), set(healthy), set(published)) == ({"postgres"}, {"postgres"}, {5432})
    assert services(job_log(PYTEST, REFUSED).splitlines()) is None


def test_the_refused_loopback_ports_are_read_from_the_clients_words() -> None:
    lines = [
        "Error: connect ECONNREFUSED 127.0.0.1:6380",
        "dial tcp 127.0.0.1:8081: connect: connection refused",
        'connection to server at "localhost" (127.0.0.1), port 5434 failed: Connection refused',
        "HTTPConnectionPool(host='localhost', port=9000): Max retries exceeded with url: / (Caused by"
        " NewConnectionError('<urllib3.connection.HTTPConnection object>: Failed to establish a new"
        " connection: [Errno 111] Connection refused'))",
        "dial tcp 10.1.0.4:5432: connect: connection refused",
    ]
    assert refused_ports(lines) == {6380, 8081, 5434, 9000}


def test_a_refusal_where_no_healthy_service_listens_is_the_codes() -> None:
    diagnosis = diagnose_log(_log(5432))
    assert (diagnosis.owner, diagnosis.action) == CODE
    assert "port 5433" in diagnosis.decided_text()


def test_a_refusal_at_the_port_a_service_publishes_stays_the_platforms() -> None:
    diagnosis = diagnose_log(_log(5433))
    assert (diagnosis.owner, diagnosis.action) == PLATFORM


def test_a_service_not_reported_healthy_leaves_the_refusal_to_the_platform() -> None:
    diagnosis = diagnose_log(_log(5432, healthy=False))
    assert (diagnosis.owner, diagnosis.action) == PLATFORM


def test_without_service_containers_the_refusal_stays_the_platforms() -> None:
    diagnosis = diagnose_log(job_log(PYTEST, REFUSED))
    assert (diagnosis.owner, diagnosis.action) == PLATFORM
