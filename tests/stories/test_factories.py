"""The stories' factories build what the models accept: a story with its parts and cites."""

import pytest
from django.contrib.auth.hashers import identify_hasher

from stories.models import Story
from tests.factories import UserFactory
from tests.stories.factories import CiteFactory, KeyFactFactory, StoryFactory

pytestmark = pytest.mark.django_db


def test_a_story_is_a_draft_and_a_published_one_has_its_time():
    assert StoryFactory().status == Story.Status.DRAFT
    published = StoryFactory(published=True)
    assert published.is_published and published.published_at is not None


def test_a_cite_cites_a_claim_of_its_manifest_under_a_paragraph_of_a_story():
    cite = CiteFactory()
    [cited] = cite.claims.all()
    assert cited.claim.manifest == cite.manifest
    assert cite.paragraph.section.story.sections.get() == cite.paragraph.section


def test_a_key_facts_cite_and_its_claims_are_given():
    fact = KeyFactFactory()
    cite = CiteFactory(paragraph=None, key_fact=fact, claims=[])
    assert list(fact.cites.all()) == [cite] and not cite.claims.exists()


def test_passwords_are_hashed_with_the_fast_hasher_of_the_test_run():
    assert identify_hasher(UserFactory().password).algorithm == "md5"
