"""A connection refused on the job's own machine at a port none of its healthy service containers publishes.

A job's ``services:`` run as containers the runner starts before the first step, and the runner writes what it
did into the log (actions/runner, ``ContainerOperationProvider``): a ``Starting <alias> service container``
group with the ``docker create`` command (``--network-alias <alias>`` and its ``-p`` options), the
published ports as ``docker port`` prints them (``5432/tcp -> 0.0.0.0:5433``: the container's port, then the
host's), and, under ``Waiting for all services to be ready``, ``<alias> service is healthy.`` for each
service with a health check (a service that did not become healthy fails the job before its first step).

A refused connection is read as the platform's when a service may not have been listening yet. Where every
service that has a health check reported healthy and the step was refused at the loopback address on a port
that none of the services publishes on the host, no container was ever meant to listen there: the client
asked at the wrong port. The address is the pull request's own (its settings, its test fixture's port, its
change to the port mapping), so the failure is the code's. A refusal at a port a service does publish, a
service that was not reported healthy, or a job with no service containers leaves the reading as it was.

Pure: a diagnosis, the failing step's output and the log before it in, a diagnosis out.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from healer.diagnosis.logs import clean_line
from healer.diagnosis.owner import reread
from healer.model import Action, Category, Diagnosis, Owner

# a service container's `docker create`, which names it on the job's network (`--network-alias postgres`)
_ALIAS = re.compile(r"\bdocker create\s.*?\s--network-alias[ =](?P<alias>[\w.-]{1,100})(?=\s|$)")
_HEALTHY = re.compile(r"^(?P<alias>[\w.-]{1,100}) service is healthy\.$")
_HEALTH_CHECKED = re.compile(r"^(?P<alias>[\w.-]{1,100}) service is starting, waiting ")
_HEALTH_CMD = re.compile(r"\s--health-cmd[ =]")
# `docker port` output: container port/protocol -> host address:host port
_PUBLISHED = re.compile(r"^\d{1,5}/tcp -> (?:0\.0\.0\.0|\[?::\]?|127\.0\.0\.1):(?P<port>\d{1,5})$")
# `docker create … -p HOST:CONTAINER` (and `-p IP:HOST:CONTAINER`)
_CREATE_PORT = re.compile(r"\s(?:-p|--publish)[ =](?:[\d.]+:)?(?P<host>\d{1,5}):\d{1,5}(?:/tcp)?(?=\s|$)")

_LOOPBACK = r"(?:127\.0\.0\.1|localhost|\[::1\]|::1)"
# the clients' words for a refused connection at an address and port, on one line
_REFUSED = (
    # Node's "connect ECONNREFUSED 127.0.0.1:5432", Go's "dial tcp 127.0.0.1:5433: connect: connection
    # refused", Java's "Connection to localhost:5433 refused", redis-py's "Error 111 connecting to
    # localhost:6380. Connection refused."
    re.compile(rf"\b{_LOOPBACK}:(?P<port>\d{{2,5}})\b(?=.{{0,200}}\brefused\b)"),
    re.compile(rf"\bECONNREFUSED {_LOOPBACK}:(?P<port>\d{{2,5}})\b"),
    # libpq: 'connection to server at "localhost" (127.0.0.1), port 5433 failed: Connection refused', or
    # 'connection to server at "127.0.0.1", port 5433 failed: …' for a host given as its address
    re.compile(
        rf'connection to server at (?:"[^"]{{1,100}}" \({_LOOPBACK}\)|"{_LOOPBACK}"), '
        r"port (?P<port>\d{2,5}) failed: Connection refused"
    ),
    # urllib3's "HTTPConnectionPool(host='localhost', port=8081): … Connection refused"
    re.compile(rf"\(host='{_LOOPBACK}', port=(?P<port>\d{{2,5}})\).{{0,400}}\bConnection refused\b"),
)
_REFUSAL_WORDS = ("refused", "ECONNREFUSED")


def refused_ports(lines: Iterable[str]) -> set[int]:
    """The loopback ports the step's lines say a connection was refused at."""
    ports: set[int] = set()
    for raw in lines:
        if not any(word in raw for word in _REFUSAL_WORDS):
            continue
        line = clean_line(raw)
        ports.update(int(found.group("port")) for pattern in _REFUSED for found in pattern.finditer(line))
    return ports


def services(earlier: Iterable[str]) -> tuple[set[str], set[str], set[int]] | None:
    """The job's service containers before its steps: (the services with a health check, those reported
    healthy, the host ports they publish); None when the log shows no service container."""
    started: set[str] = set()
    checked: set[str] = set()
    healthy: set[str] = set()
    published: set[int] = set()
    for raw in earlier:
        line = clean_line(raw).strip()
        if found := _ALIAS.search(line):
            current = found.group("alias")
            started.add(current)
            published.update(int(p.group("host")) for p in _CREATE_PORT.finditer(line))
            if _HEALTH_CMD.search(line):
                checked.add(current)
        elif found := _HEALTHY.match(line):
            healthy.add(found.group("alias"))
        elif found := _HEALTH_CHECKED.match(line):
            checked.add(found.group("alias"))
        elif found := _PUBLISHED.match(line):
            published.add(int(found.group("port")))
    if not started:
        return None
    return checked | healthy, healthy, published


def refused_where_no_service_listens(
    diagnosis: Diagnosis, lines: Sequence[str], earlier: Sequence[str]
) -> Diagnosis:
    """``diagnosis`` given to the code when the step was refused at loopback ports none of the job's healthy
    service containers publishes (see the module doc); else unchanged."""
    if diagnosis.owner is not Owner.PLATFORM or diagnosis.action is not Action.RERUN:
        return diagnosis
    if diagnosis.category is not Category.TRANSIENT:
        return diagnosis
    ports = refused_ports(lines)
    if not ports:
        return diagnosis
    found = services(earlier)
    if found is None:
        return diagnosis
    checked, healthy, published = found
    if not published or not healthy or checked - healthy or ports & published:
        return diagnosis
    shown = ", ".join(str(p) for p in sorted(ports))
    listening = ", ".join(str(p) for p in sorted(published))
    said = (
        f"refused on the job's own machine at port {shown}, where none of its healthy service containers "
        f"listens (they publish {listening}): the client's address is the code's"
    )
    return reread(diagnosis, Owner.CODE, Category.TEST, Action.AGENT, said)
