"""Webhook deliveries carry an RFC 9421 Ed25519 signature (beside the HMAC header), checked
here as a receiver would, with the independent package and the published keys."""

import json

import pytest
from django.utils import timezone

from stories import actions
from syndication import webhooks
from syndication.models import WebhookDelivery, WebhookEndpoint
from tests.signatures import InvalidSignature, verify_request

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _local_receivers(settings):
    settings.WEBHOOK_TIMEOUT = 0.5
    settings.WEBHOOK_ALLOW_HTTP = True
    settings.WEBHOOK_ALLOWED_PRIVATE_HOSTS = ["127.0.0.1"]


@pytest.fixture
def endpoint(partner, receiver):
    return WebhookEndpoint.objects.create(partner=partner, url=receiver.url, events=["story.corrected"])


@pytest.fixture
def jwks(client):
    return client.get("/.well-known/http-message-signatures-directory").json()


def delivered(receiver, endpoint, i=0):
    got = receiver.requests[i]
    return {"method": "POST", "url": endpoint.url, "headers": got["headers"], "body": got["body"]}


def test_a_delivery_verifies_against_the_published_keys(make_story, endpoint, receiver, jwks):
    actions.record_correction(story=make_story(), text="A date was wrong.", kind="correction")
    assert webhooks.deliver_due() == 1
    request = delivered(receiver, endpoint)
    assert "X-Signature" in request["headers"]  # the HMAC header stays for partners who use it
    [result] = verify_request(**request, jwks=jwks)
    assert result.parameters["keyid"] == jwks["keys"][0]["kid"]
    assert json.loads(result.body)["event"] == "story.corrected"


def test_a_tampered_delivery_or_another_target_fails(make_story, endpoint, receiver, jwks):
    actions.record_correction(story=make_story(), text="A date was wrong.", kind="correction")
    webhooks.deliver_due()
    request = delivered(receiver, endpoint)
    with pytest.raises(InvalidSignature):
        verify_request(**dict(request, body=request["body"].replace(b"wrong", b"right")), jwks=jwks)
    with pytest.raises(InvalidSignature):
        verify_request(**dict(request, url=endpoint.url + "-elsewhere"), jwks=jwks)
    with pytest.raises(InvalidSignature):
        verify_request(**dict(request, method="PUT"), jwks=jwks)


def test_a_retry_is_signed_afresh(make_story, endpoint, receiver, jwks, monkeypatch):
    actions.record_correction(story=make_story(), text="A date was wrong.", kind="correction")
    receiver.replies = [500, 200]
    clock = iter([1_790_000_000, 1_790_000_090])
    monkeypatch.setattr(webhooks.signing.messages, "now", lambda: next(clock))
    webhooks.deliver_due()
    delivery = WebhookDelivery.objects.get()
    webhooks.deliver_due(now=delivery.next_attempt_at + timezone.timedelta(seconds=1))
    first, second = (verify_request(**delivered(receiver, endpoint, i), jwks=jwks)[0] for i in (0, 1))
    assert (first.parameters["created"], second.parameters["created"]) == (1_790_000_000, 1_790_000_090)
    assert receiver.requests[0]["body"] == receiver.requests[1]["body"]
