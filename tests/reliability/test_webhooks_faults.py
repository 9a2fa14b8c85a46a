"""Webhooks under faults and concurrency.

* The receiver is down for an hour of simulated time (the clock the outbox reads,
  ``django.utils.timezone.now``, is advanced by hand and ``deliver_webhooks --once`` runs
  each simulated minute), then back: everything is delivered, in order per story, and every
  attempt is on record.
* PostgreSQL only (they need real transactions in several connections): 20 stories
  published and corrected in parallel with two endpoints subscribed queue each delivery
  exactly once with strictly increasing versions; two delivery workers at once send each
  delivery once (``SELECT ... FOR UPDATE SKIP LOCKED``), counted at a real receiver on
  127.0.0.1 by ``X-Delivery-Id``.
"""

import datetime as dt
import io
import itertools
import json
import threading
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from stories import actions
from stories.models import CheckResult, Correction, Revision, Story
from syndication import webhooks
from syndication.models import WebhookAttempt, WebhookDelivery, WebhookEndpoint

ALL_EVENTS = ["story.published", "story.corrected", "story.unpublished"]
T0 = dt.datetime(2026, 11, 30, 9, 0, tzinfo=dt.UTC)
needs_postgres = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="needs PostgreSQL: concurrent transactions and SKIP LOCKED"
)


@pytest.fixture(autouse=True)
def _fast(settings):
    settings.WEBHOOK_TIMEOUT = 2.0
    # The receivers here are on 127.0.0.1, over http: allowed explicitly, as a deployment would.
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1"]


class Clock:
    """The simulated time every ``timezone.now()`` call reads."""

    def __init__(self, start):
        self.now = start

    def advance(self, **delta):
        self.now += dt.timedelta(**delta)


@pytest.fixture
def clock(monkeypatch):
    c = Clock(T0)
    monkeypatch.setattr(timezone, "now", lambda: c.now)
    return c


class Switch:
    """Makes the receiver answer 503 while down (it still sees, and counts, every request)."""

    def __init__(self, receiver):
        self.receiver, self.down = receiver, True

    def reply(self):
        return 503 if self.down else 200


def run_worker_once():
    call_command("deliver_webhooks", "--once", stdout=io.StringIO())


# --------------------------------------------------------------------------- the receiver down for an hour


@pytest.mark.slow
@pytest.mark.django_db
def test_receiver_down_for_an_hour_then_back_gets_everything_in_order(clock, partner, receiver, make_story):
    endpoint = WebhookEndpoint.objects.create(partner=partner, url=receiver.url, events=ALL_EVENTS)
    switch = Switch(receiver)
    # The receiver's scripted replies are read per request: feed it a long list that follows the switch.
    receiver.replies = _FollowSwitch(switch)

    stories = [make_story(slug=f"down-{i}") for i in range(3)]
    minute = 0
    # Events keep happening while the receiver is down: three per story, spread over the hour.
    events_at = {
        5: ("correct", 0),
        7: ("correct", 1),
        12: ("correct", 2),
        25: ("correct", 0),
        40: ("unpublish", 1),
        55: ("correct", 2),
    }
    while minute < 60:
        if minute in events_at:
            verb, i = events_at[minute]
            if verb == "correct":
                actions.record_correction(story=stories[i], text=f"Fixed at minute {minute}.", kind="correction")
            else:
                actions.unpublish_story(story=stories[i])
        run_worker_once()
        clock.advance(minutes=1)
        minute += 1
    queued = list(WebhookDelivery.objects.order_by("id"))
    assert len(queued) == len(events_at)
    assert not WebhookDelivery.objects.exclude(status="pending").exists(), (
        "nothing can be delivered while the receiver is down"
    )
    assert receiver.requests, "the worker kept trying during the outage"
    down_attempts = WebhookAttempt.objects.count()
    assert set(WebhookAttempt.objects.values_list("status_code", flat=True)) == {503}

    switch.down = False
    for _ in range(6 * 60):  # up to six more simulated hours, a pass a minute
        if not WebhookDelivery.objects.pending().exists():
            break
        run_worker_once()
        clock.advance(minutes=1)

    delivered = list(WebhookDelivery.objects.order_by("id"))
    assert [d.status for d in delivered] == ["delivered"] * len(queued)
    # Every attempt is recorded, one row per request the receiver saw, and they add up.
    assert WebhookAttempt.objects.count() == len(receiver.requests) == sum(d.attempts for d in delivered)
    assert WebhookAttempt.objects.count() > down_attempts
    for d in delivered:
        log = list(d.attempt_log.order_by("at", "id"))
        assert [a.status_code for a in log] == [503] * (len(log) - 1) + [200]
        assert d.delivered_at == log[-1].at
        # The retries back off: each gap at least the backoff for the attempts made so far.
        for n, (a, b) in enumerate(itertools.pairwise(log), start=1):
            assert b.at - a.at >= min(webhooks.backoff(n), d.created_at + dt.timedelta(hours=24) - a.at)
    # Per story, the receiver got the events in the order they happened (and each once with a 200).
    successes = [r for r, code in zip(receiver.requests, receiver.replies.given) if code == 200]
    assert Counter(r["headers"]["X-Delivery-Id"] for r in successes) == Counter(str(d.delivery_id) for d in delivered)
    per_story = defaultdict(list)
    for r in successes:
        body = json.loads(r["body"])
        per_story[body["story"]["id"]].append(body["story"]["version"])
    assert per_story and all(
        versions == sorted(versions) and len(set(versions)) == len(versions) for versions in per_story.values()
    )
    expected = defaultdict(list)
    for d in delivered:
        expected[d.story_id].append(json.loads(d.payload)["story"]["version"])
    assert dict(per_story) == dict(expected)
    assert endpoint.deliveries.count() == len(queued)


class _FollowSwitch(list):
    """A reply list that never runs out: each pop answers as the switch says, and remembers it."""

    def __init__(self, switch):
        super().__init__([None])
        self.switch, self.given = switch, []

    def pop(self, index=-1):
        code = self.switch.reply()
        self.given.append(code)
        return code


# --------------------------------------------------------------------------- concurrency (PostgreSQL)


def _passing_checks(monkeypatch):
    import stories.checks as checks

    def check_and_record(story):
        rubric = {"passed": True, "score": 1.0, "criteria": []}
        return CheckResult.objects.create(story=story, version=story.version, passed=True, score=1.0, rubric=rubric)

    monkeypatch.setattr(checks, "check_and_record", check_and_record)


def _in_threads(fn, items, workers=20):
    """Run ``fn(item)`` in parallel threads, each closing its own DB connection at the end."""
    barrier = threading.Barrier(min(workers, len(items)))

    def run(item):
        try:
            barrier.wait(timeout=30)
            return fn(item)
        finally:
            connection.close()

    with ThreadPoolExecutor(max_workers=workers) as pool:
        return list(pool.map(run, items))


@pytest.mark.slow
@needs_postgres
@pytest.mark.django_db(transaction=True)  # the groups come back after the flush (stories.apps.ensure_groups)
def test_twenty_parallel_publishes_and_corrections_queue_each_delivery_once(monkeypatch, partner, make_story):
    _passing_checks(monkeypatch)
    endpoints = [
        WebhookEndpoint.objects.create(partner=partner, url=f"http://127.0.0.1:9/{n}", events=ALL_EVENTS)
        for n in ("a", "b")
    ]
    stories = [make_story(slug=f"parallel-{i}", status=Story.Status.DRAFT) for i in range(20)]

    def publish_and_correct(story_id):
        story = actions.publish_story(story=Story.objects.get(pk=story_id))
        for n in range(2):
            actions.record_correction(
                story=Story.objects.get(pk=story_id), text=f"Correction {n} of {story.pk}.", kind="correction"
            )
        return story_id

    done = _in_threads(publish_and_correct, [s.pk for s in stories])
    assert sorted(done) == sorted(s.pk for s in stories)

    for story in Story.objects.filter(pk__in=done):
        assert story.status == "published" and story.version == 4  # created 1, published 2, corrected 3 and 4
        versions = list(Revision.objects.filter(story=story).order_by("id").values_list("version", flat=True))
        assert versions[-3:] == [2, 3, 4] and versions == sorted(set(versions)), versions
        assert Correction.objects.filter(story=story).count() == 2, "a correction was lost"
        for endpoint in endpoints:
            rows = list(WebhookDelivery.objects.filter(story_id=story.pk, endpoint=endpoint).order_by("id"))
            assert [r.event for r in rows] == ["story.published", "story.corrected", "story.corrected"]
            versions = [json.loads(r.payload)["story"]["version"] for r in rows]
            assert versions == [2, 3, 4], "versions strictly increase, one delivery per event"
    assert WebhookDelivery.objects.count() == 20 * 3 * len(endpoints)
    assert len(set(WebhookDelivery.objects.values_list("delivery_id", flat=True))) == WebhookDelivery.objects.count()


@pytest.mark.slow
@needs_postgres
@pytest.mark.django_db(transaction=True)  # the groups come back after the flush (stories.apps.ensure_groups)
def test_two_workers_at_once_send_each_delivery_once(partner, make_story, receiver):
    endpoint = WebhookEndpoint.objects.create(partner=partner, url=receiver.url, events=ALL_EVENTS)
    stories = [make_story(slug=f"workers-{i}") for i in range(15)]
    for story in stories:
        for n in range(2):
            actions.record_correction(story=Story.objects.get(pk=story.pk), text=f"Correction {n}.", kind="correction")
    queued = {str(d) for d in WebhookDelivery.objects.values_list("delivery_id", flat=True)}
    assert len(queued) == 30
    receiver.replies = [("sleep", 0.05, 200)] * 30  # slow enough that the two workers overlap

    def worker(_):
        tried = 0
        for _ in range(200):
            n = webhooks.deliver_due(limit=1000)
            tried += n
            if not WebhookDelivery.objects.pending().exists():
                break
        return tried

    tried = _in_threads(worker, [1, 2], workers=2)
    received = Counter(r["headers"]["X-Delivery-Id"] for r in receiver.requests)
    assert set(received) == queued
    assert all(n == 1 for n in received.values()), {k: n for k, n in received.items() if n > 1}
    assert sum(tried) == 30 and all(t > 0 for t in tried), tried  # both worked, neither sent twice
    assert set(WebhookDelivery.objects.values_list("status", "attempts")) == {("delivered", 1)}
    assert WebhookAttempt.objects.count() == 30
    # Still in order per story: the second correction never overtook the first.
    order = defaultdict(list)
    for r in receiver.requests:
        body = json.loads(r["body"])
        order[body["story"]["id"]].append(body["story"]["version"])
    assert all(v == sorted(v) for v in order.values())
    assert endpoint.deliveries.count() == 30
