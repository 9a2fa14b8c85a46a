"""Signed webhooks through an outbox.

``enqueue`` writes one ``WebhookDelivery`` per subscribed endpoint inside the transaction of
the story action, so an event is queued exactly when it happens. ``deliver_due`` (run by
``manage.py deliver_webhooks``) sends them: POST, JSON body, signed

    X-Signature: t=<unix time>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>

and, for anyone holding the site's published keys, with ``Content-Digest``,
``Signature-Input`` and ``Signature`` (RFC 9421, Ed25519, over the method, target URI,
content type and digest; ``newsroom.infra.signing``),
retried with exponential backoff for ``WEBHOOK_RETRY_HOURS``; a 410 stops deliveries to
that endpoint for good.

Only to public addresses (``syndication.webhook_urls``: checked at registration and again
after resolving the name at every attempt, connecting to the address checked), within a
wall-clock deadline per attempt, and with no database transaction open while a request is
in flight.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import http.client
import json
import socket
import ssl
import threading
import time
from dataclasses import dataclass

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from newsroom.infra import signing
from stories import signals
from stories.desk import format_time

from . import webhook_urls
from .models import WebhookAttempt, WebhookDelivery, WebhookEndpoint

USER_AGENT = "HangingContext-Webhooks/1"


def _setting(name: str, default):
    return getattr(settings, name, default)


# --------------------------------------------------------------------------- queueing


def story_summary(story) -> dict:
    return {
        "id": story.id,
        "url": story.url,
        "api_url": settings.SITE_URL + reverse("api-story", args=[story.id]),
        "version": story.version,
        "status": story.status,
        "newsroom": story.newsroom.slug,
        "edition": story.edition_id,
        "headline": story.headline,
        "published_at": format_time(story.published_at),
        "updated_at": format_time(story.updated_at),
    }


def enqueue(event: str, story, *, extra: dict | None = None) -> list[WebhookDelivery]:
    """Queue ``event`` about ``story`` for every active endpoint subscribed to it. Call inside
    the transaction of the event (the story signals are sent there)."""
    endpoints = [e for e in _active_endpoints() if e.wants(event)]
    if not endpoints:
        return []
    now = timezone.now()
    summary = story_summary(story)
    deliveries = []
    for endpoint in endpoints:
        delivery = WebhookDelivery(
            endpoint=endpoint, event=event, story_id=story.id, created_at=now, next_attempt_at=now
        )
        body = {
            "event": event,
            "delivery_id": str(delivery.delivery_id),
            "created_at": format_time(now),
            "story": summary,
        }
        body.update(extra or {})
        delivery.payload = json.dumps(body, ensure_ascii=False, separators=(",", ":"))
        deliveries.append(delivery)
    return WebhookDelivery.objects.bulk_create(deliveries)


def _active_endpoints() -> list[WebhookEndpoint]:
    """The active endpoints, read once for the stories of an action's batch
    (``stories.signals.batch_memo``)."""
    memo = signals.batch_memo()
    if memo is not None and "webhook endpoints" in memo:
        return memo["webhook endpoints"]
    endpoints = list(WebhookEndpoint.objects.filter(active=True, partner__active=True))
    if memo is not None:
        memo["webhook endpoints"] = endpoints
    return endpoints


# --------------------------------------------------------------------------- signing


def sign(secret: str, timestamp: int, body: bytes) -> str:
    """The ``X-Signature`` value for ``body`` sent at ``timestamp``."""
    mac = hmac.new(secret.encode(), f"{timestamp}.".encode() + body, hashlib.sha256).hexdigest()
    return f"t={timestamp},v1={mac}"


def verify(secret: str, header: str, body: bytes, *, tolerance: int = 300, now: float | None = None) -> bool:
    """What a partner does with a delivery (docs/api.md has it stand-alone): recompute the
    HMAC and compare in constant time; refuse a timestamp more than ``tolerance`` s off."""
    try:
        fields = dict(part.split("=", 1) for part in header.split(","))
        timestamp = int(fields["t"])
    except (KeyError, ValueError):
        return False
    if abs((now or time.time()) - timestamp) > tolerance:
        return False
    expected = sign(secret, timestamp, body).split("v1=", 1)[1]
    return hmac.compare_digest(expected, fields.get("v1", ""))


# --------------------------------------------------------------------------- sending


@dataclass
class Outcome:
    status_code: int | None
    error: str  # a few fixed words ("timed out", "HTTP 500"): never the socket's error text
    duration_ms: int


TIMED_OUT = "timed out"
CONNECTION_FAILED = "connection failed"
TLS_FAILED = "TLS failed"


def _tls_context() -> ssl.SSLContext:
    return ssl.create_default_context()


class _Attempt(http.client.HTTPConnection):
    """One POST to one vetted address, whatever the URL's host resolves to by now: the Host
    header and the TLS server name (SNI, and the name the certificate must carry) are the
    URL's host. Redirects are answers like any other (http.client follows none).

    The whole attempt (connect, TLS, send, the status line and headers) has a wall-clock
    deadline: each socket operation may take at most the time left, and a watchdog shuts the
    socket down when the deadline passes, so a receiver sending a byte at a time is cut off
    too. The body of the answer is not read."""

    def __init__(self, target: webhook_urls.Target, address: tuple[int, tuple], deadline: float):
        super().__init__(target.host, target.port, timeout=max(deadline - time.monotonic(), 0.001))
        self.target, self.address, self.deadline = target, address, deadline
        self.raw: socket.socket | None = None
        self.cut_off = False

    def left(self) -> float:
        left = self.deadline - time.monotonic()
        if left <= 0 or self.cut_off:
            raise TimeoutError
        return left

    def connect(self):
        family, sockaddr = self.address
        self.raw = socket.socket(family, socket.SOCK_STREAM)
        try:
            self.raw.settimeout(self.left())
            self.raw.connect(sockaddr)
            sock = self.raw
            if self.target.scheme == "https":
                sock.settimeout(self.left())
                sock = _tls_context().wrap_socket(sock, server_hostname=self.target.host)
            sock.settimeout(self.left())
        except BaseException:
            self.raw.close()
            raise
        self.sock = sock

    def cut(self):
        self.cut_off = True
        if self.raw is not None:
            try:
                self.raw.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass


def _send(target, address, body: bytes, headers: dict, deadline: float) -> int:
    """POST and return the status code; raises on any failure (``_Attempt``)."""
    attempt = _Attempt(target, address, deadline)
    watchdog = threading.Timer(max(deadline - time.monotonic(), 0), attempt.cut)
    watchdog.daemon = True
    watchdog.start()
    try:
        attempt.connect()
        attempt.request("POST", target.path, body=body, headers=headers)
        attempt.sock.settimeout(attempt.left())
        response = attempt.getresponse()
        attempt.left()  # a status line that came in only as the watchdog fired is still too late
        return response.status
    except Exception:
        if attempt.cut_off or time.monotonic() >= deadline:
            raise TimeoutError from None
        raise
    finally:
        watchdog.cancel()
        attempt.close()


def post(delivery: WebhookDelivery) -> Outcome:
    """One attempt, within ``WEBHOOK_TIMEOUT`` seconds of wall-clock time in all."""
    body = delivery.payload.encode()
    headers = {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "X-Delivery-Id": str(delivery.delivery_id),
        "X-Event": delivery.event,
        "X-Signature": sign(delivery.endpoint.secret, int(time.time()), body),
        # RFC 9421 with the site's Ed25519 key, created now (each attempt afresh): anyone
        # can check it against the published keys, unlike the shared-secret HMAC above.
        **signing.sign_request(
            method="POST", target_uri=delivery.endpoint.url, content_type="application/json", body=body
        ),
    }
    started = time.monotonic()
    deadline = started + float(_setting("WEBHOOK_TIMEOUT", 5.0))
    code, error = None, ""
    try:
        target, addresses = webhook_urls.vet(delivery.endpoint.url, seconds=deadline - time.monotonic())
        for i, address in enumerate(addresses):
            try:
                code = _send(target, address, body, headers, deadline)
                break
            except ConnectionError:
                # Refused or reset before an answer: the next address of the name, if any.
                if i == len(addresses) - 1:
                    raise
    except webhook_urls.Refused as exc:
        error = str(exc)
    except TimeoutError:  # socket.timeout is TimeoutError
        error = TIMED_OUT
    except ssl.SSLError:
        error = TLS_FAILED
    except (OSError, http.client.HTTPException, ValueError):
        error = CONNECTION_FAILED
    if code is not None and not 200 <= code < 300:
        error = f"HTTP {code}"
    return Outcome(code, error, int((time.monotonic() - started) * 1000))


def backoff(attempts: int) -> dt.timedelta:
    """30 s, 60 s, 120 s... capped at an hour (both settings)."""
    base = _setting("WEBHOOK_BACKOFF_SECONDS", 30)
    cap = _setting("WEBHOOK_BACKOFF_MAX_SECONDS", 3600)
    return dt.timedelta(seconds=min(base * 2 ** max(attempts - 1, 0), cap))


def lease() -> dt.timedelta:
    """How long a claimed delivery stays in flight: longer than any attempt can take, after
    which a worker that died mid-attempt has its delivery tried again."""
    return dt.timedelta(seconds=float(_setting("WEBHOOK_TIMEOUT", 5.0)) * 2 + 60)


def record(delivery: WebhookDelivery, outcome: Outcome, now: dt.datetime) -> bool:
    """Log the attempt and move the delivery on: delivered, gone, retry later, or failed.
    In its own short transaction. False (only the attempt logged) when the claim was lost:
    the lease ran out and another worker took the delivery over."""
    with transaction.atomic():
        WebhookAttempt.objects.create(
            delivery=delivery,
            at=now,
            status_code=outcome.status_code,
            error=outcome.error,
            duration_ms=outcome.duration_ms,
        )
        current = WebhookDelivery.objects.select_for_update().filter(pk=delivery.pk).first()
        if current is None or current.status != WebhookDelivery.Status.PENDING:
            return False
        if current.leased_until != delivery.leased_until:
            return False
        delivery.attempts = current.attempts + 1
        delivery.leased_until = None
        code = outcome.status_code
        if code is not None and 200 <= code < 300:
            delivery.status, delivery.delivered_at = WebhookDelivery.Status.DELIVERED, now
        elif code == 410:
            delivery.status = WebhookDelivery.Status.GONE
            WebhookEndpoint.objects.filter(pk=delivery.endpoint_id).update(active=False)
        else:
            deadline = delivery.created_at + dt.timedelta(hours=_setting("WEBHOOK_RETRY_HOURS", 24))
            if now >= deadline:
                delivery.status = WebhookDelivery.Status.FAILED
            else:
                # One last try at the deadline rather than none past it.
                delivery.next_attempt_at = min(now + backoff(delivery.attempts), deadline)
        delivery.save(update_fields=["attempts", "status", "delivered_at", "next_attempt_at", "leased_until"])
        return True


def claim(now: dt.datetime) -> WebhookDelivery | None:
    """Take the next due delivery and mark it in flight (``leased_until``), in a short
    transaction of its own: other workers skip the row while it is locked (PostgreSQL's
    ``SKIP LOCKED``) and leave it alone once the lease is written. A delivery whose endpoint
    was turned off meanwhile is marked gone and the next one taken."""
    while True:
        with transaction.atomic():
            due = WebhookDelivery.objects.due(now).select_related("endpoint__partner")
            if connection.features.has_select_for_update_skip_locked:
                due = due.select_for_update(skip_locked=True, of=("self",))
            delivery = due.first()
            if delivery is None:
                return None
            if not (delivery.endpoint.active and delivery.endpoint.partner.active):
                delivery.status = WebhookDelivery.Status.GONE
                delivery.save(update_fields=["status"])
                continue
            delivery.leased_until = now + lease()
            delivery.save(update_fields=["leased_until"])
            return delivery


def retire_inactive() -> int:
    """Pending deliveries to endpoints that were turned off will never be sent."""
    return (
        WebhookDelivery.objects.pending()
        .filter(Q(endpoint__active=False) | Q(endpoint__partner__active=False))
        .update(status=WebhookDelivery.Status.GONE)
    )


def deliver_due(*, limit: int = 100, now=None) -> int:
    """Send up to ``limit`` due deliveries. Returns how many were tried. No transaction is
    open while a request is in flight: claim (short transaction), send, record (another)."""
    retire_inactive()
    tried = 0
    while tried < limit:
        delivery = claim(now or timezone.now())
        if delivery is None:
            break
        outcome = post(delivery)
        record(delivery, outcome, now or timezone.now())
        tried += 1
    return tried
