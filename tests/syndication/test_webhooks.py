"""Webhooks: outbox rows written with the event, delivered to a real HTTP receiver on
127.0.0.1, signed, retried with backoff, stopped by 410, in order per story."""

import datetime as dt
import hashlib
import hmac
import io
import json
import time

import pytest
from django.core.management import call_command
from django.db import transaction
from django.utils import timezone

from stories import actions, signals
from stories.models import Story
from syndication import webhooks
from syndication.models import WebhookDelivery, WebhookEndpoint

pytestmark = pytest.mark.django_db

ALL_EVENTS = ["story.published", "story.corrected", "story.unpublished"]


@pytest.fixture
def endpoint(partner, receiver):
    return WebhookEndpoint.objects.create(partner=partner, url=receiver.url, events=ALL_EVENTS)


@pytest.fixture(autouse=True)
def _fast(settings):
    settings.WEBHOOK_TIMEOUT = 0.5
    # The receivers here are on 127.0.0.1, over http: allowed explicitly, as a deployment would.
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1"]


def partner_verifies(secret: str, headers: dict, body: bytes, tolerance: int = 300) -> bool:
    """How a partner checks a delivery, written from docs/api.md, not from our code."""
    parts = dict(p.split("=", 1) for p in headers["X-Signature"].split(","))
    if abs(time.time() - int(parts["t"])) > tolerance:
        return False
    expected = hmac.new(secret.encode(), parts["t"].encode() + b"." + body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected, parts["v1"])


def test_correction_queues_one_delivery_per_subscribed_active_endpoint(partner, make_story, endpoint):
    WebhookEndpoint.objects.create(partner=partner, url="http://127.0.0.1:9/off", events=ALL_EVENTS, active=False)
    WebhookEndpoint.objects.create(partner=partner, url="http://127.0.0.1:9/pub", events=["story.published"])
    story = make_story()
    actions.record_correction(story=story, text="A date was wrong.", kind="correction")
    delivery = WebhookDelivery.objects.get()
    assert (delivery.endpoint, delivery.event, delivery.story_id, delivery.status) == (
        endpoint,
        "story.corrected",
        story.pk,
        "pending",
    )
    payload = json.loads(delivery.payload)
    assert list(payload) == ["event", "delivery_id", "created_at", "story", "correction"]
    assert payload["delivery_id"] == str(delivery.delivery_id)
    assert payload["story"]["id"] == story.pk and payload["story"]["version"] == 2
    assert payload["correction"]["text"] == "A date was wrong."


def test_outbox_row_rolls_back_with_the_event(make_story, endpoint):
    story = make_story()
    with pytest.raises(RuntimeError), transaction.atomic():
        actions.unpublish_story(story=story)
        assert WebhookDelivery.objects.count() == 1
        raise RuntimeError("the action's transaction fails after the signal")
    assert WebhookDelivery.objects.count() == 0


def test_published_signal_queues_story_published(make_story, endpoint):
    story = make_story()
    with transaction.atomic():
        signals.story_published.send(sender=Story, story=story, user=None)
    assert WebhookDelivery.objects.get().event == "story.published"


def test_publish_action_queues_story_published(make_story, endpoint, monkeypatch):
    from stories.models import CheckResult

    story = make_story(status=Story.Status.DRAFT)

    def passing(s):
        return CheckResult.objects.create(story=s, version=s.version, passed=True, score=1.0, rubric={"passed": True})

    monkeypatch.setattr("stories.checks.check_and_record", passing)
    actions.publish_story(story=story)
    assert WebhookDelivery.objects.get().event == "story.published"


def test_success_is_signed_and_recorded(make_story, endpoint, receiver):
    story = make_story()
    actions.unpublish_story(story=story)
    assert webhooks.deliver_due() == 1
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == "delivered" and delivery.attempts == 1 and delivery.delivered_at
    attempt = delivery.attempt_log.get()
    assert attempt.status_code == 200 and attempt.error == ""
    [request] = receiver.requests
    headers, body = request["headers"], request["body"]
    assert body == delivery.payload.encode()
    assert headers["X-Event"] == "story.unpublished"
    assert headers["X-Delivery-Id"] == str(delivery.delivery_id)
    assert headers["Content-Type"] == "application/json"
    assert partner_verifies(endpoint.secret, headers, body)
    assert not partner_verifies("whsec_someone-else", headers, body)
    assert not partner_verifies(endpoint.secret, headers, body.replace(b"unpublished", b"published"))
    assert webhooks.verify(endpoint.secret, headers["X-Signature"], body)


def test_500_then_success_with_backoff(make_story, endpoint, receiver):
    receiver.replies = [500]
    actions.unpublish_story(story=make_story())
    webhooks.deliver_due()
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == "pending" and delivery.attempts == 1
    wait = delivery.next_attempt_at - delivery.attempt_log.get().at
    assert wait == dt.timedelta(seconds=30)
    assert webhooks.deliver_due() == 0, "not due yet"
    webhooks.deliver_due(now=delivery.next_attempt_at + dt.timedelta(seconds=1))
    delivery.refresh_from_db()
    assert delivery.status == "delivered" and delivery.attempts == 2
    assert [a.status_code for a in delivery.attempt_log.all()] == [500, 200]
    assert len(receiver.requests) == 2
    assert receiver.requests[0]["body"] == receiver.requests[1]["body"]
    assert receiver.requests[0]["headers"]["X-Delivery-Id"] == receiver.requests[1]["headers"]["X-Delivery-Id"]


def test_timeout_is_an_attempt_with_an_error(make_story, endpoint, receiver):
    receiver.replies = [("sleep", 30, 200)]  # answers long after the 0.5 s timeout
    actions.unpublish_story(story=make_story())
    webhooks.deliver_due()
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == "pending" and delivery.attempts == 1
    attempt = delivery.attempt_log.get()
    assert attempt.status_code is None
    assert "timed out" in attempt.error.lower() or "timeout" in attempt.error.lower()
    # It waited for the timeout, and gave up long before the answer.
    assert 400 <= attempt.duration_ms < 30_000


def test_410_marks_gone_and_deactivates_the_endpoint(make_story, endpoint, receiver):
    receiver.replies = [410]
    first, second = make_story(), make_story()
    actions.unpublish_story(story=first)
    actions.unpublish_story(story=second)
    webhooks.deliver_due()
    endpoint.refresh_from_db()
    assert endpoint.active is False
    statuses = dict(WebhookDelivery.objects.values_list("story_id", "status"))
    assert statuses == {first.pk: "gone", second.pk: "gone"}
    assert len(receiver.requests) == 1


def test_unreachable_receiver_keeps_everything_and_gives_up_after_24_hours(partner, make_story):
    dead = WebhookEndpoint.objects.create(partner=partner, url="http://127.0.0.1:9/down", events=ALL_EVENTS)
    actions.unpublish_story(story=make_story())
    delivery = WebhookDelivery.objects.get()
    now = delivery.created_at
    waits = []
    while delivery.status == "pending":
        webhooks.deliver_due(now=now)
        delivery.refresh_from_db()
        waits.append((delivery.next_attempt_at - now).total_seconds())
        now = delivery.next_attempt_at
    assert delivery.status == "failed"
    assert waits[:4] == [30, 60, 120, 240]
    assert max(waits) == 3600
    assert delivery.attempt_log.count() == delivery.attempts
    assert delivery.attempt_log.last().at == delivery.created_at + dt.timedelta(hours=24)
    assert dead.deliveries.count() == 1


def test_events_for_one_story_go_in_order(make_story, endpoint, receiver):
    receiver.replies = [500]
    story = make_story()
    actions.record_correction(story=story, text="First fix.", kind="correction")
    actions.unpublish_story(story=story)
    other = make_story()
    actions.unpublish_story(story=other)
    webhooks.deliver_due()
    # The correction failed; the unpublish of the same story waits behind it, the other story does not.
    events = [(json.loads(r["body"])["story"]["id"], r["headers"]["X-Event"]) for r in receiver.requests]
    assert events == [(story.pk, "story.corrected"), (other.pk, "story.unpublished")]
    later = timezone.now() + dt.timedelta(minutes=5)
    webhooks.deliver_due(now=later)
    events = [(json.loads(r["body"])["story"]["id"], r["headers"]["X-Event"]) for r in receiver.requests]
    assert events[2:] == [(story.pk, "story.corrected"), (story.pk, "story.unpublished")]


def test_deliver_webhooks_command(make_story, endpoint, receiver):
    actions.unpublish_story(story=make_story())
    out = io.StringIO()
    call_command("deliver_webhooks", "--once", stdout=out)
    assert "tried 1" in out.getvalue()
    assert WebhookDelivery.objects.get().status == "delivered"


def test_redirect_is_not_followed(partner, make_story, receiver):
    receiver.replies = [302]
    WebhookEndpoint.objects.create(partner=partner, url=receiver.url, events=ALL_EVENTS)
    actions.unpublish_story(story=make_story())
    webhooks.deliver_due()
    delivery = WebhookDelivery.objects.get()
    assert delivery.status == "pending"
    assert delivery.attempt_log.get().status_code == 302
    assert len(receiver.requests) == 1


@pytest.mark.postgres
@pytest.mark.skipif(__import__("django.db").db.connection.vendor != "postgresql", reason="SKIP LOCKED needs PostgreSQL")
@pytest.mark.django_db(transaction=True)
def test_two_workers_skip_each_others_locked_deliveries(partner, make_story, receiver):
    """A worker holding one delivery does not block another worker: it takes the next."""
    import threading

    from django.db import connections

    WebhookEndpoint.objects.create(partner=partner, url=receiver.url, events=ALL_EVENTS)
    first, second = make_story(), make_story()
    actions.unpublish_story(story=first)
    actions.unpublish_story(story=second)
    held = WebhookDelivery.objects.get(story_id=first.pk)
    locked, release = threading.Event(), threading.Event()

    def other_worker():
        try:
            with transaction.atomic():
                WebhookDelivery.objects.select_for_update().get(pk=held.pk)
                locked.set()
                release.wait(10)
        finally:
            connections.close_all()

    thread = threading.Thread(target=other_worker)
    thread.start()
    try:
        assert locked.wait(10)
        assert webhooks.deliver_due(limit=5) == 1
    finally:
        release.set()
        thread.join()
    assert [json.loads(r["body"])["story"]["id"] for r in receiver.requests] == [second.pk]
    held.refresh_from_db()
    assert (held.status, held.attempts) == ("pending", 0)
