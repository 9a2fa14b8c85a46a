"""Any valid desk/1 story round-trips: Hypothesis builds stories (unicode text, optional
fields, empty lists, corrections, images, drafts, cites over a pool of manifests) and each
one must import and export back to the very same JSON, key order included."""

import json

import pytest
from django.db import transaction
from hypothesis import HealthCheck, given, settings

from manifests.formats import import_manifests_document
from stories import actions, desk
from stories.models import Story
from tests.stories.documents import SEED, complete, manifests_document
from tests.stories.strategies import in_spec_order, stored

pytestmark = [pytest.mark.django_db, pytest.mark.slow]


def round_trip(doc: dict) -> dict:
    """Import ``doc`` and export it, then undo every write (one example must not see another's)."""
    with transaction.atomic():
        actions.import_story(desk.validate(json.loads(json.dumps(doc))), restore=True)
        out = desk.export_story(Story.objects.with_everything().get(id=doc["id"]))
        transaction.set_rollback(True)
    return out


def check(values: dict) -> None:
    doc = complete(in_spec_order(values), SEED)
    out = round_trip(doc)
    assert desk.dumps(out, pretty=False) == json.dumps(doc, ensure_ascii=False)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(values=stored)
def test_any_story_round_trips_with_stub_claims(db, values):
    check(values)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow]
)
@given(values=stored)
def test_any_story_round_trips_with_its_claims_imported(db, values):
    with transaction.atomic():
        import_manifests_document(manifests_document())
        check(values)
        transaction.set_rollback(True)
