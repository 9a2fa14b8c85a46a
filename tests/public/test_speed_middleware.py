"""A GET of a public page skips sessions, CSRF, authentication and messages (the session
stack, ``newsroom.infra.middleware.SessionStackMiddleware``), keeps every security header,
and the admin and every unsafe request keep the whole stack."""

from urllib.parse import urlsplit

import pytest
from django.test import Client, override_settings

from newsroom.infra.middleware import session_stack_check

pytestmark = pytest.mark.django_db

SECURITY_HEADERS = ("Content-Security-Policy", "X-Frame-Options", "X-Content-Type-Options", "Referrer-Policy")


@pytest.fixture
def url(demo):
    return urlsplit(demo.url).path


@pytest.mark.parametrize("method", ["get", "head"])
def test_a_public_page_skips_the_session_stack_and_keeps_its_security_headers(client, url, method):
    response = getattr(client, method)(url)
    assert response.status_code == 200
    request = response.wsgi_request
    assert not hasattr(request, "session") and not hasattr(request, "user")
    assert not response.cookies
    for header in SECURITY_HEADERS:
        assert response[header], header


def test_a_warm_public_page_keeps_its_security_headers_too(client, url):
    client.get(url)
    response = client.get(url)
    for header in SECURITY_HEADERS:
        assert response[header], header


@override_settings(SECURE_HSTS_SECONDS=31536000, SECURE_SSL_REDIRECT=False)
def test_hsts_is_on_a_public_page_served_over_https(url):
    response = Client().get(url, secure=True)
    assert response["Strict-Transport-Security"].startswith("max-age=31536000")


def test_a_logged_in_editor_reading_a_public_page_gets_the_same_page(client, url, editor):
    anonymous = client.get(url).content
    as_editor = Client()
    as_editor.force_login(editor)
    response = as_editor.get(url)
    assert response.content == anonymous
    assert "sessionid" not in response.cookies  # the session is neither read nor rewritten


def test_the_admin_keeps_sessions_csrf_and_authentication(editor):
    browser = Client(enforce_csrf_checks=True)
    login = browser.get("/admin/login/")
    assert login.status_code == 200 and "csrftoken" in login.cookies
    assert hasattr(login.wsgi_request, "session") and hasattr(login.wsgi_request, "user")

    editor.set_password("a long test password 1")
    editor.save()
    refused = browser.post("/admin/login/", {"username": editor.username, "password": "a long test password 1"})
    assert refused.status_code == 403  # no CSRF token

    token = login.cookies["csrftoken"].value
    done = browser.post(
        "/admin/login/",
        {"username": editor.username, "password": "a long test password 1", "csrfmiddlewaretoken": token},
    )
    assert done.status_code == 302 and "sessionid" in done.cookies
    assert browser.get("/admin/").status_code == 200
    assert browser.get("/admin/").wsgi_request.user == editor


def test_an_unsafe_request_to_a_public_page_is_csrf_checked(url):
    browser = Client(enforce_csrf_checks=True)
    response = browser.post(url, {"x": "1"})
    assert response.status_code == 403  # the CSRF check, before the view's 405
    for header in SECURITY_HEADERS:
        assert response[header], header


def test_the_api_keeps_the_browser_session(client, editor):
    client.force_login(editor)
    response = client.get("/api/v1/stories/")
    assert hasattr(response.wsgi_request, "session")
    assert response.wsgi_request.user == editor


def test_a_keyed_api_read_without_cookies_skips_the_stack_and_is_answered(client, demo, read_key):
    _, plaintext = read_key
    auth = {"HTTP_AUTHORIZATION": f"Bearer {plaintext}"}
    for _ in range(2):  # the full path, then the stored answer
        response = client.get("/api/v1/stories/", **auth)
        assert response.status_code == 200 and response.json()["results"]
        assert not hasattr(response.wsgi_request, "session") and not response.cookies
        for header in SECURITY_HEADERS:
            assert response[header], header
    refused = client.get("/api/v1/stories/", HTTP_AUTHORIZATION="Bearer not-a-key")
    assert refused.status_code == 401


def test_a_keyed_api_request_with_a_cookie_or_unsafe_keeps_the_stack(client, demo, read_key, editor):
    _, plaintext = read_key
    auth = {"HTTP_AUTHORIZATION": f"Bearer {plaintext}"}
    client.force_login(editor)  # a cookie: the stack runs, as for any browser
    response = client.get("/api/v1/stories/", **auth)
    assert response.status_code == 200 and hasattr(response.wsgi_request, "session")
    posted = Client().post("/api/v1/stories/", {}, **auth)
    assert hasattr(posted.wsgi_request, "session")  # every unsafe request keeps the stack


def test_the_session_stack_check_passes_with_the_settings():
    assert session_stack_check() == []


@pytest.mark.parametrize(
    "missing",
    ["django.middleware.csrf.CsrfViewMiddleware", "django.contrib.sessions.middleware.SessionMiddleware"],
)
def test_the_session_stack_check_names_a_missing_middleware(settings, missing):
    settings.SESSION_STACK = [m for m in settings.SESSION_STACK if m != missing]
    errors = session_stack_check()
    assert [e.id for e in errors] == ["newsroom.E002"] and missing in errors[0].msg


def test_the_session_stack_check_wants_sessions_before_authentication(settings):
    stack = list(settings.SESSION_STACK)
    s, a = (
        stack.index(f"django.contrib.{m}")
        for m in ("sessions.middleware.SessionMiddleware", "auth.middleware.AuthenticationMiddleware")
    )
    stack[s], stack[a] = stack[a], stack[s]
    settings.SESSION_STACK = stack
    assert [e.id for e in session_stack_check()] == ["newsroom.E003"]


def test_the_session_stack_check_wants_the_stack_in_middleware(settings):
    settings.MIDDLEWARE = [m for m in settings.MIDDLEWARE if not m.endswith("SessionStackMiddleware")]
    assert [e.id for e in session_stack_check()] == ["newsroom.E001"]
