"""Site-level models: newsrooms, beats, hourly editions and the site profile."""

import copy
import datetime as dt
import functools
import re

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import models
from django.urls import reverse

from . import defaults
from .fields import OrderedJSONField
from .validators import http_url

EDITION_REGEX = r"^\d{4}-\d{2}-\d{2}T\d{2}$"


_EDITION_ID = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}")


def parse_edition(value: str) -> dt.datetime:
    """The UTC hour an edition id (``YYYY-MM-DDTHH``) names; ValueError when it names none."""
    if not isinstance(value, str) or not _EDITION_ID.fullmatch(value):
        raise ValueError(f"edition {value!r} is not YYYY-MM-DDTHH")
    return _edition_hour(value)


@functools.lru_cache(maxsize=1024)  # an import reads each story's edition several times
def _edition_hour(value: str) -> dt.datetime:
    # ASCII digits in their places (the regex): the fields as strptime reads them, and
    # ValueError for a month, day or hour out of range
    return dt.datetime(int(value[:4]), int(value[5:7]), int(value[8:10]), int(value[11:13]), tzinfo=dt.UTC)


class FilesStoriesQuerySet(models.QuerySet):
    """For what stories are filed under (newsrooms, beats, editions). The stories app owns
    what "published" means; these read it from the model behind the ``stories`` relation."""

    def _stories(self):
        relation = self.model._meta.get_field("stories")
        return relation.related_model, relation.field.name

    def having_published(self):
        """Those with a published story. EXISTS, not a join and DISTINCT: one index probe
        each, whatever the archive's size."""
        story, field = self._stories()
        return self.filter(models.Exists(story._default_manager.published().filter(**{field: models.OuterRef("pk")})))

    def with_published_counts(self):
        """Each with ``published_stories`` (how many) and ``updated_at`` (the latest change
        to one of them, None when there is none)."""
        published = self._stories()[0].published_q("stories")
        return self.annotate(
            published_stories=models.Count("stories", filter=published),
            updated_at=models.Max("stories__updated_at", filter=published),
        )


class Newsroom(models.Model):
    slug = models.SlugField(max_length=100, unique=True)
    title = models.CharField(max_length=200)
    auto_publish = models.BooleanField(
        default=False, help_text="Publish writer submissions that pass every check without an editor."
    )

    objects = models.Manager.from_queryset(FilesStoriesQuerySet)()

    class Meta:
        ordering = ["title"]
        constraints = [models.CheckConstraint(condition=~models.Q(slug=""), name="newsroom_slug_not_empty")]

    def __str__(self):
        return self.title

    def get_absolute_url(self):
        return reverse("newsroom-detail", args=[self.slug])


class Beat(models.Model):
    newsroom = models.ForeignKey(Newsroom, on_delete=models.PROTECT, related_name="beats")
    slug = models.SlugField(max_length=100)
    title = models.CharField(max_length=200, blank=True)

    objects = models.Manager.from_queryset(FilesStoriesQuerySet)()

    class Meta:
        ordering = ["newsroom__title", "slug"]
        constraints = [
            models.UniqueConstraint(fields=["newsroom", "slug"], name="beat_unique_per_newsroom"),
            models.CheckConstraint(condition=~models.Q(slug=""), name="beat_slug_not_empty"),
        ]

    def __str__(self):
        return f"{self.newsroom.slug}/{self.slug}"


class EditionQuerySet(FilesStoriesQuerySet):
    def get_or_create_for(self, edition_id: str):
        return self.get_or_create(id=edition_id, defaults={"starts_at": parse_edition(edition_id)})


class Edition(models.Model):
    """An hourly edition: its id is the UTC hour, ``YYYY-MM-DDTHH``."""

    id = models.CharField(primary_key=True, max_length=13)
    starts_at = models.DateTimeField(unique=True)

    objects = models.Manager.from_queryset(EditionQuerySet)()

    class Meta:
        ordering = ["-starts_at"]
        constraints = [models.CheckConstraint(condition=models.Q(id__regex=EDITION_REGEX), name="edition_id_format")]

    def __str__(self):
        return self.id

    def save(self, *args, **kwargs):
        if self.starts_at is None:
            self.starts_at = parse_edition(self.id)
        super().save(*args, **kwargs)

    def get_absolute_url(self):
        return reverse("edition-detail", args=[self.id])

    @property
    def date(self) -> str:
        return self.id[:10]

    def clean(self):
        try:
            expected = parse_edition(self.id)
        except ValueError as exc:
            raise ValidationError({"id": str(exc)}) from exc
        if self.starts_at and self.starts_at != expected:
            raise ValidationError({"starts_at": "must be the hour the id names"})


TRUST_HELP = "trust.txt: URLs of %s, one per line."
TRUST_URL_FIELDS = ("trust_member", "trust_belongto", "trust_control", "trust_social", "trust_contact")


def _default_run_these_manifests():
    return copy.deepcopy(defaults.RUN_THESE_MANIFESTS)


def _default_sponsor():
    return copy.deepcopy(defaults.SPONSOR)


def _default_reuse():
    return copy.deepcopy(defaults.REUSE)


class SiteProfile(models.Model):
    """The one row of site-level texts that every desk/1 story carries.

    ``{site_url}`` in the reuse texts stands for ``settings.SITE_URL``.
    """

    singleton = models.BooleanField(default=True, unique=True, editable=False)
    run_these_manifests = OrderedJSONField(default=_default_run_these_manifests)
    command_one = models.TextField(default=defaults.COMMAND_ONE)
    command_all = models.TextField(default=defaults.COMMAND_ALL)
    sponsor = OrderedJSONField(
        default=_default_sponsor, null=True, blank=True, help_text="The house ad; empty for none."
    )
    disclosure = models.TextField(default=defaults.DISCLOSURE)
    reuse = OrderedJSONField(default=_default_reuse)

    # trust.txt (JournalList): one URL per line; contact also takes email addresses.
    trust_member = models.TextField(blank=True, help_text=TRUST_HELP % "associations this site is a member of")
    trust_belongto = models.TextField(blank=True, help_text=TRUST_HELP % "organisations this site belongs to")
    trust_control = models.TextField(blank=True, help_text=TRUST_HELP % "other sites this organisation controls")
    trust_social = models.TextField(blank=True, help_text=TRUST_HELP % "the site's own social media accounts")
    trust_contact = models.TextField(
        blank=True, help_text="trust.txt contact=: contact pages (URLs) or email addresses, one per line."
    )
    trust_datatrainingallowed = models.CharField(
        max_length=3,
        blank=True,
        choices=[("", "Not stated"), ("yes", "yes"), ("no", "no")],
        help_text="trust.txt datatrainingallowed=: may the site's content train AI models.",
    )

    # The newsroom's policies (Markdown), each a public page under /policies/ when not empty.
    publishing_principles = models.TextField(blank=True, default=defaults.PUBLISHING_PRINCIPLES)
    corrections_policy = models.TextField(blank=True, default=defaults.CORRECTIONS_POLICY)
    verification_policy = models.TextField(
        blank=True, help_text="Shown after the shipped explanation of the checks every story passes."
    )
    ownership_funding = models.TextField(blank=True, help_text="Who owns and funds the newsroom (Markdown).")
    masthead = models.TextField(blank=True, help_text="The people responsible for the newsroom (Markdown).")
    logo_url = models.URLField(
        max_length=1000, blank=True, validators=[http_url], help_text="The site's logo; empty for the shipped one."
    )
    default_image_url = models.URLField(
        max_length=1000,
        blank=True,
        validators=[http_url],
        help_text="The image shared for a story without one (og:image, JSON-LD); empty for the shipped one.",
    )

    class Meta:
        constraints = [
            models.CheckConstraint(condition=models.Q(singleton=True), name="site_profile_singleton"),
            models.CheckConstraint(condition=~models.Q(disclosure=""), name="site_profile_disclosure"),
            models.CheckConstraint(
                condition=models.Q(trust_datatrainingallowed__in=["", "yes", "no"]),
                name="site_profile_datatrainingallowed",
            ),
        ]

    def __str__(self):
        return "Site profile"

    def clean(self):
        from .validators import check_json_urls, check_url_lines

        for field in ("sponsor", "run_these_manifests", "reuse"):
            check_json_urls(field, getattr(self, field))
        for field in TRUST_URL_FIELDS:
            check_url_lines(field, getattr(self, field), emails=field == "trust_contact")

    @classmethod
    def load(cls) -> "SiteProfile":
        obj, _ = cls.objects.get_or_create(singleton=True)
        return obj

    @classmethod
    def current(cls) -> "SiteProfile":
        """The stored profile, or the defaults when none is stored yet: a read only (so
        that a public page reads from a replica), never a write."""
        return cls.objects.filter(singleton=True).first() or cls()

    def reuse_for(self, canonical_url: str | None = None) -> dict:
        out = {
            k: v.replace("{site_url}", settings.SITE_URL) if isinstance(v, str) else v for k, v in self.reuse.items()
        }
        if canonical_url is not None:
            out["canonical_url"] = canonical_url
        return out

    def run_these_manifests_for(self, manifest_ids: list[str]) -> dict:
        base = _json_copy(self.run_these_manifests)
        out = {}
        for key in ("title", "summary"):
            if key in base:
                out[key] = base.pop(key)
        out["manifest_ids"] = list(manifest_ids)
        out.update(base)
        template = base.get("request", {}).get("url_template", "")
        # Placeholders are replaced, not str.format()ted: shell commands edited in the admin
        # may hold braces of their own (``${SYNORB_KEY}``).
        one = _fill(self.command_one, url=template.replace("{manifest_id}", manifest_ids[0])) if manifest_ids else ""
        out["commands"] = {
            "one": one,
            "all": _fill(
                self.command_all, ids=" ".join(manifest_ids), url_var=template.replace("{manifest_id}", "$id")
            ),
        }
        return out


def _json_copy(value):
    """A deep copy of JSON data (dicts, lists, scalars), several times cheaper than
    ``copy.deepcopy``, which a story list pays per story; anything else deep-copied."""
    if type(value) is dict:
        return {k: _json_copy(v) for k, v in value.items()}
    if type(value) is list:
        return [_json_copy(v) for v in value]
    if value is None or type(value) in (str, int, float, bool):
        return value
    return copy.deepcopy(value)


def _fill(template: str, **values: str) -> str:
    for key, value in values.items():
        template = template.replace("{" + key + "}", value)
    return template
