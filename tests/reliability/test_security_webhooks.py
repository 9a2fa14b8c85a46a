"""Webhooks tried by an attacker who registers the URL and controls its DNS.

No test here sends anything beyond 127.0.0.1: names resolve through a fake resolver, and a
guard makes any connection to another address fail the test (the refusals must come before
connecting)."""

import datetime as dt
import json
import socket
import ssl
import threading
import time

import pytest
from django.core.exceptions import ValidationError
from django.db import connection
from django.utils import timezone

from stories import actions
from syndication import webhook_urls, webhooks
from syndication.models import WebhookDelivery, WebhookEndpoint
from tests.factories import UserFactory

ALL_EVENTS = ["story.published", "story.corrected", "story.unpublished"]
HOST = "hooks.partner.example"


@pytest.fixture(autouse=True)
def _rules(settings):
    """Production rules: https only, nothing private allowed."""
    settings.WEBHOOK_TIMEOUT = 1.0
    settings.WEBHOOK_ALLOW_HTTP = False
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = []


@pytest.fixture(autouse=True)
def connects(monkeypatch):
    """Every address a socket connects to; anything but loopback fails the test at once."""
    seen = []
    real = socket.socket.connect

    def guarded(sock, address):
        seen.append(address[0])
        if address[0] not in ("127.0.0.1", "::1"):
            raise AssertionError(f"a test tried to connect to {address[0]}")
        return real(sock, address)

    monkeypatch.setattr(socket.socket, "connect", guarded)
    return seen


class FakeDNS:
    """Answers for ``HOST`` from a script (one list per look-up, the last repeated)."""

    def __init__(self, *answers):
        self.answers, self.calls = list(answers), []

    def __call__(self, host, port):
        self.calls.append(host)
        answer = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        return [
            (socket.AF_INET6 if ":" in a else socket.AF_INET, (a, port, 0, 0) if ":" in a else (a, port))
            for a in answer
        ]


@pytest.fixture
def dns(monkeypatch):
    def install(*answers):
        fake = FakeDNS(*answers)
        monkeypatch.setattr(webhook_urls, "resolve", fake)
        return fake

    return install


def queue_one(partner, make_story, url) -> WebhookDelivery:
    WebhookEndpoint.objects.create(partner=partner, url=url, events=ALL_EVENTS)
    actions.unpublish_story(story=make_story())
    return WebhookDelivery.objects.get()


def last_attempt(delivery):
    delivery.refresh_from_db()
    return delivery.attempt_log.last()


# --------------------------------------------------------------------------- registration

REFUSED_AT_REGISTRATION = [
    "http://hooks.partner.example/hook",
    "ftp://hooks.partner.example/hook",
    "https://127.0.0.1/hook",
    "https://127.1/hook",
    "https://localhost/hook",
    "https://api.localhost/hook",
    "https://[::1]/hook",
    "https://[::]/hook",
    "https://0.0.0.0/hook",
    "https://10.0.0.1/hook",
    "https://172.16.5.4/hook",
    "https://192.168.1.1/hook",
    "https://100.64.0.1/hook",
    "https://169.254.169.254/latest/meta-data/",
    "https://[fe80::1]/hook",
    "https://[fc00::1]/hook",
    "https://[::ffff:127.0.0.1]/hook",
    "https://[::ffff:169.254.169.254]/hook",
    "https://224.0.0.1/hook",
    "https://240.0.0.1/hook",
    "https://metadata.google.internal/computeMetadata/v1/",
    "https://metadata/hook",
    "https://printer.local/hook",
    "https://10.0.0.1.nip.io/hook",
    "https://app.127.0.0.1.sslip.io/hook",
    "https://user:secret@hooks.partner.example/hook",
]


@pytest.mark.django_db
@pytest.mark.parametrize("url", REFUSED_AT_REGISTRATION)
def test_registration_refuses_internal_and_non_https_urls(partner, url):
    endpoint = WebhookEndpoint(partner=partner, url=url, events=ALL_EVENTS)
    with pytest.raises(ValidationError) as refused:
        endpoint.full_clean()
    assert "url" in refused.value.message_dict


@pytest.mark.parametrize(
    "url",
    ["https://127.0.0.1/hook", "https://0x7f000001/hook", "https://2130706433/hook", "https://[::ffff:10.0.0.1]/"],
)
def test_the_url_rules_see_every_spelling_of_an_address(url):
    assert webhook_urls.registration_problem(url) is not None


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url", ["https://hooks.partner.example/hook?x=1", "https://93.184.216.34/hook", "https://[2606:4700::1111]/hook"]
)
def test_registration_accepts_public_https_urls(partner, url):
    WebhookEndpoint(partner=partner, url=url, events=ALL_EVENTS).full_clean()


@pytest.mark.django_db
def test_http_and_private_receivers_only_when_allowed(partner, settings):
    def problem(url):
        return webhook_urls.registration_problem(url)

    assert problem("http://hooks.partner.example/hook") == "webhook URLs must use https"
    settings.WEBHOOK_ALLOW_HTTP = True
    assert problem("http://hooks.partner.example/hook") is None
    assert "private" in problem("http://10.1.2.3/hook")
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["10.1.2.0/24", "receiver.internal"]
    assert problem("http://10.1.2.3/hook") is None
    assert problem("https://receiver.internal/hook") is None
    assert problem("https://10.1.3.1/hook") is not None
    assert problem("https://other.internal/hook") is not None


@pytest.mark.django_db
def test_the_admin_refuses_an_internal_url_with_a_clear_error(client, partner):
    client.force_login(UserFactory(username="root", is_staff=True, is_superuser=True))
    form = {"partner": partner.pk, "secret": "whsec_x", "events": json.dumps(ALL_EVENTS), "active": "on"}
    response = client.post(
        "/admin/syndication/webhookendpoint/add/", {**form, "url": "https://169.254.169.254/latest/meta-data/"}
    )
    assert response.status_code == 200
    assert (
        "Refused webhook URL: the URL points at a private, loopback or reserved address." in response.content.decode()
    )
    response = client.post("/admin/syndication/webhookendpoint/add/", {**form, "url": "http://hooks.partner.example/"})
    assert "Refused webhook URL: webhook URLs must use https." in response.content.decode()
    assert not WebhookEndpoint.objects.exists()
    response = client.post("/admin/syndication/webhookendpoint/add/", {**form, "url": "https://hooks.partner.example/"})
    assert response.status_code == 302 and WebhookEndpoint.objects.get().url == "https://hooks.partner.example/"


# --------------------------------------------------------------------------- delivery: resolve, vet, connect


@pytest.mark.django_db
@pytest.mark.parametrize(
    "addresses",
    [
        ["10.0.0.1"],
        ["127.0.0.1"],
        ["169.254.169.254"],
        ["93.184.216.34", "192.168.0.10"],  # one bad answer is enough
        ["::1"],
        ["fe80::1"],
        ["::ffff:169.254.169.254"],  # IPv4-mapped
        ["2002:7f00:1::"],  # 6to4 around 127.0.0.1
        ["64:ff9b::a9fe:a9fe"],  # NAT64 around 169.254.169.254
        ["0.0.0.0"],
        ["ff02::1"],
    ],
)
def test_delivery_refuses_a_name_that_resolves_inside_the_network(partner, make_story, dns, connects, addresses):
    fake = dns(addresses)
    delivery = queue_one(partner, make_story, f"https://{HOST}/hook")
    assert webhooks.deliver_due() == 1
    attempt = last_attempt(delivery)
    assert (attempt.status_code, attempt.error) == (None, "refused: private address")
    assert fake.calls == [HOST]
    assert connects == [], "refused before connecting"
    assert delivery.status == "pending", "retried later: the partner may fix its DNS"


@pytest.mark.django_db
@pytest.mark.parametrize(
    "url, error",
    [
        ("https://169.254.169.254/latest/meta-data/", "refused: private address"),
        ("https://[::ffff:10.0.0.1]/hook", "refused: private address"),
        ("http://hooks.partner.example/hook", "refused: not https"),
        ("ftp://hooks.partner.example/hook", "refused: bad URL"),
    ],
)
def test_endpoints_saved_before_the_rules_are_refused_at_delivery(partner, make_story, dns, connects, url, error):
    fake = dns(["93.184.216.34"])
    delivery = queue_one(partner, make_story, url)  # objects.create: no validation, as an old row
    webhooks.deliver_due()
    assert last_attempt(delivery).error == error
    assert fake.calls == [] and connects == []


@pytest.mark.django_db
def test_delivery_connects_to_the_vetted_address_keeping_the_host_header(
    partner, make_story, receiver, dns, connects, settings
):
    """DNS rebinding: the name resolves to an allowed address when checked and to a private
    one afterwards; the sender never asks again, it connects to what it checked."""
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1"]  # the test receiver, allowed explicitly
    port = receiver.server.server_address[1]
    fake = dns(["127.0.0.1"], ["10.0.0.1"])
    delivery = queue_one(partner, make_story, f"http://{HOST}:{port}/hook?k=1")
    webhooks.deliver_due()
    assert last_attempt(delivery).status_code == 200
    assert fake.calls == [HOST]
    assert connects == ["127.0.0.1"]
    [request] = receiver.requests
    assert request["headers"]["Host"] == f"{HOST}:{port}"
    assert request["path"] == "/hook?k=1"


@pytest.mark.django_db
def test_https_sends_the_urls_host_as_the_tls_server_name(partner, make_story, receiver, dns, settings, monkeypatch):
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1"]
    port = receiver.server.server_address[1]
    dns(["127.0.0.1"])
    names = []

    class Context:
        def wrap_socket(self, sock, server_hostname=None):
            names.append(server_hostname)
            raise ssl.SSLCertVerificationError("certificate verify failed: unable to get local issuer")

    monkeypatch.setattr(webhooks, "_tls_context", Context)
    delivery = queue_one(partner, make_story, f"https://{HOST}:{port}/hook")
    webhooks.deliver_due()
    assert names == [HOST]
    assert last_attempt(delivery).error == "TLS failed"


@pytest.mark.django_db
def test_a_private_receiver_allowed_by_name(partner, make_story, receiver, dns, settings):
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["receiver.internal"]
    dns(["127.0.0.1"])
    delivery = queue_one(partner, make_story, f"http://receiver.internal:{receiver.server.server_address[1]}/hook")
    webhooks.deliver_due()
    assert last_attempt(delivery).status_code == 200


# --------------------------------------------------------------------------- what the attempt log says


@pytest.mark.django_db
def test_the_attempt_log_does_not_tell_ports_apart(partner, make_story, receiver, settings):
    """Closed port, error status, redirect: a few fixed words, never the socket's own text."""
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1"]
    closed = queue_one(partner, make_story, "http://127.0.0.1:9/closed")
    webhooks.deliver_due()
    assert (last_attempt(closed).status_code, last_attempt(closed).error) == (None, "connection failed")
    WebhookDelivery.objects.all().delete()
    WebhookEndpoint.objects.all().delete()
    receiver.replies = [500]
    failing = queue_one(partner, make_story, receiver.url)
    webhooks.deliver_due()
    assert (last_attempt(failing).status_code, last_attempt(failing).error) == (500, "HTTP 500")


class DrippingReceiver:
    """Accepts, reads the request, then sends its status line a byte every ``every`` seconds
    (for at most ``limit`` seconds, so a sender without a deadline does not hang the suite)."""

    def __init__(self, every=0.2, limit=8.0):
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/hook"
        self.every, self.limit = every, limit
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self):
        conn, _ = self.sock.accept()
        with conn:
            conn.recv(65536)
            started = time.monotonic()
            try:
                for byte in b"HTTP/1.1 200 OK\r\nX-Slow: " + b"x" * 1000:
                    if time.monotonic() - started > self.limit:
                        break
                    conn.sendall(bytes([byte]))
                    time.sleep(self.every)
            except OSError:
                pass  # the sender hung up: what we want

    def close(self):
        self.sock.close()


@pytest.mark.django_db
def test_a_dripping_receiver_is_cut_off_at_the_deadline(partner, make_story, settings):
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1"]
    settings.WEBHOOK_TIMEOUT = 1.0
    drip = DrippingReceiver(every=0.2)  # each read well inside the timeout: only a deadline stops it
    try:
        delivery = queue_one(partner, make_story, drip.url)
        started = time.monotonic()
        webhooks.deliver_due()
        took = time.monotonic() - started
    finally:
        drip.close()
    attempt = last_attempt(delivery)
    assert (attempt.status_code, attempt.error) == (None, "timed out")
    # Cut off at the deadline, not when the receiver stops dripping (``drip.limit``, 8 s).
    assert took < drip.limit, f"the attempt took {took:.1f} s with a 1 s deadline"
    assert 900 <= attempt.duration_ms < drip.limit * 1000


# --------------------------------------------------------------------------- no transaction held during a request


@pytest.mark.django_db(transaction=True)
def test_no_transaction_is_open_while_a_request_is_in_flight(partner, make_story, receiver, settings, monkeypatch):
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1"]
    seen = []
    real = webhooks.post

    def watching(delivery):
        row = WebhookDelivery.objects.get(pk=delivery.pk)
        seen.append((connection.in_atomic_block, row.status, row.leased_until is not None))
        # Another worker looking now finds nothing due: the delivery is in flight.
        seen.append(WebhookDelivery.objects.due(timezone.now()).count())
        return real(delivery)

    monkeypatch.setattr(webhooks, "post", watching)
    delivery = queue_one(partner, make_story, receiver.url)
    assert webhooks.deliver_due() == 1
    assert seen == [(False, "pending", True), 0]
    delivery.refresh_from_db()
    assert (delivery.status, delivery.leased_until) == ("delivered", None)


@pytest.mark.django_db
def test_a_crashed_workers_delivery_is_due_again_after_the_lease(partner, make_story, receiver, settings):
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1"]
    delivery = queue_one(partner, make_story, receiver.url)
    now = timezone.now()
    assert webhooks.claim(now).pk == delivery.pk  # ...and the worker dies before sending
    assert webhooks.deliver_due(now=now + dt.timedelta(seconds=30)) == 0, "still in flight"
    assert webhooks.deliver_due(now=now + webhooks.lease() + dt.timedelta(seconds=1)) == 1
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, len(receiver.requests)) == ("delivered", 1, 1)


@pytest.mark.django_db
def test_a_worker_that_lost_its_lease_does_not_overwrite_the_new_claim(partner, make_story, receiver, settings):
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1"]
    delivery = queue_one(partner, make_story, receiver.url)
    now = timezone.now()
    slow = webhooks.claim(now)
    fresh = webhooks.claim(now + webhooks.lease() + dt.timedelta(seconds=1))
    assert fresh.pk == slow.pk
    assert webhooks.record(slow, webhooks.Outcome(None, "timed out", 5000), now) is False
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.leased_until) == ("pending", 0, fresh.leased_until)
    assert webhooks.record(fresh, webhooks.Outcome(200, "", 5), now) is True
    delivery.refresh_from_db()
    assert (delivery.status, delivery.attempts, delivery.attempt_log.count()) == ("delivered", 1, 2)
