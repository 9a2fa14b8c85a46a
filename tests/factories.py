"""factory_boy factories for the models every app's tests build on."""

import datetime as dt

import factory
from django.contrib.auth import get_user_model

from manifests.models import Claim, Manifest, Publisher
from newsroom.models import Beat, Edition, Newsroom


class UserFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = get_user_model()
        django_get_or_create = ["username"]

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password("pw-for-tests-only")


class NewsroomFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Newsroom
        django_get_or_create = ["slug"]

    slug = factory.Sequence(lambda n: f"newsroom-{n}")
    title = factory.LazyAttribute(lambda o: o.slug.replace("-", " ").title())


class BeatFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Beat
        django_get_or_create = ["newsroom", "slug"]

    newsroom = factory.SubFactory(NewsroomFactory)
    slug = factory.Sequence(lambda n: f"beat-{n}")


class EditionFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Edition
        django_get_or_create = ["id"]

    id = factory.Sequence(
        lambda n: (dt.datetime(2026, 10, 1, tzinfo=dt.UTC) + dt.timedelta(hours=n)).strftime("%Y-%m-%dT%H")
    )


class PublisherFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Publisher
        django_get_or_create = ["name"]

    name = factory.Sequence(lambda n: f"publisher-{n}")


class ManifestFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Manifest

    id = factory.Sequence(lambda n: str(1800000000000000000 + n))
    title = factory.Sequence(lambda n: f"Source document {n}")
    publisher = factory.SubFactory(PublisherFactory)
    source_url = factory.Sequence(lambda n: f"https://example.org/doc/{n}")
    published_date = dt.date(2026, 10, 15)


class ClaimFactory(factory.django.DjangoModelFactory):
    class Meta:
        model = Claim

    id = factory.Sequence(lambda n: str(1900000000000000000 + n))
    manifest = factory.SubFactory(ManifestFactory)
    text = factory.Sequence(lambda n: f"Claim number {n} states a fact.")
    self_reported = True
