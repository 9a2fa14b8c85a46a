"""Signed webhooks through an outbox.

``enqueue`` writes one ``WebhookDelivery`` per subscribed endpoint inside the transaction of
the story action, so an event is queued exactly when it happens. ``deliver_due`` (run by
``manage.py deliver_webhooks``) sends them: POST, JSON body, signed

    X-Signature: t=<unix time>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>

retried with exponential backoff for ``WEBHOOK_RETRY_HOURS``; a 410 stops deliveries to
that endpoint for good.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import time
import urllib.error
import urllib.request
from dataclasses import dataclass

from django.conf import settings
from django.db import connection, transaction
from django.urls import reverse
from django.utils import timezone

from stories.desk import format_time

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
    endpoints = [e for e in WebhookEndpoint.objects.filter(active=True) if e.wants(event)]
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
    error: str
    duration_ms: int


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """A redirect is not a delivery: urllib would re-send the POST as a GET elsewhere."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


_opener = urllib.request.build_opener(_NoRedirect)


def post(delivery: WebhookDelivery) -> Outcome:
    body = delivery.payload.encode()
    request = urllib.request.Request(
        delivery.endpoint.url,
        data=body,
        method="POST",
        headers={
            "Content-Type": "application/json",
            "User-Agent": USER_AGENT,
            "X-Delivery-Id": str(delivery.delivery_id),
            "X-Event": delivery.event,
            "X-Signature": sign(delivery.endpoint.secret, int(time.time()), body),
        },
    )
    started = time.monotonic()
    try:
        with _opener.open(request, timeout=_setting("WEBHOOK_TIMEOUT", 5.0)) as response:
            code, error = response.status, ""
    except urllib.error.HTTPError as exc:
        code, error = exc.code, f"HTTP {exc.code} {exc.reason}"
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        reason = getattr(exc, "reason", exc)
        code, error = None, f"{type(reason).__name__}: {reason}"[:1000]
    return Outcome(code, error, int((time.monotonic() - started) * 1000))


def backoff(attempts: int) -> dt.timedelta:
    """30 s, 60 s, 120 s... capped at an hour (both settings)."""
    base = _setting("WEBHOOK_BACKOFF_SECONDS", 30)
    cap = _setting("WEBHOOK_BACKOFF_MAX_SECONDS", 3600)
    return dt.timedelta(seconds=min(base * 2 ** max(attempts - 1, 0), cap))


def record(delivery: WebhookDelivery, outcome: Outcome, now: dt.datetime) -> None:
    """Log the attempt and move the delivery on: delivered, gone, retry later, or failed."""
    WebhookAttempt.objects.create(
        delivery=delivery, at=now, status_code=outcome.status_code, error=outcome.error, duration_ms=outcome.duration_ms
    )
    delivery.attempts += 1
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
    delivery.save(update_fields=["attempts", "status", "delivered_at", "next_attempt_at"])


def _claim_next(now: dt.datetime) -> WebhookDelivery | None:
    """Lock the next due delivery; other workers skip it (PostgreSQL) instead of waiting."""
    due = WebhookDelivery.objects.due(now).select_related("endpoint")
    if connection.features.has_select_for_update_skip_locked:
        due = due.select_for_update(skip_locked=True, of=("self",))
    return due.first()


def retire_inactive() -> int:
    """Pending deliveries to endpoints that were turned off will never be sent."""
    return WebhookDelivery.objects.pending().filter(endpoint__active=False).update(status=WebhookDelivery.Status.GONE)


def deliver_due(*, limit: int = 100, now=None) -> int:
    """Send up to ``limit`` due deliveries, one transaction each. Returns how many were tried."""
    retire_inactive()
    tried = 0
    while tried < limit:
        with transaction.atomic():
            delivery = _claim_next(now or timezone.now())
            if delivery is None:
                break
            if not delivery.endpoint.active:
                delivery.status = WebhookDelivery.Status.GONE
                delivery.save(update_fields=["status"])
                continue
            outcome = post(delivery)
            record(delivery, outcome, now or timezone.now())
            tried += 1
    return tried
