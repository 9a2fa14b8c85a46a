"""gunicorn.conf.py: workers from the CPU count, capped by WEB_CONCURRENCY; bounded workers."""

import os
import runpy
from pathlib import Path

import pytest

CONF = Path(__file__).resolve().parents[2] / "gunicorn.conf.py"


def load(monkeypatch, **env) -> dict:
    for name in ("WEB_CONCURRENCY", "PORT", "GUNICORN_BIND", "GUNICORN_THREADS", "GUNICORN_CONTROL_SOCKET"):
        monkeypatch.delenv(name, raising=False)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    return runpy.run_path(str(CONF))


@pytest.fixture
def cores(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1, 2, 3}, raising=False)
    return 4


def test_workers_are_twice_the_cores_plus_one(monkeypatch, cores):
    assert load(monkeypatch)["workers"] == 2 * cores + 1


def test_web_concurrency_caps_the_workers(monkeypatch, cores):
    assert load(monkeypatch, WEB_CONCURRENCY="3")["workers"] == 3
    assert load(monkeypatch, WEB_CONCURRENCY="64")["workers"] == 2 * cores + 1


def test_workers_are_recycled_with_jitter_and_requests_time_out(monkeypatch, cores):
    conf = load(monkeypatch)
    assert conf["max_requests"] > 0 and 0 < conf["max_requests_jitter"] < conf["max_requests"]
    assert conf["timeout"] == 30 and conf["graceful_timeout"] == 30
    assert conf["worker_class"] == "sync"
    assert conf["accesslog"] == "-"
    assert conf["logger_class"] == "newsroom.infra.logging.GunicornJsonLogger"
    assert conf["control_socket_disable"] is True


def test_bind_follows_the_environment(monkeypatch, cores):
    assert load(monkeypatch)["bind"] == ["127.0.0.1:8000"]
    assert load(monkeypatch, PORT="5000")["bind"] == ["0.0.0.0:5000"]
    assert load(monkeypatch, GUNICORN_BIND="unix:/run/newsroom/gunicorn.sock")["bind"] == [
        "unix:/run/newsroom/gunicorn.sock"
    ]


def test_threads_switch_to_the_gthread_worker(monkeypatch, cores):
    assert load(monkeypatch, GUNICORN_THREADS="4")["worker_class"] == "gthread"


def test_workers_recycle_rarely_and_far_apart(monkeypatch, cores):
    """2000 + 200 made all five workers recycle within seconds of each other under even load,
    stalling the site (docs/benchmarks.md, Load): the jitter is now half the limit."""
    conf = load(monkeypatch)
    assert conf["max_requests"] >= 10000
    assert conf["max_requests_jitter"] * 2 >= conf["max_requests"]


def test_a_new_worker_is_warmed_before_it_accepts(monkeypatch, cores):
    conf = load(monkeypatch)
    warmed = []

    class Worker:
        pid = 1234

        class log:
            @staticmethod
            def info(message, *args):
                warmed.append(message % args)

    monkeypatch.setattr("newsroom.infra.warmup.warm", lambda: 0.25)
    conf["post_worker_init"](Worker())
    assert warmed == ["worker 1234 warmed in 0.25 s"]
