"""The two peer sites ``bench/peers.py`` builds under ``.bench-peers/`` (never committed):

- ``bare``: the bare framework floor, a Django project with ``SecurityMiddleware`` and
  ``CommonMiddleware`` only, whose one view returns the story page's own bytes;
- ``wagtail``: a Wagtail site with the demo story as a page of StreamField sections of
  rich-text paragraphs and a plain template, on SQLite, with no cache, and the middleware a
  new Wagtail project (``wagtail start``) ships with.

Each is a dict of relative path -> file text.
"""

BARE = {
    "bare_settings.py": """
import os
from pathlib import Path

DEBUG = False
SECRET_KEY = os.environ["SECRET_KEY"]
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
ROOT_URLCONF = "bare_urls"
INSTALLED_APPS = []
MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "django.middleware.common.CommonMiddleware",
]
DATABASES = {}
USE_TZ = True
BODY = (Path(__file__).parent / "body.html").read_bytes()
""",
    "bare_urls.py": """
from django.conf import settings
from django.http import HttpResponse
from django.urls import re_path


def page(request):
    return HttpResponse(settings.BODY, content_type="text/html; charset=utf-8")


urlpatterns = [re_path(r"^.*$", page)]
""",
    "bare_wsgi.py": """
import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "bare_settings")
from django.core.wsgi import get_wsgi_application  # noqa: E402

application = get_wsgi_application()
""",
}

WAGTAIL = {
    "peer_settings.py": """
import os
from pathlib import Path

BASE_DIR = Path(__file__).parent
DEBUG = False
SECRET_KEY = os.environ["SECRET_KEY"]
ALLOWED_HOSTS = ["127.0.0.1", "localhost"]
ROOT_URLCONF = "peer_urls"
WAGTAIL_SITE_NAME = "Peer"
WAGTAILADMIN_BASE_URL = "http://127.0.0.1"
INSTALLED_APPS = [
    "peer",
    "wagtail.contrib.forms",
    "wagtail.contrib.redirects",
    "wagtail.embeds",
    "wagtail.sites",
    "wagtail.users",
    "wagtail.snippets",
    "wagtail.documents",
    "wagtail.images",
    "wagtail.search",
    "wagtail.admin",
    "wagtail",
    "modelcluster",
    "taggit",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
]
# As ``wagtail start`` writes them.
MIDDLEWARE = [
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "wagtail.contrib.redirects.middleware.RedirectMiddleware",
]
TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.debug",
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ]
        },
    }
]
DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": BASE_DIR / "peer.sqlite3"}}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
USE_TZ = True
STATIC_URL = "/static/"
STATIC_ROOT = BASE_DIR / "static"
""",
    "peer_urls.py": """
from django.urls import include, path
from wagtail import urls as wagtail_urls

urlpatterns = [path("", include(wagtail_urls))]
""",
    "peer_wsgi.py": """
import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "peer_settings")
from django.core.wsgi import get_wsgi_application  # noqa: E402

application = get_wsgi_application()
""",
    "manage.py": """
import os
import sys

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "peer_settings")
from django.core.management import execute_from_command_line  # noqa: E402

execute_from_command_line(sys.argv)
""",
    "peer/__init__.py": "",
    "peer/models.py": """
from django.db import models
from wagtail import blocks
from wagtail.fields import StreamField
from wagtail.models import Page


class StoryPage(Page):
    dek = models.TextField(blank=True)
    body = StreamField(
        [
            (
                "section",
                blocks.StructBlock(
                    [("heading", blocks.CharBlock()), ("paragraphs", blocks.ListBlock(blocks.RichTextBlock()))]
                ),
            )
        ]
    )
""",
    "peer/templates/peer/story_page.html": """{% load wagtailcore_tags %}<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>{{ page.title }}</title>
<meta name="description" content="{{ page.dek }}"></head>
<body>
<article>
<h1>{{ page.title }}</h1>
<p class="dek">{{ page.dek }}</p>
{% for block in page.body %}<section>
<h2>{{ block.value.heading }}</h2>
{% for p in block.value.paragraphs %}<div class="para">{{ p }}</div>
{% endfor %}</section>
{% endfor %}</article>
</body>
</html>
""",
    "peer/management/__init__.py": "",
    "peer/management/commands/__init__.py": "",
    "peer/management/commands/load_story.py": """
import json

from django.core.management.base import BaseCommand
from wagtail.models import Page
from wagtail.rich_text import RichText

from peer.models import StoryPage


class Command(BaseCommand):
    help = "Load the story (JSON: headline, dek, slug, sections of heading and paragraph HTML) as a page."

    def add_arguments(self, parser):
        parser.add_argument("file")

    def handle(self, *args, file, **options):
        with open(file) as f:
            story = json.load(f)
        home = Page.objects.get(depth=2)
        StoryPage.objects.filter(slug=story["slug"]).delete()
        body = [
            ("section", {"heading": s["heading"], "paragraphs": [RichText(p) for p in s["paragraphs"]]})
            for s in story["sections"]
        ]
        page = StoryPage(title=story["headline"], slug=story["slug"], dek=story["dek"], body=body)
        home.add_child(instance=page)
        page.save_revision().publish()
        self.stdout.write(page.url)
""",
}
