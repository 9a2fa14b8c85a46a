"""``Claim.objects.rows()``: what the checks and the bulk writer read of claims."""

import pytest

from manifests.models import Claim, ClaimRow, Manifest, Publisher
from newsroom.infra.bulk import any_of

pytestmark = pytest.mark.django_db


@pytest.fixture
def claims():
    publisher = Publisher.objects.create(name="rows-publisher")
    manifest = Manifest.objects.create(
        id="900100", title="Rows", publisher=publisher, source_url="https://example.com/m", published_date="2026-11-30"
    )
    Claim.objects.create(id="c-text", manifest=manifest, position=0, text="Forty percent said so.", self_reported=True)
    Claim.objects.create(id="c-plain", manifest=manifest, position=1, text="Nobody said so.", self_reported=False)
    Claim.objects.create(id="c-unknown", manifest=manifest, position=2, text="Some said so.", self_reported=None)
    Claim.objects.create(id="c-stub", manifest=manifest, position=3, has_text=False, self_reported=None)
    return manifest


def test_rows_are_the_claims_values_with_python_types(claims):
    rows = Claim.objects.filter(manifest=claims).rows()
    assert rows == {
        "c-text": ClaimRow("c-text", "900100", "Forty percent said so.", True, True),
        "c-plain": ClaimRow("c-plain", "900100", "Nobody said so.", True, False),
        "c-unknown": ClaimRow("c-unknown", "900100", "Some said so.", True, None),
        "c-stub": ClaimRow("c-stub", "900100", "", False, None),
    }
    # booleans as booleans on every database (SQLite stores them as integers)
    assert all(type(row.has_text) is bool for row in rows.values())
    assert rows["c-stub"].self_reported_or_unknown is None
    assert rows["c-text"].self_reported_or_unknown is True


def test_rows_of_an_id_list_read_only_those(claims):
    assert set(Claim.objects.filter(id__in=["c-plain", "c-stub", "missing"]).rows()) == {"c-plain", "c-stub"}
    assert set(Claim.objects.filter(id__in=any_of(["c-text", "missing"])).rows()) == {"c-text"}


def test_rows_of_nothing_is_empty(claims, django_assert_num_queries):
    with django_assert_num_queries(0):
        assert Claim.objects.filter(id__in=[]).rows() == {}
        assert Claim.objects.none().rows() == {}
    assert Claim.objects.filter(id__in=any_of([])).rows() == {}
