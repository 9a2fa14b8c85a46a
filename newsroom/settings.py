"""Settings for the newsroom CMS, read from the environment (django-environ).

Every value has a safe default for a local run; production sets DEBUG=0, SECRET_KEY,
ALLOWED_HOSTS, DATABASE_URL and CACHE_URL. See README.md for the full list.
"""

import os
from pathlib import Path

import environ

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()
if (BASE_DIR / ".env").exists():
    environ.Env.read_env(BASE_DIR / ".env", overwrite=False)

DEBUG = env.bool("DEBUG", default=False)

if DEBUG:
    SECRET_KEY = env("SECRET_KEY", default="dev-only-insecure-key-do-not-use-in-production")
else:
    # No default outside DEBUG: a production deployment must set its own key.
    SECRET_KEY = env("SECRET_KEY")

ALLOWED_HOSTS = env.list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]", "testserver"])
CSRF_TRUSTED_ORIGINS = env.list("CSRF_TRUSTED_ORIGINS", default=[])

# The public base URL of the site: story URLs in every rendering are built from it.
SITE_URL = env("SITE_URL", default="https://hangingcontext.com").rstrip("/")

INSTALLED_APPS = [
    "newsroom.apps.NewsroomAdminConfig",  # the admin, with the desk's site (newsroom/adminsite.py)
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.sitemaps",
    "rest_framework",
    "drf_spectacular",
    "newsroom",
    "manifests",
    "stories",
    "public",
    "syndication",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.middleware.common.CommonMiddleware",
    "newsroom.infra.middleware.SessionStackMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]
# What SessionStackMiddleware runs, in this order, for unsafe requests and for paths under
# SESSION_PATHS; a GET or HEAD of a public page (the same for every reader) skips it, so a
# middleware that must see public pages' responses belongs in MIDDLEWARE, never in here.
SESSION_STACK = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
]
SESSION_PATHS = ["/admin", "/api"]
# Of those, where a GET or HEAD with an Authorization header and no cookie (a partner's key)
# skips the stack too: it has no session, CSRF token, user or message to read.
SESSION_KEYED_PATHS = ["/api"]
# Django's own checks look for these in MIDDLEWARE itself; newsroom.infra.middleware's
# session_stack_check makes the same demands of SESSION_STACK instead (an error when missing).
SESSION_STACK_CHECKS = ["admin.E408", "admin.E409", "admin.E410", "security.W003"]

ROOT_URLCONF = "newsroom.urls"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "newsroom.context_processors.site",
            ],
        },
    },
]

WSGI_APPLICATION = "newsroom.wsgi.application"
ASGI_APPLICATION = "newsroom.asgi.application"

DATABASES = {"default": env.db("DATABASE_URL", default=f"sqlite:///{BASE_DIR / 'db.sqlite3'}")}
DATABASES["default"].setdefault("CONN_MAX_AGE", env.int("CONN_MAX_AGE", default=0))
DATABASES["default"]["TEST"] = {"NAME": env("TEST_DATABASE_NAME", default=None)}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The cache (docs/deploy.md, "The cache"). CACHE_URL or REDIS_URL names it (Redis in production).
# Without either: a cache on this machine's disk (SQLite files, diskcache) that every process
# shares, so a command run beside the server (import_stories, publish_scheduled) moves the
# generations the server reads, and its next request is fresh. CACHE_DIR places it; by
# default a directory of the temporary one named after this checkout and its database (a
# test run has its own).
if env("CACHE_URL", default="") or env("REDIS_URL", default=""):
    CACHES = {"default": env.cache("CACHE_URL", default=env("REDIS_URL", default=""))}
else:
    import hashlib
    import sys
    import tempfile

    _cache_owner = f"{BASE_DIR}|{env('DATABASE_URL', default='')}|{'pytest' in sys.modules}"
    _cache_dir = env("CACHE_DIR", default="") or str(
        Path(tempfile.gettempdir()) / f"newsroom-cache-{hashlib.sha256(_cache_owner.encode()).hexdigest()[:16]}"
    )
    CACHES = {"default": {"BACKEND": "newsroom.infra.cache.LocalDiskCache", "LOCATION": _cache_dir}}

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "staticfiles"
STATICFILES_DIRS = [BASE_DIR / "static"] if (BASE_DIR / "static").exists() else []
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": env(
            "STATICFILES_BACKEND",
            default="whitenoise.storage.CompressedManifestStaticFilesStorage"
            if not DEBUG
            else "django.contrib.staticfiles.storage.StaticFilesStorage",
        )
    },
}
WHITENOISE_MAX_AGE = 31536000

# --- The desk: publish checks (stories/checks/). Windows are in hours or days, as named.
CHECKS_FRESHNESS_DAYS = env.int("CHECKS_FRESHNESS_DAYS", default=7)
CHECKS_REPEAT_WINDOW_HOURS = env.int("CHECKS_REPEAT_WINDOW_HOURS", default=72)
CHECKS_REPEAT_SIMILARITY = env.float("CHECKS_REPEAT_SIMILARITY", default=0.6)
CHECKS_SUPPORT_THRESHOLD = env.float("CHECKS_SUPPORT_THRESHOLD", default=0.5)
CHECKS_SENTENCE_OVERLAP = env.float("CHECKS_SENTENCE_OVERLAP", default=0.5)
# The support judge (docs/checks.md): a dotted path to a class with judge(sentence, claims).
CHECKS_JUDGE = env("CHECKS_JUDGE", default="stories.checks.meaning.judge.DeterministicJudge")
CHECKS_JUDGE_URL = env("CHECKS_JUDGE_URL", default="")  # an OpenAI-compatible chat completions URL
CHECKS_JUDGE_MODEL = env("CHECKS_JUDGE_MODEL", default="")
CHECKS_JUDGE_TIMEOUT = env.float("CHECKS_JUDGE_TIMEOUT", default=5.0)
CHECKS_JUDGE_API_KEY = env("CHECKS_JUDGE_API_KEY", default="")
# The bulk import runs the checks of a run's new stories ahead in this many forked worker
# processes (stories/checks/ahead.py), for runs of at least IMPORT_CHECK_AHEAD_MIN stories
# (while one run is published, the next run's workers start: twice as many for a moment);
# 0 runs them all in the importing process. Default: one fewer than the cores this
# process may run on, at most 4 (a container's CPU quota is not seen: set it there).
_CORES = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
IMPORT_CHECK_WORKERS = env.int("IMPORT_CHECK_WORKERS", default=max(0, min(4, _CORES - 1)))
IMPORT_CHECK_AHEAD_MIN = env.int("IMPORT_CHECK_AHEAD_MIN", default=32)

# --- Security. Secure by default outside DEBUG; check --deploy is clean with DEBUG=0.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if env.bool("BEHIND_TLS_PROXY", default=False) else None
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=not DEBUG)
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=not DEBUG)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=not DEBUG)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0 if DEBUG else 31536000)
# includeSubDomains and preload are opt-in: both bind every subdomain of the site's domain
# (includeSubDomains for a year in each browser that saw the header; preload, once the domain
# is on the browsers' list, for every browser, for months after it is taken off). That is
# the domain owner's decision, not a default of this app.
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=False)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=False)
# check --deploy warns when either is off (security.W005, W021). Off is this deployment's
# deliberate default (above), so those two warnings are silenced, and only while off: the
# other deploy checks stay, and a production check --deploy is clean.
SILENCED_SYSTEM_CHECKS = [
    *SESSION_STACK_CHECKS,
    *(["security.W005"] if not SECURE_HSTS_INCLUDE_SUBDOMAINS else []),
    *(["security.W021"] if not SECURE_HSTS_PRELOAD else []),
]
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "DEFAULT_THROTTLE_RATES": {"partner": env("API_RATE", default="600/min")},
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Hanging Context newsroom API",
    "DESCRIPTION": "Published, cited stories for syndication partners, and the desk's checks for writer agents.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
    "loggers": {"django.db.backends": {"level": "INFO"}},
}

# --- The manifest provider (manifests/provider.py, `fetch_manifests`). The key is a secret:
# sent only as `Authorization: Bearer <key>`, never logged or shown.
MANIFEST_PROVIDER_URL = env("MANIFEST_PROVIDER_URL", default="https://api.synorb.com/manifests/by-id/{manifest_id}")
MANIFEST_PROVIDER_KEY = env("MANIFEST_PROVIDER_KEY", default="")
MANIFEST_PROVIDER_ADAPTER = env("MANIFEST_PROVIDER_ADAPTER", default="manifests.adapters.manifests_1_entry")
MANIFEST_PROVIDER_CONNECT_TIMEOUT = env.float("MANIFEST_PROVIDER_CONNECT_TIMEOUT", default=5.0)
MANIFEST_PROVIDER_READ_TIMEOUT = env.float("MANIFEST_PROVIDER_READ_TIMEOUT", default=10.0)
MANIFEST_PROVIDER_MAX_ATTEMPTS = env.int("MANIFEST_PROVIDER_MAX_ATTEMPTS", default=3)
MANIFEST_PROVIDER_BACKOFF = env.float("MANIFEST_PROVIDER_BACKOFF", default=1.0)
MANIFEST_PROVIDER_BACKOFF_MAX = env.float("MANIFEST_PROVIDER_BACKOFF_MAX", default=30.0)
MANIFEST_PROVIDER_RETRY_AFTER_MAX = env.float("MANIFEST_PROVIDER_RETRY_AFTER_MAX", default=120.0)
MANIFEST_PROVIDER_FRESH_HOURS = env.float("MANIFEST_PROVIDER_FRESH_HOURS", default=24.0)

# --- Production and scale: cache, read replicas, middleware, CSP, logs. See docs/deploy.md.
# Redis (CACHE_URL=redis://... or REDIS_URL) uses Django's built-in RedisCache, wrapped so a
# Redis outage degrades to cache misses instead of errors (newsroom/infra/cache.py).
if CACHES["default"]["BACKEND"] == "django.core.cache.backends.redis.RedisCache" and env.bool(
    "CACHE_DEGRADE", default=True
):
    CACHES["default"]["BACKEND"] = "newsroom.infra.cache.DegradingRedisCache"
    CACHES["default"].setdefault("OPTIONS", {}).setdefault(
        "socket_connect_timeout", env.float("REDIS_TIMEOUT", default=0.5)
    )
    CACHES["default"]["OPTIONS"].setdefault("socket_timeout", env.float("REDIS_TIMEOUT", default=0.5))
CACHES["default"].setdefault("KEY_PREFIX", env("CACHE_KEY_PREFIX", default=""))
# Sessions read from the cache and are written through to the database: a Redis flush or
# outage logs nobody out.
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"

# DATABASE_REPLICA_URLS (comma-separated) adds replica1..replicaN; newsroom/infra/db_router.py
# sends the reads of safe, unpinned public requests there. Under test each replica mirrors
# the primary (Django's TEST MIRROR), so routing is exercised against one database.
# Health checks cost a round trip per request; worth it where the database restarts often.
DATABASES["default"].setdefault("CONN_HEALTH_CHECKS", env.bool("CONN_HEALTH_CHECKS", default=False))
DATABASE_REPLICAS = []
for _number, _url in enumerate(env.list("DATABASE_REPLICA_URLS", default=[]), start=1):
    _alias = f"replica{_number}"
    DATABASES[_alias] = environ.Env.db_url_config(_url)
    DATABASES[_alias].setdefault("CONN_MAX_AGE", DATABASES["default"]["CONN_MAX_AGE"])
    DATABASES[_alias].setdefault("CONN_HEALTH_CHECKS", DATABASES["default"]["CONN_HEALTH_CHECKS"])
    DATABASES[_alias]["TEST"] = {"MIRROR": "default"}
    DATABASE_REPLICAS.append(_alias)
DATABASE_ROUTERS = ["newsroom.infra.db_router.PrimaryReplicaRouter"] if DATABASE_REPLICAS else []
# A PostgreSQL server that does not answer a connection attempt fails it after this many
# seconds (libpq's connect_timeout; 0: wait as long as the network does): an unreachable
# address would otherwise hold each request, and every /readyz probe, for minutes.
DATABASE_CONNECT_TIMEOUT = env.int("DATABASE_CONNECT_TIMEOUT", default=5)
for _settings in DATABASES.values():
    if _settings["ENGINE"].endswith("postgresql") and DATABASE_CONNECT_TIMEOUT > 0:
        _settings.setdefault("OPTIONS", {}).setdefault("connect_timeout", DATABASE_CONNECT_TIMEOUT)
# After a write, that browser reads the primary for this long (replication lag headroom); with
# replicas, nothing read within this long of a change is cached (newsroom.infra.pagecache.settled).
DATABASE_PIN_SECONDS = env.int("DATABASE_PIN_SECONDS", default=15)
# Paths whose requests always use the primary (editors must see their own saves).
DATABASE_PRIMARY_PATHS = env.list("DATABASE_PRIMARY_PATHS", default=["/admin/"])

# Outermost first: request id (so every log line has it), CSP (so every response has it),
# health probes (before host checks), then replica-or-primary before anything reads.
MIDDLEWARE.insert(0, "newsroom.infra.middleware.RequestIdMiddleware")
MIDDLEWARE.insert(1, "newsroom.infra.middleware.ContentSecurityPolicyMiddleware")
MIDDLEWARE.insert(2, "newsroom.infra.middleware.HealthCheckMiddleware")
MIDDLEWARE.insert(3, "newsroom.infra.middleware.PrimaryDatabaseMiddleware")
# A warm story rendering's plain read is answered here, with the headers the rest of the
# chain gave it (public/views/copies.py).
MIDDLEWARE.insert(4, "public.views.copies.WholeCopies")

# No inline script anywhere (the admin needs none). The API docs page (Swagger UI, served
# from our own static files by drf-spectacular-sidecar) styles itself inline and starts a
# blob: worker, so paths starting with CSP_DOCS_PATHS get a policy allowing just that.
CSP_POLICY = env(
    "CSP_POLICY",
    default="default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' https: data:; "
    "object-src 'none'; base-uri 'self'; frame-ancestors 'none'; form-action 'self'",
)
CSP_PATH_POLICIES = dict.fromkeys(
    env.list("CSP_DOCS_PATHS", default=["/api/v1/docs", "/api/docs"]),
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; "
    "img-src 'self' https: data:; worker-src 'self' blob:; "
    "object-src 'none'; base-uri 'self'; frame-ancestors 'none'",
)

# Structured logs: JSON lines with the request id (text lines while developing).
LOG_FORMAT = env("LOG_FORMAT", default="text" if DEBUG else "json")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "filters": {"request_id": {"()": "newsroom.infra.logging.RequestIdFilter"}},
    "formatters": {
        "json": {"()": "newsroom.infra.logging.JsonFormatter"},
        "text": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
    },
    "handlers": {
        "console": {"class": "logging.StreamHandler", "filters": ["request_id"], "formatter": LOG_FORMAT},
    },
    "root": {"handlers": ["console"], "level": env("LOG_LEVEL", default="INFO")},
    "loggers": {"django.db.backends": {"level": "INFO"}},
}

# /readyz checks (by name prefix) reported without failing the probe, e.g. "cache,database:replica".
READYZ_OPTIONAL = env.list("READYZ_OPTIONAL", default=[])
# Each process answers /readyz from checks at most this old: a flood of probes costs the
# database and the cache one round of checks a second per process, not one per request.
READYZ_CACHE_SECONDS = env.float("READYZ_CACHE_SECONDS", default=1.0)

# CDN purge hook (newsroom/infra/cdn.py): POST {"urls": [...]} here after a publish or correction.
CDN_PURGE_URL = env("CDN_PURGE_URL", default="")
CDN_PURGE_TOKEN = env("CDN_PURGE_TOKEN", default="")
CDN_PURGE_TIMEOUT = env.float("CDN_PURGE_TIMEOUT", default=5.0)

# /bench/floor?bytes=N, the framework floor for bench/wrk_floor.sh. Off in production.
BENCH_FLOOR = env.bool("BENCH_FLOOR", default=False)

# --- Syndication API (syndication/): partner keys before sessions, so a request without a
# key gets 401 with WWW-Authenticate: Bearer; errors as {"error": {"code", "message"}}.
REST_FRAMEWORK["DEFAULT_AUTHENTICATION_CLASSES"] = [
    "syndication.auth.ApiKeyAuthentication",
    *REST_FRAMEWORK["DEFAULT_AUTHENTICATION_CLASSES"],
]
REST_FRAMEWORK["DEFAULT_THROTTLE_CLASSES"] = ["syndication.auth.PartnerRateThrottle"]
REST_FRAMEWORK["EXCEPTION_HANDLER"] = "syndication.errors.exception_handler"
# Swagger UI and Redoc served from our own static files, not a CDN (so the CSP stays 'self').
INSTALLED_APPS += ["drf_spectacular_sidecar"]
SPECTACULAR_SETTINGS.update(
    {
        "SWAGGER_UI_DIST": "SIDECAR",
        "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
        "REDOC_DIST": "SIDECAR",
        "COMPONENT_SPLIT_REQUEST": True,
    }
)
WEBHOOK_TIMEOUT = env.float("WEBHOOK_TIMEOUT", default=5.0)  # seconds per delivery attempt, wall clock
WEBHOOK_RETRY_HOURS = env.int("WEBHOOK_RETRY_HOURS", default=24)  # then a delivery is marked failed
WEBHOOK_BACKOFF_SECONDS = env.int("WEBHOOK_BACKOFF_SECONDS", default=30)  # doubled per attempt
WEBHOOK_BACKOFF_MAX_SECONDS = env.int("WEBHOOK_BACKOFF_MAX_SECONDS", default=3600)
# Webhook and key security (docs/deploy.md). Webhook URLs are https only unless
# WEBHOOK_ALLOW_HTTP (default: on with DEBUG, for local receivers); deliveries to private,
# loopback, link-local or reserved addresses are refused unless the URL's host, or the
# address it resolves to, is listed in WEBHOOK_ALLOWED_PRIVATE_HOSTS (names, addresses, networks).
WEBHOOK_ALLOW_HTTP = env.bool("WEBHOOK_ALLOW_HTTP", default=DEBUG)
WEBHOOK_ALLOWED_PRIVATE_HOSTS = env.list("WEBHOOK_ALLOWED_PRIVATE_HOSTS", default=[])
# Failed API key look-ups per client address (as the login limit reads it, after
# TRUSTED_PROXY_COUNT): over this rate, every key from that address answers 429 with
# Retry-After until the window slides.
API_KEY_FAILURE_RATE = env("API_KEY_FAILURE_RATE", default="30/min")

# Messages live in the session (server side), not a cookie: the admin shows a new API key
# once through a message, and it must not travel in a cookie.
MESSAGE_STORAGE = "django.contrib.messages.storage.session.SessionStorage"

# A database outage (restart, failover) answers 503 + Retry-After instead of 500; innermost,
# so it sees the view's exception first (newsroom/infra/middleware.py, docs/reliability.md).
MIDDLEWARE.append("newsroom.infra.middleware.DatabaseUnavailableMiddleware")
# A NUL in the URL is a 400 before any view (PostgreSQL text cannot hold it).
MIDDLEWARE.append("newsroom.infra.middleware.RejectNulMiddleware")

# Failed logins (newsroom/infra/login_throttle.py): after LOGIN_ATTEMPTS failures for one username
# from one address within LOGIN_WINDOW_SECONDS, that pair's login POSTs get 429 until the window
# ends; after LOGIN_ADDRESS_ATTEMPTS failures from one address, whatever the usernames (a
# password spray), all its login POSTs do. Usernames are counted as the login form cleans them.
LOGIN_ATTEMPTS = env.int("LOGIN_ATTEMPTS", default=5)
LOGIN_ADDRESS_ATTEMPTS = env.int("LOGIN_ADDRESS_ATTEMPTS", default=4 * LOGIN_ATTEMPTS)
LOGIN_WINDOW_SECONDS = env.int("LOGIN_WINDOW_SECONDS", default=900)
# How many proxies in front of gunicorn append to X-Forwarded-For (nginx alone: 1; a CDN, a
# balancer and nginx: 3). The client address for the login limit is the entry that many
# places from the right; a header with fewer entries (it did not pass every proxy) and 0 (the
# default) use REMOTE_ADDR; the API's bad-key block reads the same address. DRF's
# NUM_PROXIES follows it, though DRF would take such a short header's leftmost entry: no API
# throttle uses DRF's address (the partner throttle counts per key,
# syndication.auth.PartnerRateThrottle), so that rule decides nothing here.
TRUSTED_PROXY_COUNT = env.int("TRUSTED_PROXY_COUNT", default=0)
REST_FRAMEWORK["NUM_PROXIES"] = TRUSTED_PROXY_COUNT
SESSION_STACK.insert(0, "newsroom.infra.login_throttle.LoginThrottleMiddleware")

# Seconds a worker may trust the ``lists`` generation it last read from the cache before
# asking again (public.views.story fast path). 0: ask on every request (pages change at once
# everywhere). 1: a warm story page costs no round trip at all, and a change reaches every
# other worker within a second (well inside the 60 s max-age browsers are given anyway; the
# worker that made it sees it at once). Default: 1 with a shared cache (Redis), where the
# round trip is what separates a warm page from the framework floor (docs/benchmarks.md);
# 0 with an in-process cache (local memory: no round trip to save, and nothing is late).
SHARED_CACHE = "redis" in CACHES["default"]["BACKEND"].lower()
PAGE_LOCAL_TTL = env.float("PAGE_LOCAL_TTL", default=1.0 if SHARED_CACHE else 0.0)

# Signed renderings and webhooks (newsroom/infra/signing/, docs/deploy.md): the Ed25519 private
# key inline (PEM, or 32 random bytes as base64url) or in a file; the public keys of retired
# keys (JWK "x" values or PEM files), still published so old copies verify. With DEBUG on and
# no key, a development key derived from SECRET_KEY; with DEBUG off and no key, no start.
SIGNING_KEY = env("SIGNING_KEY", default="")
SIGNING_KEY_FILE = env("SIGNING_KEY_FILE", default="")
SIGNING_RETIRED_KEYS = env.list("SIGNING_RETIRED_KEYS", default=[])
# Decided when the settings load (the test runner turns DEBUG off later, the key stays).
SIGNING_DEVELOPMENT_KEY = DEBUG
