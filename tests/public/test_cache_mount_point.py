"""The shared page caches and the mount point.

A server may mount the site under a path (``SCRIPT_NAME``, as gunicorn or nginx give it):
every link a page makes ({% url %}, the canonical ``Link`` header, the JSON
``canonical_url``) then starts with that mount point. The caches every worker shares (a
story URL's entry, the story representation cache, the list pages' bodies) and the ETags
keep each mount point's answers apart, and tell a path within the site from the same path
split differently between mount point and site."""

import io
from urllib.parse import urlsplit

import pytest
from django.core.cache import cache
from django.core.handlers.wsgi import WSGIHandler
from django.core.signals import request_finished, request_started
from django.db import close_old_connections
from django.urls import set_script_prefix

from public.views import copies

pytestmark = pytest.mark.django_db

SUFFIXES = ["", "index.json", "index.md", "index.txt", "checks.json"]


def wsgi_get(path_info: str, script_name: str = "", **extra):
    """A GET through Django's WSGI handler, which sets the script prefix from ``SCRIPT_NAME``
    as a server mounting the site does (the test client does not). As in the test client,
    the database connection (and the test's transaction on it) stays open."""
    environ = {
        "REQUEST_METHOD": "GET",
        "PATH_INFO": path_info,
        "SCRIPT_NAME": script_name,
        "QUERY_STRING": "",
        "SERVER_NAME": "testserver",
        "SERVER_PORT": "80",
        "HTTP_HOST": "testserver",
        "wsgi.url_scheme": "http",
        "wsgi.input": io.BytesIO(b""),
        "wsgi.errors": io.StringIO(),
        "wsgi.version": (1, 0),
        "wsgi.multithread": False,
        "wsgi.multiprocess": True,
        "wsgi.run_once": False,
        **extra,
    }
    status = {}

    def start_response(line, headers, exc_info=None):
        status["code"], status["headers"] = int(line.split()[0]), dict(headers)

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        response = WSGIHandler()(environ, start_response)
        try:
            body = b"".join(response)
        finally:
            response.close()
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
        set_script_prefix("/")
    return status["code"], status["headers"], body


@pytest.fixture
def url(demo):
    return urlsplit(demo.url).path


@pytest.fixture
def without_url_entries(monkeypatch):
    """Story URL entries always missed, so that the story representation cache answers."""
    real = cache.get_many

    def get_many(keys, *args, **kwargs):
        return real([k for k in keys if not k.startswith("page:story-url:")], *args, **kwargs)

    monkeypatch.setattr(cache, "get_many", get_many)


def assert_plain(code, headers, body):
    assert code == 200
    assert b"/x/stories/" not in body, "the site at the root got the links of mount point /x"
    assert "/x/" not in headers["Link"]


def assert_mounted(code, headers, body):
    assert code == 200
    if headers["Content-Type"].split(";")[0] != "text/plain":  # the plain text has no links
        assert b"/x/stories/" in body
    assert "/x/stories/" in headers["Link"]


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_a_rendering_for_a_mount_point_is_not_served_at_the_root(url, suffix):
    assert_mounted(*wsgi_get(url + suffix, script_name="/x"))
    assert_plain(*wsgi_get(url + suffix))  # another worker copy: the shared caches answer


@pytest.mark.parametrize("suffix", SUFFIXES)
def test_a_rendering_at_the_root_is_not_served_to_a_mount_point(url, suffix):
    assert_plain(*wsgi_get(url + suffix))
    assert_mounted(*wsgi_get(url + suffix, script_name="/x"))


@pytest.mark.parametrize("suffix", ["", "index.json", "index.md", "checks.json"])  # the ones with links
def test_each_mount_point_has_its_own_stored_representation(url, suffix, without_url_entries):
    assert_mounted(*wsgi_get(url + suffix, script_name="/x"))
    assert_plain(*wsgi_get(url + suffix))


@pytest.mark.parametrize("suffix", ["", "index.json"])
def test_warm_reads_keep_each_mount_points_answer_and_etag(url, suffix):
    mounted, plain = wsgi_get(url + suffix, script_name="/x"), wsgi_get(url + suffix)
    assert mounted[1]["ETag"] != plain[1]["ETag"]
    for _ in range(2):
        copies.clear()  # the shared entries answer
        again_mounted, again_plain = wsgi_get(url + suffix, script_name="/x"), wsgi_get(url + suffix)
        assert again_mounted[2] == mounted[2] and again_mounted[1]["ETag"] == mounted[1]["ETag"]
        assert again_plain[2] == plain[2] and again_plain[1]["ETag"] == plain[1]["ETag"]
    # A validator from one mount point does not validate the other's page.
    code, _, _ = wsgi_get(url + suffix, HTTP_IF_NONE_MATCH=mounted[1]["ETag"])
    assert code == 200
    code, _, _ = wsgi_get(url + suffix, script_name="/x", HTTP_IF_NONE_MATCH=mounted[1]["ETag"])
    assert code == 304


def test_a_list_page_for_a_mount_point_is_not_served_at_the_root(demo, url):
    code, headers, mounted = wsgi_get("/", script_name="/x")
    assert code == 200 and url.encode() in mounted and b"/x" + url.encode() in mounted
    code, plain_headers, plain = wsgi_get("/")
    assert code == 200 and url.encode() in plain
    assert b"/x/stories/" not in plain, "the home page at the root got the links of mount point /x"
    assert plain_headers["ETag"] != headers["ETag"]


def test_a_path_split_differently_by_its_mount_point_is_another_page(demo):
    """``/corrections/`` asked as mount point ``/corrections`` and path ``/`` is the home
    page; its answer is neither kept as, nor served for, the corrections page."""
    code, _, split = wsgi_get("/", script_name="/corrections")
    assert code == 200 and b"<title>Corrections" not in split
    code, _, corrections = wsgi_get("/corrections/")
    assert code == 200
    assert b"<title>Corrections" in corrections, "the corrections page answered with the home page"


def test_the_corrections_page_is_not_served_for_a_home_page_under_a_mount_point(demo):
    code, _, corrections = wsgi_get("/corrections/")
    assert code == 200 and b"<title>Corrections" in corrections
    code, _, split = wsgi_get("/", script_name="/corrections")
    assert code == 200
    assert b"<title>Corrections" not in split, "the home page answered with the corrections page"
