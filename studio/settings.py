"""Intent Studio settings. Every value comes from the environment; README lists each variable.

Two modes share this one file:
- development (the default): the embedded set-up, SQLite in WAL mode, a filesystem broker and media
  under ``var/``, all created on first use;
- production: refuses to start without a strong SECRET_KEY and turns on every deploy check.
"""

from __future__ import annotations

import re
import secrets
from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from studio.env import env_bool, env_choice, env_float, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent

STUDIO_MODE = env_choice("STUDIO_MODE", "development", ("development", "production"))
PRODUCTION = STUDIO_MODE == "production"
DEBUG = env_bool("DJANGO_DEBUG", not PRODUCTION)
if PRODUCTION and DEBUG:
    raise ImproperlyConfigured("DJANGO_DEBUG=true is refused when STUDIO_MODE=production.")

VAR_DIR = Path(env_str("STUDIO_VAR_DIR", str(BASE_DIR / "var"))).resolve()


def _secret_key() -> str:
    key = env_str("SECRET_KEY")
    if PRODUCTION:
        # The same bar as Django's own deploy check (security.W009), enforced at start-up.
        if not key or len(key) < 50 or len(set(key)) < 5 or key.startswith("django-insecure-"):
            raise ImproperlyConfigured(
                "STUDIO_MODE=production needs SECRET_KEY (or SECRET_KEY_FILE) of at least 50 "
                "characters with at least 5 distinct ones; generate one with "
                "`python -c 'import secrets; print(secrets.token_urlsafe(64))'`."
            )
        return key
    if key:
        return key
    # Development: a random key kept under var/ so sessions survive restarts.
    key_file = VAR_DIR / "secret_key"
    if not key_file.exists():
        VAR_DIR.mkdir(parents=True, exist_ok=True)
        key_file.write_text(secrets.token_urlsafe(64), encoding="utf-8")
        key_file.chmod(0o600)
    return key_file.read_text(encoding="utf-8").strip()


SECRET_KEY = _secret_key()

ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", [] if PRODUCTION else ["127.0.0.1", "localhost"])
if PRODUCTION and not ALLOWED_HOSTS:
    raise ImproperlyConfigured("STUDIO_MODE=production needs ALLOWED_HOSTS (comma-separated).")
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS", [])

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "django.contrib.postgres",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "studio",
    "media",
    "annotation",
    "review",
    "scoring",
    "axes",  # login throttling (docs/architecture.md, "Login throttling")
]

MIDDLEWARE = [
    "studio.middleware.ServerErrorMiddleware",  # first: no traceback but to a superuser, any mode
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "studio.middleware.TimeZoneMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "studio.middleware.ContentSecurityPolicyMiddleware",
    "studio.middleware.DevelopmentErrorPagesMiddleware",
    "axes.middleware.AxesMiddleware",  # last: turns a refused login into the lockout page
]
CSRF_FAILURE_VIEW = "studio.views.csrf_failure"

ROOT_URLCONF = "studio.urls"
WSGI_APPLICATION = "studio.wsgi.application"

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
                "studio.context_processors.roles",
            ],
        },
    },
]

# --- Database -------------------------------------------------------------------------------
DATABASE_URL = env_str("DATABASE_URL", f"sqlite:///{VAR_DIR / 'db.sqlite3'}")
try:
    _db = dj_database_url.parse(DATABASE_URL, conn_max_age=env_int("DB_CONN_MAX_AGE", 60))
except ValueError as exc:
    raise ImproperlyConfigured(f"DATABASE_URL is not a database URL: {exc}") from exc
if _db["ENGINE"] == "django.db.backends.sqlite3":
    _db["CONN_MAX_AGE"] = 0
    # WAL lets the web server read while the worker writes; IMMEDIATE transactions take the
    # write lock up front, so two writers queue on the busy timeout instead of deadlocking.
    _db["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;",
        "transaction_mode": "IMMEDIATE",
        "timeout": 30,
    }
    # A file, not :memory:, so a worker process started by a test sees the test database.
    _db["TEST"] = {"NAME": env_str("TEST_DATABASE_NAME", str(VAR_DIR / "test.sqlite3"))}
    Path(_db["NAME"]).parent.mkdir(parents=True, exist_ok=True)
elif _db["ENGINE"] == "django.db.backends.postgresql":
    # Lets two test runs share one server without dropping each other's database.
    _db["TEST"] = {"NAME": env_str("TEST_DATABASE_NAME")}
else:
    raise ImproperlyConfigured("DATABASE_URL must point at PostgreSQL or SQLite.")
DATABASES = {"default": _db}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Auth -----------------------------------------------------------------------------------
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]
LOGIN_URL = "login"
LOGIN_REDIRECT_URL = "home"
LOGOUT_REDIRECT_URL = "login"

# Login throttling (django-axes): after LOGIN_FAILURE_LIMIT failed logins for one user name, or
# from one client address, further logins of that name or from that address are refused for
# LOGIN_LOCKOUT_MINUTES, on /login/ and /admin/login/ alike. A successful login clears only the
# failures of its own user name from its own address (studio.throttle.LoginFailureHandler); an
# admin unlocks by deleting the access attempt in the admin (docs/security.md).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses a locked-out name before checking it
    "django.contrib.auth.backends.ModelBackend",
]
AXES_ENABLED = env_bool("LOGIN_THROTTLE", True)
AXES_FAILURE_LIMIT = env_int("LOGIN_FAILURE_LIMIT", 10, minimum=1)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("LOGIN_LOCKOUT_MINUTES", 15, minimum=1))
AXES_LOCKOUT_PARAMETERS = ["username", "ip_address"]  # each counted on its own
AXES_RESET_ON_SUCCESS = True
AXES_HANDLER = "studio.throttle.LoginFailureHandler"
AXES_LOCKOUT_CALLABLE = "studio.throttle.locked_out"
AXES_CLIENT_IP_CALLABLE = "studio.throttle.client_address"
LOGIN_CLIENT_IP_HEADER = env_str("LOGIN_CLIENT_IP_HEADER", "")

# --- Internationalisation ---------------------------------------------------------------------
LANGUAGE_CODE = "en-us"
TIME_ZONE = env_str("TIME_ZONE", "UTC")
USE_I18N = True
USE_TZ = True
# Dates to the second with their zone, in the admin too (studio/formats/en/formats.py).
FORMAT_MODULE_PATH = ["studio.formats"]

# --- Static and media files ------------------------------------------------------------------
STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(env_str("STATIC_ROOT", str(VAR_DIR / "static")))
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # whitenoise expects it, even before collectstatic
WHITENOISE_USE_FINDERS = DEBUG  # development serves from the app folders, no collectstatic needed
MEDIA_ROOT = Path(env_str("MEDIA_ROOT", str(VAR_DIR / "media")))
MEDIA_URL = "/media-files/"  # never served directly: every file goes through an access check
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "whitenoise.storage.CompressedManifestStaticFilesStorage"
            if PRODUCTION
            else "django.contrib.staticfiles.storage.StaticFilesStorage"
        )
    },
}
FILE_UPLOAD_MAX_MEMORY_SIZE = 8 * 1024 * 1024
DATA_UPLOAD_MAX_MEMORY_SIZE = 8 * 1024 * 1024

# --- ffmpeg ---------------------------------------------------------------------------------
# Empty means the binary that imageio-ffmpeg ships, so a plain `pip install` is enough.
FFMPEG_BINARY = env_str("FFMPEG_BINARY", "")
FFMPEG_TIMEOUT_SECONDS = env_int("FFMPEG_TIMEOUT_SECONDS", 600, minimum=1)
MEDIA_MAX_DURATION_SECONDS = env_int("MEDIA_MAX_DURATION_SECONDS", 4 * 3600, minimum=1)
MEDIA_MAX_PIXELS = env_int("MEDIA_MAX_PIXELS", 4096 * 2160, minimum=1)
# Import limits (media/probe.py): checked on the header before the frame index is built, and the
# frame count again while it is built, so a hostile file is refused before it costs much.
MEDIA_MAX_SIDE_PX = env_int("MEDIA_MAX_SIDE_PX", 8192, minimum=1)
MEDIA_MIN_SIDE_PX = env_int("MEDIA_MIN_SIDE_PX", 64, minimum=1)
MEDIA_MAX_FPS = env_int("MEDIA_MAX_FPS", 240, minimum=1)
MEDIA_MAX_FRAMES = env_int("MEDIA_MAX_FRAMES", 1_000_000, minimum=1)

# --- Celery ---------------------------------------------------------------------------------
CELERY_BROKER_URL = env_str("CELERY_BROKER_URL", "filesystem://localhost//")
CELERY_RESULT_BACKEND = env_str("CELERY_RESULT_BACKEND", f"file://{VAR_DIR / 'celery-results'}")
# The queues' namespace: the Redis key prefix of the broker and the results, or the filesystem
# broker's sub-folder. Two instances that share one Redis database or one var/ keep their tasks
# apart with it. Parallel test processes (pytest-xdist sets PYTEST_XDIST_WORKER=gw0, gw1, ... and
# every worker a test starts inherits it) get one each, so no worker takes another's tasks.
QUEUE_NAMESPACE = env_str("STUDIO_QUEUE_NAMESPACE", env_str("PYTEST_XDIST_WORKER", ""))
if not re.fullmatch(r"[A-Za-z0-9_-]{0,40}", QUEUE_NAMESPACE):
    raise ImproperlyConfigured(
        f"STUDIO_QUEUE_NAMESPACE={QUEUE_NAMESPACE!r}: use at most 40 letters, digits, - or _."
    )
if CELERY_BROKER_URL.startswith("filesystem://"):
    _broker_dir = VAR_DIR / "broker" / QUEUE_NAMESPACE if QUEUE_NAMESPACE else VAR_DIR / "broker"
    for _sub in ("queue", "processed", "control"):
        (_broker_dir / _sub).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        "data_folder_in": str(_broker_dir / "queue"),
        "data_folder_out": str(_broker_dir / "queue"),
        "processed_folder": str(_broker_dir / "processed"),
        "control_folder": str(_broker_dir / "control"),
        "store_processed": False,
    }
else:
    CELERY_BROKER_TRANSPORT_OPTIONS = {}  # Redis: the visibility timeout is set below
if CELERY_RESULT_BACKEND.startswith("file://"):
    Path(CELERY_RESULT_BACKEND.removeprefix("file://")).mkdir(parents=True, exist_ok=True)
CELERY_TASK_ALWAYS_EAGER = False
# Late acknowledgement only where a task says it is safe to run twice (``idempotent=True`` on the
# task, studio/celery.py): its message is acknowledged after the work, and a worker lost in the
# middle (SIGKILL, OOM) rejects it so the broker delivers it again. Every other task is
# acknowledged as it starts and is never run twice.
CELERY_TASK_ACKS_LATE = False
CELERY_TASK_REJECT_ON_WORKER_LOST = False
# One message per pool process at a time: a media worker never holds renders it cannot start,
# which another idle worker could be doing (and a killed worker takes none down with it).
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_DEFAULT_QUEUE = "default"
CELERY_TASK_ROUTES = {
    "media.*": {"queue": "media"},
    "scoring.models.*": {"queue": "models"},
}
# Time limits per task: at the soft limit the task gets SoftTimeLimitExceeded (its lease is not
# renewed any more, so the sweeper retries it or marks it failed); at the hard limit the pool
# process is killed. The longest task is a render group: several ffmpeg runs of at most
# FFMPEG_TIMEOUT_SECONDS each.
CELERY_TASK_TIME_LIMIT = env_int("CELERY_TASK_TIME_LIMIT", 3600, minimum=2)
CELERY_TASK_SOFT_TIME_LIMIT = env_int(
    "CELERY_TASK_SOFT_TIME_LIMIT",
    max(CELERY_TASK_TIME_LIMIT - 60, CELERY_TASK_TIME_LIMIT * 9 // 10),
    minimum=1,
)
if CELERY_TASK_SOFT_TIME_LIMIT >= CELERY_TASK_TIME_LIMIT:
    raise ImproperlyConfigured(
        f"CELERY_TASK_SOFT_TIME_LIMIT={CELERY_TASK_SOFT_TIME_LIMIT} must be below "
        f"CELERY_TASK_TIME_LIMIT={CELERY_TASK_TIME_LIMIT}."
    )
# Redis hands an unacknowledged message to another worker once it has been out this long. It
# must outlast the longest task (the hard time limit), or a slow render would be given to a
# second worker while the first still works on it.
REDIS_VISIBILITY_TIMEOUT = env_int(
    "REDIS_VISIBILITY_TIMEOUT", CELERY_TASK_TIME_LIMIT + 600, minimum=1
)
if REDIS_VISIBILITY_TIMEOUT <= CELERY_TASK_TIME_LIMIT:
    raise ImproperlyConfigured(
        f"REDIS_VISIBILITY_TIMEOUT={REDIS_VISIBILITY_TIMEOUT} must be longer than "
        f"the longest task, CELERY_TASK_TIME_LIMIT={CELERY_TASK_TIME_LIMIT}."
    )
if CELERY_BROKER_URL.startswith(("redis://", "rediss://")):
    CELERY_BROKER_TRANSPORT_OPTIONS = {"visibility_timeout": REDIS_VISIBILITY_TIMEOUT}
    if QUEUE_NAMESPACE:
        CELERY_BROKER_TRANSPORT_OPTIONS["global_keyprefix"] = f"{QUEUE_NAMESPACE}:"
if QUEUE_NAMESPACE and CELERY_RESULT_BACKEND.startswith(("redis://", "rediss://")):
    CELERY_RESULT_BACKEND_TRANSPORT_OPTIONS = {"global_keyprefix": f"{QUEUE_NAMESPACE}:"}
# Time limits are enforced by the prefork pool (media and default queues). The models worker's
# threads pool cannot interrupt a thread: there, every model call has its own HTTP timeout and
# its lease (docs/models.md).
CELERY_RESULT_EXPIRES = 24 * 3600
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# A worker counts as live when it wrote a heartbeat within this many seconds (see /healthz).
WORKER_HEARTBEAT_SECONDS = env_int("WORKER_HEARTBEAT_SECONDS", 10, minimum=1)
# Leases on long work (studio/leases.py): a worker renews its claim every third of LEASE_SECONDS;
# the sweeper re-enqueues work whose lease ran out, LEASE_MAX_ATTEMPTS claims at most.
LEASE_SECONDS = env_int("LEASE_SECONDS", 60, minimum=1)
LEASE_SWEEP_SECONDS = env_int("LEASE_SWEEP_SECONDS", 30, minimum=1)
LEASE_MAX_ATTEMPTS = env_int("LEASE_MAX_ATTEMPTS", 3, minimum=1)
CELERY_BEAT_SCHEDULE = {
    "sweep-leases": {"task": "studio.sweep_leases", "schedule": float(LEASE_SWEEP_SECONDS)},
}

# --- Model runs and judges (docs/models.md) ---------------------------------------------------
# Retries: exponential backoff with full jitter on 429, 5xx, timeouts and connection errors.
MODEL_MAX_ATTEMPTS = env_int("MODEL_MAX_ATTEMPTS", 6, minimum=1)
MODEL_BACKOFF_BASE_SECONDS = env_float("MODEL_BACKOFF_BASE_SECONDS", 1.0, minimum=0)
MODEL_BACKOFF_MAX_SECONDS = env_float("MODEL_BACKOFF_MAX_SECONDS", 60.0, minimum=0)
# A Retry-After longer than this is cut to it (a provider asking for an hour is an outage).
MODEL_RETRY_AFTER_MAX_SECONDS = env_float("MODEL_RETRY_AFTER_MAX_SECONDS", 300.0, minimum=0)
# After a 429 an endpoint's concurrency is halved for this long (every process sees it).
MODEL_ADAPTIVE_COOLDOWN_SECONDS = env_int("MODEL_ADAPTIVE_COOLDOWN_SECONDS", 60, minimum=1)
# Where the per-endpoint limits live: Redis when the broker is Redis, else lock files under var/.
MODEL_LIMITER_URL = env_str(
    "MODEL_LIMITER_URL",
    CELERY_BROKER_URL
    if CELERY_BROKER_URL.startswith(("redis://", "rediss://"))
    else f"file://{VAR_DIR / 'limits'}",
)
MODEL_LIMITER_PREFIX = env_str("MODEL_LIMITER_PREFIX", "studio:limits:")
# Link-local and cloud-metadata hosts are refused as endpoints unless listed here.
MODEL_ENDPOINT_ALLOWED_HOSTS = env_list("MODEL_ENDPOINT_ALLOWED_HOSTS", [])
# For video_url endpoints: the origin a model server uses to fetch media from this instance.
MODEL_MEDIA_BASE_URL = env_str("MODEL_MEDIA_BASE_URL", "")
MODEL_MEDIA_URL_TTL_SECONDS = env_int("MODEL_MEDIA_URL_TTL_SECONDS", 900, minimum=10)
# The stand-in provider that `make run` starts on the embedded default (never a real model).
STAND_IN_PROVIDER_PORT = env_int("STAND_IN_PROVIDER_PORT", 8765, minimum=0)

# --- REST API -------------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        "studio.csrf.SessionCsrfAuthentication",
    ],
    # The API speaks JSON only (the pages send JSON; form and multipart bodies get 415).
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "EXCEPTION_HANDLER": "studio.api.exception_handler",
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticated"],
    "DEFAULT_SCHEMA_CLASS": "studio.schema.StudioAutoSchema",
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "UNAUTHENTICATED_USER": "django.contrib.auth.models.AnonymousUser",
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Intent Studio API",
    "DESCRIPTION": "Annotation, review and evaluation of step-level intent in egocentric video.",
    "VERSION": "0.1.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SERVE_PERMISSIONS": ["rest_framework.permissions.IsAuthenticated"],
    # Every error answer of every operation, in the one JSON shape (studio/schema.py).
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "studio.schema.document_error_answers",
    ],
}

# --- Security -------------------------------------------------------------------------------
SESSION_COOKIE_HTTPONLY = True
CSRF_COOKIE_HTTPONLY = False  # the page's JS reads it to send X-CSRFToken
SECURE_CONTENT_TYPE_NOSNIFF = True
X_FRAME_OPTIONS = "DENY"
SECURE_REFERRER_POLICY = "same-origin"
if PRODUCTION:
    SESSION_COOKIE_SECURE = True
    CSRF_COOKIE_SECURE = True
    SECURE_SSL_REDIRECT = env_bool("SECURE_SSL_REDIRECT", True)
    SECURE_HSTS_SECONDS = env_int("SECURE_HSTS_SECONDS", 31536000, minimum=0)
    SECURE_HSTS_INCLUDE_SUBDOMAINS = env_bool("SECURE_HSTS_INCLUDE_SUBDOMAINS", True)
    SECURE_HSTS_PRELOAD = env_bool("SECURE_HSTS_PRELOAD", True)
    if env_bool("TRUST_X_FORWARDED_PROTO", False):
        SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")

# --- Demo -----------------------------------------------------------------------------------
STUDIO_DEMO_PASSWORD = env_str("STUDIO_DEMO_PASSWORD")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {
        "handlers": ["console"],
        "level": env_choice("LOG_LEVEL", "INFO", ("DEBUG", "INFO", "WARNING", "ERROR")),
    },
    "loggers": {
        "django.db.backends": {"level": "INFO"},
        "axes": {"level": "WARNING"},  # lockouts; not every failed or successful login
    },
}
SPECTACULAR_SETTINGS.update(
    {
        "SWAGGER_UI_DIST": "SIDECAR",
        "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
        "REDOC_DIST": "SIDECAR",
    }
)

# --- Serving media --------------------------------------------------------------------------
# none: Django streams files itself (with Range); nginx: X-Accel-Redirect to an internal
# location; apache: X-Sendfile. See docs/media.md.
MEDIA_SENDFILE = env_choice("MEDIA_SENDFILE", "none", ("none", "nginx", "apache"))
MEDIA_SENDFILE_PREFIX = env_str("MEDIA_SENDFILE_PREFIX", "/protected-media/")
# Lifetime of an opaque per-user media URL (media/grants.py).
MEDIA_GRANT_TTL_SECONDS = env_int("MEDIA_GRANT_TTL_SECONDS", 3600, minimum=1)
