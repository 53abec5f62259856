"""Print what the model proxy adds to the agent's model requests, in milliseconds.

The model API stand-in (:mod:`healer.demo.fakemodel`) serves on loopback; each figure is measured once
straight to it and once through the proxy (:mod:`healer.heal.proxy`), over a fresh connection per request
as an agent's HTTP client may open one:

* **request**: a plain (non-streamed) Anthropic Messages request and its JSON answer, round trip;
* **stream**: a streamed request whose answer is 8 events ``--delay`` ms apart: the time to the first event
  (time to first token) and to the last.

Median, 10th and 90th percentile over the repeats, and what the proxy adds to the median.

Run: ``python benchmarks/bench_proxy.py [repeats] [--delay MS]``
"""

from __future__ import annotations

import argparse
import http.client
import json
import statistics
import time
from collections.abc import Callable

from healer.demo.fakemodel import FakeModel
from healer.heal.modelkeys import find_keys
from healer.heal.proxy import model_proxy
from healer.heal.usage import Limits

KEY = "sk-ant-bench-0123456789abcdef"


def _hostport(url: str) -> tuple[str, int]:
    host, port = url.removeprefix("http://").split(":")
    return host, int(port)


def request(url: str, token: str, *, stream: bool) -> tuple[float, float]:
    """One request: seconds to the first byte of the answer's body, and to its end."""
    connection = http.client.HTTPConnection(*_hostport(url), timeout=30)
    body = json.dumps({"model": "bench", "max_tokens": 64, "stream": stream, "messages": []})
    started = time.perf_counter()
    connection.request("POST", "/v1/messages", body, {"x-api-key": token, "content-type": "application/json"})
    response = connection.getresponse()
    first = response.read1(65536)
    first_at = time.perf_counter() - started
    rest = response.read()
    ended = time.perf_counter() - started
    connection.close()
    assert response.status == 200 and (first + rest), response.status
    return first_at, ended


def measure(repeats: int, call: Callable[[], tuple[float, float]]) -> tuple[list[float], list[float]]:
    call()  # warm up
    firsts, totals = [], []
    for _ in range(repeats):
        first, total = call()
        firsts.append(first * 1000)
        totals.append(total * 1000)
    return firsts, totals


def _row(name: str, values: list[float]) -> str:
    deciles = statistics.quantiles(values, n=10)
    median = statistics.median(values)
    return f"  {name:<34} median {median:8.2f} ms   p10 {deciles[0]:8.2f}   p90 {deciles[-1]:8.2f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("repeats", nargs="?", type=int, default=200)
    parser.add_argument("--delay", type=float, default=20.0, help="milliseconds between streamed events")
    args = parser.parse_args()
    keys = find_keys({"ANTHROPIC_API_KEY": KEY})
    with FakeModel(chunks=6, delay=0.0) as fake, model_proxy(keys, Limits(), fake.url) as proxy:
        direct = measure(args.repeats, lambda: request(fake.url, KEY, stream=False))
        proxied = measure(args.repeats, lambda: request(proxy.url, proxy.token, stream=False))
        fake.delay = args.delay / 1000
        streams = max(10, args.repeats // 10)
        direct_s = measure(streams, lambda: request(fake.url, KEY, stream=True))
        proxied_s = measure(streams, lambda: request(proxy.url, proxy.token, stream=True))
        spend = proxy.spend()

    def added(proxy_ms: list[float], direct_ms: list[float]) -> float:
        return statistics.median(proxy_ms) - statistics.median(direct_ms)

    print(
        f"model proxy overhead on loopback ({args.repeats} plain requests, {streams} streams, "
        f"events {args.delay:.0f} ms apart)"
    )
    print(_row("plain request, direct", direct[1]))
    print(_row("plain request, through the proxy", proxied[1]))
    print(f"  -> the proxy adds {added(proxied[1], direct[1]):.2f} ms per request")
    print(_row("stream, first event, direct", direct_s[0]))
    print(_row("stream, first event, proxy", proxied_s[0]))
    print(_row("stream, last event, direct", direct_s[1]))
    print(_row("stream, last event, proxy", proxied_s[1]))
    print(
        f"  -> time to first token: +{added(proxied_s[0], direct_s[0]):.2f} ms; "
        f"to the end of the stream: +{added(proxied_s[1], direct_s[1]):.2f} ms"
    )
    print(f"  (the proxy counted {spend.tokens:,} tokens in {spend.requests:,} requests)")


if __name__ == "__main__":
    main()
