"""``manage.py verify_story``: a rendering fetched or saved with its headers is checked
against the published keys; it says which version it is and whether it was corrected since,
and fails (non-zero) naming the problem."""

import io
import json
from urllib.parse import urlsplit

import httpx
import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.core.management import CommandError, call_command

from newsroom.infra.signing import messages
from newsroom.infra.signing.keys import PublicKey
from public.management.commands import verify_story
from public.views import copies
from stories import actions
from tests.signatures import in_process_site, seed_of, x_of

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def the_site_over_http(monkeypatch, settings):
    """The command's HTTP client talks to this site, in process, at http://testserver."""
    settings.SITE_URL = "http://testserver"
    copies.clear()
    messages._local.clear()
    monkeypatch.setattr(
        verify_story, "http_client", lambda: httpx.Client(transport=httpx.WSGITransport(app=in_process_site))
    )


@pytest.fixture
def url(demo):
    return "http://testserver" + urlsplit(demo.url).path


def run(*args) -> str:
    out = io.StringIO()
    call_command("verify_story", *args, stdout=out)
    return out.getvalue()


def saved(client, url, tmp_path, name="copy.http", edit=None) -> str:
    """The rendering as ``curl -i`` saves it."""
    response = client.get(urlsplit(url).path)
    headers = dict(response.items())
    body = response.content
    if edit:
        headers, body = edit(headers, body)
    head = "HTTP/1.1 200 OK\r\n" + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n"
    (tmp_path / name).write_bytes(head.encode("latin-1") + body)
    return str(tmp_path / name)


@pytest.mark.parametrize("rendering", ["", "index.json", "index.md", "index.txt"])
def test_a_fetched_rendering_verifies_and_is_the_current_version(url, rendering):
    out = run(url + rendering)
    assert f"Signature valid: {url}{rendering}" in out
    assert "signed with the current key" in out
    assert "story 81:" in out
    assert "this is the current version" in out
    assert "corrected since: no" in out


def test_a_saved_copy_verifies_with_the_local_keys(client, url, tmp_path):
    path = saved(client, url + "index.md", tmp_path)
    out = run(path, "--keys", "local")
    assert f"Signature valid: {url}index.md" in out  # the URL read from its canonical link


def test_a_copy_made_before_a_correction_says_so(client, url, tmp_path, demo, monkeypatch):
    monkeypatch.setattr(messages, "now", lambda: 1_790_000_000)  # signed in 2026-09
    path = saved(client, url + "index.md", tmp_path)
    actions.record_correction(story=demo, text="The date was wrong.", kind="correction")
    out = run(path)
    assert "this is an earlier version" in out
    assert "corrected since: yes, 1 time(s)" in out
    assert "correction: The date was wrong." in out


def test_an_api_answer_saved_with_its_url(read_key, url, demo, tmp_path):
    from tests.syndication.helpers import client_for

    response = client_for(read_key[1]).get(f"/api/v1/stories/{demo.id}/ninjs")
    head = "HTTP/2 200\r\n" + "".join(f"{k.lower()}: {v}\r\n" for k, v in response.items()) + "\r\n"
    (tmp_path / "ninjs.http").write_bytes(head.encode() + response.content)
    out = run(str(tmp_path / "ninjs.http"), "--url", f"http://testserver/api/v1/stories/{demo.id}/ninjs")
    assert "Signature valid" in out
    assert f"version {demo.version} (ninjs)" in out


def test_a_copy_signed_with_a_retired_key_still_verifies(client, url, tmp_path, settings):
    old, new = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    settings.SIGNING_KEY = seed_of(old)
    path = saved(client, url + "index.json", tmp_path)
    settings.SIGNING_KEY, settings.SIGNING_RETIRED_KEYS = seed_of(new), [x_of(old)]
    assert "signed with a retired key, still published" in run(path)


def test_a_tampered_body_fails(client, url, tmp_path):
    path = saved(client, url + "index.json", tmp_path, edit=lambda h, b: (h, b.replace(b"81", b"82", 1)))
    with pytest.raises(CommandError, match="NOT VERIFIED: tampered body"):
        run(path, "--keys", "local")


def test_a_forged_signature_fails(client, url, tmp_path):
    def forge(headers, body):
        # A consistent digest of a changed body, under the original signature.
        body = body.replace(b"81", b"82", 1)
        return dict(headers, **{"Content-Digest": messages.content_digest(body)}), body

    path = saved(client, url + "index.json", tmp_path, edit=forge)
    with pytest.raises(CommandError, match="NOT VERIFIED: bad signature"):
        run(path, "--keys", "local")


def test_an_unknown_key_fails(client, url, tmp_path):
    path = saved(client, url + "index.json", tmp_path)
    stranger = tmp_path / "keys.json"
    stranger.write_text(json.dumps({"keys": [PublicKey.of(Ed25519PrivateKey.generate().public_key()).jwk()]}))
    with pytest.raises(CommandError, match="NOT VERIFIED: unknown key"):
        run(path, "--keys", str(stranger))


def test_a_missing_signature_fails(client, url, tmp_path):
    def strip(headers, body):
        return {k: v for k, v in headers.items() if not k.startswith("Signature")}, body

    path = saved(client, url + "index.json", tmp_path, edit=strip)
    with pytest.raises(CommandError, match="NOT VERIFIED: missing signature"):
        run(path, "--keys", "local")


def test_a_copy_checked_against_another_url_fails(client, url, tmp_path):
    path = saved(client, url + "index.json", tmp_path)
    with pytest.raises(CommandError, match="bad signature"):
        run(path, "--keys", "local", "--url", url + "index.txt")


def test_bad_input_is_named(tmp_path, url):
    (tmp_path / "plain.json").write_text("{}")
    with pytest.raises(CommandError, match="no HTTP status line"):
        run(str(tmp_path / "plain.json"))
    with pytest.raises(CommandError, match="cannot read"):
        run(str(tmp_path / "missing.http"))
    with pytest.raises(CommandError, match="HTTP 404"):
        run("http://testserver/stories/2026-10-16/no-such-story/index.json")


def test_hostile_text_from_the_site_is_printed_inert(url, demo, monkeypatch):
    from public.management.commands.verify_story import plain

    assert plain("A\x1b[2J headline\nwith a line break") == "A\ufffd[2J headline\ufffdwith a line break"
    actions.record_correction(story=demo, text="Fixed.\x1b]0;owned\x07", kind="correction")
    monkeypatch.setattr(messages, "now", lambda: 1_790_000_000)
    messages._local.clear()
    out = run(url + "index.json")
    assert "\x1b" not in out and "\x07" not in out
    assert "correction: Fixed.\ufffd]0;owned\ufffd" in out


@pytest.mark.slow
def test_a_failure_exits_non_zero_with_the_reason(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    (tmp_path / "copy.http").write_bytes(b"HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n\r\nhello")
    result = subprocess.run(
        [sys.executable, "manage.py", "verify_story", str(tmp_path / "copy.http"), "--url", "http://x.test/a"],
        cwd=Path(__file__).resolve().parents[2],
        env={**os.environ, "DEBUG": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1
    assert "NOT VERIFIED: missing signature" in result.stderr
