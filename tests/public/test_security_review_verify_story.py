"""``verify_story`` against hostile sites and files: endless answers, links that point at
files or at this machine, JSON nested past the parser's depth, terminal escapes."""

import io
from urllib.parse import urlsplit

import httpx
import pytest
from django.core.management import CommandError, call_command

from newsroom.infra.signing import messages
from public.management.commands import verify_story
from public.views import copies
from tests.signatures import in_process_site

pytestmark = pytest.mark.django_db


def run(*args) -> str:
    out = io.StringIO()
    call_command("verify_story", *args, stdout=out)
    return out.getvalue()


def endless(request: httpx.Request) -> httpx.Response:
    def body():
        chunk = b"x" * 65536
        while True:
            yield chunk

    return httpx.Response(200, headers={"Content-Type": "application/json"}, content=body())


@pytest.fixture
def hostile_site(monkeypatch):
    calls = []

    def handler(request):
        calls.append(str(request.url))
        return endless(request)

    monkeypatch.setattr(verify_story, "http_client", lambda: httpx.Client(transport=httpx.MockTransport(handler)))
    monkeypatch.setattr(verify_story, "MAX_FILE_BYTES", 1024 * 1024)
    return calls


def test_an_endless_answer_is_cut_at_the_limit(hostile_site):
    with pytest.raises(CommandError, match="larger than 1048576 bytes"):
        run("https://hostile.example/stories/2026-10-16/x/index.json")


def test_an_endless_key_directory_is_cut_at_the_limit(hostile_site, tmp_path):
    head = (
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nSignature-Input: sig1=();created=1\r\n"
        "Signature: sig1=:AAAA:\r\nLink: <https://hostile.example/stories/2026-10-16/x/>; rel=canonical\r\n\r\n{}"
    )
    (tmp_path / "copy.http").write_text(head)
    with pytest.raises(CommandError, match=r"could not read the published keys.*TooLarge"):
        run(str(tmp_path / "copy.http"))


def saved_with_link(tmp_path, link: str) -> str:
    head = (
        "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nSignature-Input: sig1=();created=1\r\n"
        f"Signature: sig1=:AAAA:\r\nLink: <{link}>; rel=canonical\r\n\r\n{{}}"
    )
    (tmp_path / "copy.http").write_text(head)
    return str(tmp_path / "copy.http")


@pytest.mark.parametrize(
    "link",
    [
        "http://127.0.0.1:8000/stories/2026-10-16/x/",
        "http://localhost/stories/2026-10-16/x/",
        "http://169.254.169.254/latest/meta-data/",
        "http://10.0.0.5/stories/2026-10-16/x/",
        "http://[::1]/stories/2026-10-16/x/",
        "http://db.internal/stories/2026-10-16/x/",
    ],
)
def test_a_saved_copy_cannot_send_the_command_to_this_machine(tmp_path, link, hostile_site):
    with pytest.raises(CommandError, match="local address"):
        run(saved_with_link(tmp_path, link))
    assert hostile_site == []  # nothing fetched


@pytest.mark.parametrize("link", ["file:///etc/passwd", "data:,x", "/stories/2026-10-16/x/", "ftp://h/x/"])
def test_a_saved_copy_linking_elsewhere_than_http_names_no_url(tmp_path, link, hostile_site):
    with pytest.raises(CommandError, match="cannot tell which URL"):
        run(saved_with_link(tmp_path, link))
    assert hostile_site == []


def test_an_address_typed_on_the_command_line_is_fetched_as_given(monkeypatch, settings, demo):
    """The person running the command may check a site on this machine (a staging copy)."""
    settings.SITE_URL = "http://127.0.0.1"
    copies.clear()
    messages._local.clear()
    monkeypatch.setattr(
        verify_story, "http_client", lambda: httpx.Client(transport=httpx.WSGITransport(app=in_process_site))
    )
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "127.0.0.1"]
    out = run("http://127.0.0.1" + urlsplit(demo.url).path + "index.json")
    assert "Signature valid" in out


def test_a_key_file_nested_past_the_parser_is_named(tmp_path, hostile_site):
    (tmp_path / "keys.json").write_text("[" * 200_000 + "]" * 200_000)
    path = saved_with_link(tmp_path, "https://example.org/stories/2026-10-16/x/")
    with pytest.raises(CommandError, match="cannot read the key set"):
        run(path, "--keys", str(tmp_path / "keys.json"))
