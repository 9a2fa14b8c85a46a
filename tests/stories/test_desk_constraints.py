"""The story models' rules, kept in the database (and corrections append-only)."""

import datetime as dt

import pytest
from django.db import IntegrityError, transaction
from django.db.models import ProtectedError

from stories.models import AppendOnlyError, Cite, Correction, Image, Story
from tests.factories import ClaimFactory, EditionFactory, ManifestFactory
from tests.stories.factories import CiteFactory, KeyFactFactory, ParagraphFactory, StoryFactory

pytestmark = pytest.mark.django_db

UTC = dt.UTC


@pytest.fixture
def story(db):
    return StoryFactory(
        id="1792200000000000001", slug="a-story", edition=EditionFactory(id="2026-10-16T05"), headline="A story"
    )


@pytest.mark.parametrize("slug", ["Not-Lower", "two words", "trailing-", "-leading", "double--dash", "", "ünï"])
def test_story_slug_format_is_a_database_constraint(story, slug):
    story.slug = slug
    with pytest.raises(IntegrityError), transaction.atomic():
        story.save()


def test_story_slug_is_unique_per_edition_date(story):
    other_hour = EditionFactory(id="2026-10-16T09")
    with pytest.raises(IntegrityError), transaction.atomic():
        Story.objects.create(id="2", slug="a-story", edition=other_hour, newsroom=story.newsroom, headline="Same day")
    Story.objects.create(
        id="3", slug="a-story", edition=EditionFactory(id="2026-10-17T05"), newsroom=story.newsroom, headline="Next day"
    )


def test_a_published_story_has_a_publication_time(story):
    story.status = Story.Status.PUBLISHED
    with pytest.raises(IntegrityError), transaction.atomic():
        story.save()


def test_image_alt_text_is_required_by_the_database(story):
    with pytest.raises(IntegrityError), transaction.atomic():
        Image.objects.create(story=story, url="https://example.org/a.png", alt="")
    Image.objects.create(story=story, url="https://example.org/a.png", alt="A chart")


def test_cite_has_exactly_one_owner(story):
    manifest = ManifestFactory()
    fact = KeyFactFactory(story=story)
    paragraph = ParagraphFactory(section__story=story)
    with pytest.raises(IntegrityError), transaction.atomic():
        Cite.objects.create(manifest=manifest)
    with pytest.raises(IntegrityError), transaction.atomic():
        Cite.objects.create(manifest=manifest, key_fact=fact, paragraph=paragraph)
    Cite.objects.create(manifest=manifest, key_fact=fact)
    Cite.objects.create(manifest=manifest, paragraph=paragraph)


def test_a_cited_claim_cannot_be_deleted(story):
    claim = ClaimFactory()
    CiteFactory(paragraph=None, key_fact=KeyFactFactory(story=story), manifest=claim.manifest, claims=[claim])
    with pytest.raises(ProtectedError):
        claim.delete()


@pytest.fixture
def correction(story):
    return Correction.objects.create(
        story=story, corrected_at=dt.datetime(2026, 10, 17, tzinfo=UTC), kind="correction", text="Fixed."
    )


def test_correction_cannot_be_edited(correction):
    correction.text = "Rewritten."
    with pytest.raises(AppendOnlyError):
        correction.save()
    assert Correction.objects.get(pk=correction.pk).text == "Fixed."


def test_correction_cannot_be_deleted_one_by_one_or_in_bulk(story, correction):
    with pytest.raises(AppendOnlyError):
        correction.delete()
    with pytest.raises(AppendOnlyError):
        Correction.objects.filter(pk=correction.pk).delete()
    with pytest.raises(AppendOnlyError):
        story.corrections.all().delete()
    with pytest.raises(AppendOnlyError):
        Correction.objects.update(text="Rewritten.")
    assert Correction.objects.get(pk=correction.pk).text == "Fixed."


def test_a_corrected_story_cannot_be_deleted(story, correction):
    with pytest.raises(ProtectedError):
        story.delete()


@pytest.mark.parametrize("field, value", [("kind", "retraction"), ("text", "")])
def test_correction_kind_and_text_are_database_constraints(story, field, value):
    values = {
        "story": story,
        "corrected_at": dt.datetime(2026, 10, 17, tzinfo=UTC),
        "kind": "update",
        "text": "T.",
        field: value,
    }
    with pytest.raises(IntegrityError), transaction.atomic():
        Correction.objects.create(**values)
