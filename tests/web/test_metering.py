"""The web's metering middleware (arena/web/metering.py) on a small app of its own: a
request is counted under its route's template and its status, a page that fails as a
500, a path no route takes as ``none``; and /metrics answers in Prometheus's text."""

from __future__ import annotations

import pytest
from prometheus_client import REGISTRY
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.testclient import TestClient

from arena.web.metering import Exposition, Metering


def count(route: str, status: str) -> float:
    labels = {"route": route, "status": status}
    return REGISTRY.get_sample_value("arena_web_requests_total", labels) or 0.0


async def item(request: Request) -> Response:
    return PlainTextResponse(request.path_params["id"])


async def boom(request: Request) -> Response:
    raise RuntimeError("a bug")


@pytest.fixture
def client() -> TestClient:
    app = Starlette(
        routes=[
            Route("/items/{id}", item),
            Route("/boom", boom),
            Route("/metrics", Exposition()),
            Mount("/static", app=PlainTextResponse("a file")),  # as StaticFiles is
        ],
        middleware=[Middleware(Metering)],
    )
    return TestClient(app, raise_server_exceptions=False)


def test_requests_are_counted_by_route_template_and_status(client: TestClient) -> None:
    asked = [
        ("/items/a", "/items/{id}", 200),
        ("/items/b", "/items/{id}", 200),
        ("/boom", "/boom", 500),
        ("/nothing/here", "none", 404),
        ("/static/style.css", "/static", 200),
        ("/items/a", "/items/{id}", 405),  # a POST: the route, partly matched
    ]
    before = {(r, s): count(r, str(s)) for _, r, s in asked}
    for n, (path, _, status) in enumerate(asked):
        response = client.post(path) if n == len(asked) - 1 else client.get(path)
        assert response.status_code == status, path
    assert {(r, s): count(r, str(s)) - before[r, s] for _, r, s in asked} == {
        ("/items/{id}", 200): 2,
        ("/boom", 500): 1,
        ("none", 404): 1,
        ("/static", 200): 1,
        ("/items/{id}", 405): 1,
    }
    assert count("/items/a", "200") == 0  # never the path asked for


def test_metrics_answer_in_prometheus_text(client: TestClient) -> None:
    client.get("/items/x")
    response = client.get("/metrics")
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/plain")
    assert 'arena_web_requests_total{route="/items/{id}",status="200"}' in response.text
