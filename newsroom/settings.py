"""Settings for the newsroom CMS, read from the environment (django-environ).

Every value has a safe default for a local run; production sets DEBUG=0, SECRET_KEY,
ALLOWED_HOSTS, DATABASE_URL and CACHE_URL. See README.md for the full list.
"""

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
    "django.contrib.admin",
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
    "syndication",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

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

CACHES = {"default": env.cache("CACHE_URL", default=env("REDIS_URL", default="locmemcache://"))}

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

# --- Security. Secure by default outside DEBUG; check --deploy is clean with DEBUG=0.
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if env.bool("BEHIND_TLS_PROXY", default=False) else None
SECURE_SSL_REDIRECT = env.bool("SECURE_SSL_REDIRECT", default=not DEBUG)
SECURE_REDIRECT_EXEMPT = [r"^healthz$", r"^readyz$"]
SESSION_COOKIE_SECURE = env.bool("SESSION_COOKIE_SECURE", default=not DEBUG)
CSRF_COOKIE_SECURE = env.bool("CSRF_COOKIE_SECURE", default=not DEBUG)
SECURE_HSTS_SECONDS = env.int("SECURE_HSTS_SECONDS", default=0 if DEBUG else 31536000)
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", default=not DEBUG)
SECURE_HSTS_PRELOAD = env.bool("SECURE_HSTS_PRELOAD", default=not DEBUG)
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
