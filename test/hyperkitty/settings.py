"""
A minimal Django site serving HyperKitty for listminer's tests: no Mailman
core (mail comes in with `hyperkitty_import --no-sync-mailman`), no search
engine, tasks run inline. Everything it writes goes under HK_DATA_DIR.
HK_DATABASE_URL=postgresql://... selects PostgreSQL instead of SQLite.
"""
import os
from urllib.parse import urlparse

DATA_DIR = os.environ["HK_DATA_DIR"]

SECRET_KEY = "listminer-test-site"
DEBUG = False
ALLOWED_HOSTS = ["*"]
SITE_ID = 1
ROOT_URLCONF = "urls"
WSGI_APPLICATION = "wsgi.application"
USE_TZ = True
TIME_ZONE = "UTC"
LANGUAGE_CODE = "en-us"
USE_I18N = True
DEFAULT_AUTO_FIELD = "django.db.models.AutoField"

INSTALLED_APPS = (
    "hyperkitty",
    "django_mailman3",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.sites",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_gravatar",
    "compressor",
    "haystack",
    "django_extensions",
    "django_q",
    "allauth",
    "allauth.account",
    "allauth.socialaccount",
)

MIDDLEWARE = (
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
)

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.debug",
                "django.template.context_processors.i18n",
                "django.template.context_processors.static",
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "django_mailman3.context_processors.common",
                "hyperkitty.context_processors.common",
            ],
        },
    },
]

_database_url = os.environ.get("HK_DATABASE_URL")
if _database_url:
    _url = urlparse(_database_url)
    DATABASES = {
        "default": {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": _url.path.lstrip("/"),
            "USER": _url.username or "postgres",
            "PASSWORD": _url.password or "",
            "HOST": _url.hostname or "127.0.0.1",
            "PORT": str(_url.port or 5432),
        }
    }
else:
    DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": os.path.join(DATA_DIR, "hyperkitty.db")}}

# Shared between the server and the import commands, as a real site's cache is:
# HyperKitty keeps a list's first date and month counts there.
CACHES = {"default": {"BACKEND": "django.core.cache.backends.filebased.FileBasedCache", "LOCATION": os.path.join(DATA_DIR, "cache")}}

STATIC_URL = "/static/"
STATIC_ROOT = os.path.join(DATA_DIR, "static")
STATICFILES_FINDERS = (
    "django.contrib.staticfiles.finders.AppDirectoriesFinder",
    "compressor.finders.CompressorFinder",
)
COMPRESS_ENABLED = False
COMPRESS_PRECOMPILERS = ()

HAYSTACK_CONNECTIONS = {"default": {"ENGINE": "haystack.backends.simple_backend.SimpleEngine"}}
Q_CLUSTER = {"orm": "default", "sync": True, "timeout": 60, "retry": 120}

MAILMAN_REST_API_URL = "http://127.0.0.1:9"
MAILMAN_REST_API_USER = "restadmin"
MAILMAN_REST_API_PASS = "restpass"
MAILMAN_ARCHIVER_KEY = "listminer-test"
MAILMAN_ARCHIVER_FROM = ("127.0.0.1",)
HYPERKITTY_ENABLE_GRAVATAR = False
GRAVATAR_DEFAULT_IMAGE = "mm"

AUTHENTICATION_BACKENDS = ("django.contrib.auth.backends.ModelBackend",)
LOGIN_URL = "account_login"
LOGIN_REDIRECT_URL = "hk_root"
LOGOUT_URL = "account_logout"

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
}
