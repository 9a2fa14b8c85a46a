"""Production settings, read from the environment in a fresh process each time."""

import json
import os
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.test import RequestFactory, override_settings

ROOT = Path(__file__).resolve().parents[2]
PROD_ENV = {
    "DEBUG": "0",
    "SECRET_KEY": secrets.token_urlsafe(50),
    "ALLOWED_HOSTS": "example.com",
    "SIGNING_KEY": secrets.token_urlsafe(32),
}
# Variables of the test run that must not leak into a fresh production process.
SCRUBBED = {
    "DJANGO_ALLOW_ASYNC_UNSAFE",
    "DEBUG",
    "CACHE_URL",
    "REDIS_URL",
    "DATABASE_REPLICA_URLS",
    "BEHIND_TLS_PROXY",
    "LOG_FORMAT",
    "PAGE_LOCAL_TTL",
    "SIGNING_KEY_FILE",
}


def django(*args: str, **env: str) -> subprocess.CompletedProcess:
    """Run ``manage.py *args`` with a production environment plus ``env``."""
    full_env = {k: v for k, v in os.environ.items() if k not in SCRUBBED} | PROD_ENV | env
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=full_env, capture_output=True, text=True, timeout=120
    )


SHOW = (
    "import json; from django.conf import settings as s; print(json.dumps({"
    "'caches': s.CACHES, 'session': s.SESSION_ENGINE, 'databases': sorted(s.DATABASES),"
    "'replicas': s.DATABASE_REPLICAS, 'routers': s.DATABASE_ROUTERS,"
    "'mirror': {a: s.DATABASES[a].get('TEST', {}).get('MIRROR') for a in s.DATABASES},"
    "'proxy': s.SECURE_PROXY_SSL_HEADER, 'static': s.STORAGES['staticfiles']['BACKEND'],"
    "'hsts': s.SECURE_HSTS_SECONDS, 'log': s.LOGGING['handlers']['console']['formatter'],"
    "'page_local_ttl': s.PAGE_LOCAL_TTL,"
    "'connect_timeout': {a: s.DATABASES[a].get('OPTIONS', {}).get('connect_timeout') for a in s.DATABASES}}))"
)


def settings_with(**env: str) -> dict:
    result = django("shell", "-c", SHOW, **env)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


@pytest.mark.slow
def test_check_deploy_reports_nothing_in_production():
    result = django("check", "--deploy", "--fail-level", "WARNING")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "System check identified no issues" in result.stdout


@pytest.mark.slow
def test_check_deploy_does_complain_about_a_weak_key():
    # The check above is meaningful: the same command fails on a bad configuration.
    result = django("check", "--deploy", "--fail-level", "WARNING", SECRET_KEY="django-insecure-short")
    assert result.returncode != 0
    assert "security.W009" in result.stdout + result.stderr


@pytest.mark.slow
def test_production_defaults():
    s = settings_with()
    assert s["hsts"] == 31536000
    assert s["static"] == "whitenoise.storage.CompressedManifestStaticFilesStorage"
    assert s["log"] == "json"
    assert s["proxy"] is None
    assert s["caches"]["default"]["BACKEND"] == "newsroom.infra.cache.LocalDiskCache"  # shared by every process
    assert s["session"] == "django.contrib.sessions.backends.cached_db"
    assert s["databases"] == ["default"] and s["routers"] == []


@pytest.mark.slow
def test_the_proxy_ssl_header_is_trusted_only_behind_a_tls_proxy():
    assert settings_with(BEHIND_TLS_PROXY="1")["proxy"] == ["HTTP_X_FORWARDED_PROTO", "https"]


@pytest.mark.slow
@pytest.mark.parametrize("variable", ["CACHE_URL", "REDIS_URL"])
def test_a_redis_url_selects_djangos_own_redis_backend_made_to_degrade(variable):
    cache = settings_with(**{variable: "redis://10.0.0.9:6379/2"})["caches"]["default"]
    assert cache["BACKEND"] == "newsroom.infra.cache.DegradingRedisCache"
    assert cache["LOCATION"] == "redis://10.0.0.9:6379/2"
    assert cache["OPTIONS"]["socket_connect_timeout"] == 0.5

    from django.core.cache.backends.redis import RedisCache

    from newsroom.infra.cache import DegradingRedisCache

    assert issubclass(DegradingRedisCache, RedisCache)  # Django's built-in, not django-redis


@pytest.mark.slow
def test_workers_trust_the_lists_generation_for_a_second_only_with_a_shared_cache():
    """With Redis the fast path's round trip is skipped for up to PAGE_LOCAL_TTL seconds
    (a change reaches other workers that much later); with local memory there is no round
    trip to save, so nothing is ever late; and the setting overrides either."""
    assert settings_with(CACHE_URL="redis://10.0.0.9:6379/2")["page_local_ttl"] == 1.0
    assert settings_with()["page_local_ttl"] == 0.0
    assert settings_with(CACHE_URL="dummycache://")["page_local_ttl"] == 0.0
    assert settings_with(CACHE_URL="redis://10.0.0.9:6379/2", PAGE_LOCAL_TTL="0")["page_local_ttl"] == 0.0


@pytest.mark.slow
def test_the_dummy_cache_url_renders_everything():
    cache = settings_with(CACHE_URL="dummycache://")["caches"]["default"]
    assert cache["BACKEND"] == "django.core.cache.backends.dummy.DummyCache"


@pytest.mark.slow
def test_replica_urls_add_mirrored_replica_aliases_and_the_router():
    s = settings_with(DATABASE_REPLICA_URLS="postgres://r1.internal/news,postgres://r2.internal/news")
    assert s["databases"] == ["default", "replica1", "replica2"]
    assert s["replicas"] == ["replica1", "replica2"]
    assert s["routers"] == ["newsroom.infra.db_router.PrimaryReplicaRouter"]
    assert s["mirror"] == {"default": None, "replica1": "default", "replica2": "default"}


def test_postgresql_connections_give_up_on_an_unanswered_attempt():
    replicas = {"DATABASE_REPLICA_URLS": "postgres://r1.internal/news"}
    s = settings_with(DATABASE_URL="postgres://db.internal/news", **replicas)
    assert s["connect_timeout"] == {"default": 5, "replica1": 5}
    s = settings_with(DATABASE_URL="postgres://db.internal/news?connect_timeout=2", DATABASE_CONNECT_TIMEOUT="9")
    assert s["connect_timeout"] == {"default": 2}  # the URL's own wins
    s = settings_with(DATABASE_URL="postgres://db.internal/news", DATABASE_CONNECT_TIMEOUT="0")
    assert s["connect_timeout"] == {"default": None}
    assert settings_with(DATABASE_URL="sqlite:///:memory:")["connect_timeout"] == {"default": None}


def test_hashed_static_files_get_long_immutable_cache_headers(tmp_path):
    from django.core.management import call_command
    from whitenoise.middleware import WhiteNoiseMiddleware

    manifest_storage = {
        "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }
    with override_settings(DEBUG=False, STATIC_ROOT=tmp_path, STORAGES=manifest_storage):
        call_command("collectstatic", "--noinput", verbosity=0)
        from django.contrib.staticfiles.storage import staticfiles_storage

        hashed_url = staticfiles_storage.url("admin/css/base.css")
        assert hashed_url != "/static/admin/css/base.css"  # a content hash is in the name
        middleware = WhiteNoiseMiddleware(lambda request: None)
        response = middleware(RequestFactory().get(hashed_url))
    assert response.status_code == 200
    cache_control = response["Cache-Control"]
    assert "immutable" in cache_control
    assert int(cache_control.split("max-age=")[1].split(",")[0]) >= 31536000
