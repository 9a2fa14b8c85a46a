"""factory_boy factories for stories and their parts: sections, paragraphs, key facts and
their cites of a manifest's claims."""

import datetime as dt

import factory
from django.utils import timezone

from stories.models import Cite, KeyFact, Paragraph, Section, Story
from tests.factories import ClaimFactory, EditionFactory, ManifestFactory, NewsroomFactory


class StoryFactory(factory.django.DjangoModelFactory):
    """A bare draft story (no sections, no key facts); ``StoryFactory(published=True)`` is
    published an hour ago. The id is the model's own: time-ordered, like the CMS's."""

    class Meta:
        model = Story

    class Params:
        published = factory.Trait(
            status=Story.Status.PUBLISHED,
            published_at=factory.LazyFunction(lambda: timezone.now() - dt.timedelta(hours=1)),
        )

    slug = factory.Sequence(lambda n: f"story-{n}")
    headline = factory.Sequence(lambda n: f"Story number {n}")
    newsroom = factory.SubFactory(NewsroomFactory)
    edition = factory.SubFactory(EditionFactory)
    status = Story.Status.DRAFT


class SectionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Section

    story = factory.SubFactory(StoryFactory)
    position = factory.Sequence(lambda n: n)
    heading = factory.Sequence(lambda n: f"Section {n}")


class ParagraphFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Paragraph

    section = factory.SubFactory(SectionFactory)
    position = factory.Sequence(lambda n: n)
    markdown = factory.Sequence(lambda n: f"Paragraph {n} states a fact.")


class KeyFactFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = KeyFact

    story = factory.SubFactory(StoryFactory)
    position = factory.Sequence(lambda n: n)
    text = factory.Sequence(lambda n: f"Key fact {n}.")


class CiteFactory(factory.django.DjangoModelFactory):
    """A paragraph's cite of a manifest (``CiteFactory(key_fact=f, paragraph=None)`` for a
    key fact's), citing ``claims``: a list of claims, by default one new claim of the cite's
    manifest (``claims=[]`` for none)."""

    class Meta:
        model = Cite
        skip_postgeneration_save = True

    paragraph = factory.SubFactory(ParagraphFactory)
    key_fact = None
    position = factory.Sequence(lambda n: n)
    manifest = factory.SubFactory(ManifestFactory)

    @factory.post_generation
    def claims(self, create, extracted, **kwargs):
        if not create:
            return
        claims = [ClaimFactory(manifest=self.manifest)] if extracted is None else extracted
        for position, claim in enumerate(claims):
            self.claims.create(claim=claim, position=position)
