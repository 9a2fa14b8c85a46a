"""Site-level models: the rules kept in the database, and edition ids."""

import datetime as dt

import pytest
from django.db import DataError, IntegrityError, connection, transaction

from newsroom.models import Beat, Edition, Newsroom, SiteProfile, parse_edition

pytestmark = pytest.mark.django_db

UTC = dt.UTC


# SQLite's REGEXP is Python's re.search, whose $ also matches before a final newline, and
# SQLite ignores the column length; PostgreSQL refuses it (by its length, 14 > 13).
# Import validation rejects that case on both (parse_edition).
NEWLINE_ON_PG_ONLY = pytest.param(
    "2026-10-16T05\n",
    marks=pytest.mark.skipif(connection.vendor != "postgresql", reason="SQLite's $ matches before \\n"),
)


@pytest.mark.parametrize("bad", ["2026-10-16", "2026-10-16T5", "2026-10-16 05", "20261016T05", "", NEWLINE_ON_PG_ONLY])
def test_edition_id_format_is_a_database_constraint(bad):
    with pytest.raises((IntegrityError, DataError)), transaction.atomic():
        Edition.objects.create(id=bad, starts_at=dt.datetime(2026, 10, 16, 5, tzinfo=UTC))


def test_edition_starts_at_its_utc_hour():
    edition, created = Edition.objects.get_or_create_for("2026-10-16T05")
    assert created and edition.starts_at == dt.datetime(2026, 10, 16, 5, tzinfo=UTC)
    assert edition.date == "2026-10-16"
    assert Edition.objects.get_or_create_for("2026-10-16T05") == (edition, False)


@pytest.mark.parametrize(
    "bad",
    ["2026-13-01T00", "2026-02-30T00", "2026-10-16T24", "2026-1-16T005", " 2026-10-16T5", "2026-10-16T05\n", 2026],
)
def test_parse_edition_rejects_what_is_not_a_real_hour(bad):
    with pytest.raises(ValueError):
        parse_edition(bad)


@pytest.mark.parametrize(
    "edition", ["2026-10-16T05", "2024-02-29T23", "0001-01-01T00", "9999-12-31T23", "2026-01-09T10", "2026-12-01T00"]
)
def test_parse_edition_reads_the_hour_as_strptime_does(edition):
    expected = dt.datetime.strptime(edition, "%Y-%m-%dT%H").replace(tzinfo=UTC)
    assert parse_edition(edition) == expected and parse_edition(edition).tzinfo is UTC
    assert parse_edition(edition) == expected  # read again, from the cache


@pytest.mark.parametrize("bad", ["2025-02-29T00", "0000-01-01T00", "2026-04-31T10", "2026-00-10T10", "2026-10-00T10"])
def test_parse_edition_rejects_a_day_the_calendar_lacks(bad):
    with pytest.raises(ValueError):
        parse_edition(bad)
    with pytest.raises(ValueError):  # a failure is not kept as an answer
        parse_edition(bad)


def test_beat_slug_is_unique_per_newsroom():
    newsroom = Newsroom.objects.create(slug="climate", title="Climate")
    Beat.objects.create(newsroom=newsroom, slug="oceans")
    Beat.objects.create(newsroom=Newsroom.objects.create(slug="science", title="Science"), slug="oceans")
    with pytest.raises(IntegrityError), transaction.atomic():
        Beat.objects.create(newsroom=newsroom, slug="oceans")


def test_newsroom_slug_may_not_be_empty():
    with pytest.raises(IntegrityError), transaction.atomic():
        Newsroom.objects.create(slug="", title="Nameless")


def test_site_profile_is_a_singleton_with_the_seeds_defaults(seed_doc):
    profile = SiteProfile.load()
    assert SiteProfile.load().pk == profile.pk
    assert profile.disclosure == seed_doc["disclosure"]
    assert profile.sponsor == seed_doc["sponsor"]
    with pytest.raises(IntegrityError), transaction.atomic():
        SiteProfile.objects.create()


def test_site_profile_disclosure_may_not_be_empty():
    profile = SiteProfile.load()
    profile.disclosure = ""
    with pytest.raises(IntegrityError), transaction.atomic():
        profile.save()
