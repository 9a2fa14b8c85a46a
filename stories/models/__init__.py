"""A story and its parts. The desk/1 format that reads and writes them is ``stories.desk``."""

import secrets
import time

from django.conf import settings
from django.db import models
from django.db.models import OuterRef, Prefetch, Q, Subquery, prefetch_related_objects
from django.db.models.functions import Coalesce, Greatest
from django.urls import reverse

from manifests.models import Claim, Manifest
from newsroom.fields import OrderedJSONField
from newsroom.models import Beat, Edition, Newsroom
from newsroom.validators import http_url

from .autosave import Autosave  # noqa: F401
from .records import (  # noqa: F401
    AuditEntry,
    CheckResult,
    ReviewStatus,
    Revision,
    StoryFingerprint,
    StorySearch,
    live_entries_prefetch,
)

SLUG_REGEX = r"^[a-z0-9]+(-[a-z0-9]+)*$"


def new_story_id() -> str:
    """A 19-digit string id, time-ordered like the demo story's manifest ids (ms clock + random bits)."""
    return str((int(time.time() * 1000) << 22) | secrets.randbits(22))


class StoryQuerySet(models.QuerySet):
    def published(self):
        return self.filter(Story.published_q())

    def in_newsroom(self, newsroom):
        return self.filter(newsroom=newsroom)

    def in_edition(self, edition):
        return self.filter(edition=edition)

    def newest_first(self):
        return self.order_by("-published_at", "-id")

    def with_last_change(self):
        """Each story's ``last_change``: the last change a reader can see, the latest of its
        publication, its revision (``revised_at``) and its latest correction. A subquery per
        story, not ``Max()`` over a join: a GROUP BY would aggregate every story before a
        LIMIT (seconds at a million stories)."""
        latest = Correction.objects.filter(story=OuterRef("pk")).order_by("-corrected_at").values("corrected_at")[:1]
        return self.annotate(
            last_change=Greatest(
                "published_at",
                Coalesce("revised_at", "published_at"),
                Coalesce(Subquery(latest), "published_at"),
            )
        )

    def with_everything(self):
        """Everything a rendering of the story reads, in a fixed number of queries."""
        return self._with_parts(_cites().prefetch_related(Prefetch("claims", queryset=_cite_claims())))

    def loaded(self, pk):
        """The story ``pk`` with everything a rendering reads, as ``with_everything()`` loads
        it, or None when it is not in this queryset: in eleven queries rather than twelve, as
        the claims of all its cites, its key facts' and its paragraphs', come in one query
        (``with_everything()`` prefetches them per owner kind)."""
        story = self._with_parts(_cites()).filter(pk=pk).first()
        if story is None:
            return None
        owners = [*story.key_facts.all(), *(p for s in story.sections.all() for p in s.paragraphs.all())]
        cites = [c for owner in owners for c in owner.cites.all()]
        prefetch_related_objects(cites, Prefetch("claims", queryset=_cite_claims()))
        return story

    def _with_parts(self, cites):
        return self.select_related("newsroom", "beat", "edition", "created_by").prefetch_related(
            Prefetch("key_facts", queryset=KeyFact.objects.prefetch_related(Prefetch("cites", queryset=cites))),
            Prefetch(
                "sections",
                queryset=Section.objects.prefetch_related(
                    Prefetch(
                        "paragraphs", queryset=Paragraph.objects.prefetch_related(Prefetch("cites", queryset=cites))
                    )
                ),
            ),
            "images",
            "related_links",
            Prefetch("corrections", queryset=Correction.objects.order_by("corrected_at", "id")),
            live_entries_prefetch(),  # how the live version was published: its disclosure
        )

    def search(self, query: str):
        """Stories matching ``query`` in headline, dek or paragraphs, best first: ranked
        full-text search on PostgreSQL (the GIN-indexed ``StorySearch`` document the commit
        step keeps for every published story), every word as a substring elsewhere."""
        from django.db import connection

        if connection.vendor == "postgresql":
            return self._search_postgres(query)
        matches = self
        for word in query.split()[:10]:
            in_body = Paragraph.objects.filter(section__story=models.OuterRef("pk"), markdown__icontains=word)
            matches = matches.filter(Q(headline__icontains=word) | Q(dek__icontains=word) | models.Exists(in_body))
        return matches.newest_first()

    def _search_postgres(self, query: str):
        from django.contrib.postgres.search import SearchQuery, SearchRank

        search_query = SearchQuery(query, search_type="websearch", config="english")
        return (
            self.filter(search__document=search_query)
            .annotate(search_rank=SearchRank(models.F("search__document"), search_query))
            .order_by("-search_rank", "-published_at", "-id")
        )


def _cites():
    return Cite.objects.select_related("manifest__publisher")


def _cite_claims():
    return CiteClaim.objects.select_related("claim").order_by("position", "id")


class Story(models.Model):
    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        SCHEDULED = "scheduled", "Scheduled"
        PUBLISHED = "published", "Published"

    Review = ReviewStatus

    id = models.CharField(primary_key=True, max_length=64, default=new_story_id)
    slug = models.SlugField(max_length=200, db_index=False)  # indexed in Meta.indexes
    edition = models.ForeignKey(Edition, on_delete=models.PROTECT, related_name="stories", db_index=False)
    edition_date = models.DateField(editable=False, help_text="The edition's date: slugs are unique per date.")
    newsroom = models.ForeignKey(Newsroom, on_delete=models.PROTECT, related_name="stories")
    beat = models.ForeignKey(Beat, on_delete=models.PROTECT, related_name="stories", null=True, blank=True)
    audience = models.SlugField(max_length=100, blank=True, db_index=False)
    angle = models.TextField(blank=True)
    headline = models.CharField(max_length=500)
    dek = models.TextField(blank=True)
    trust = models.SlugField(
        max_length=50, default="reported", db_index=False, help_text="The editorial label, e.g. reported."
    )
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.DRAFT)
    published_at = models.DateTimeField(null=True, blank=True)
    scheduled_for = models.DateTimeField(null=True, blank=True)
    unresolved = OrderedJSONField(default=list, blank=True)
    decision_card = OrderedJSONField(default=dict, blank=True)
    writer_agent = models.CharField(max_length=200, blank=True)
    writer_run_id = models.CharField(max_length=200, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="The editor or writer who created the story in the admin.",
    )
    created_by_partner = models.SlugField(
        max_length=100,
        blank=True,
        db_index=False,
        help_text="The syndication partner whose API key submitted the story (its slug).",
    )
    revised_at = models.DateTimeField(
        null=True,
        blank=True,
        help_text="When published changes last reached readers; published_at keeps the first publication.",
    )
    draft_of = models.ForeignKey(
        "self",
        on_delete=models.CASCADE,
        null=True,
        blank=True,
        related_name="pending_drafts",
        db_index=False,  # story_one_pending_draft indexes it
        help_text="For pending changes to a live story: the live story they will replace when published.",
    )
    version = models.PositiveIntegerField(default=1, help_text="Bumped by every save, publish and correction.")
    review_status = models.CharField(max_length=16, choices=Review.choices, default=Review.NONE, blank=True)
    review_note = models.TextField(blank=True, help_text="The editor's note when a draft is sent back to its writer.")
    review_changed_at = models.DateTimeField(null=True, blank=True, help_text="When the review status last changed.")
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True, db_index=True)

    objects = models.Manager.from_queryset(StoryQuerySet)()

    class Meta:
        ordering = ["-edition_id", "slug"]
        verbose_name_plural = "stories"
        constraints = [
            models.UniqueConstraint(
                fields=["edition_date", "slug"], condition=Q(draft_of__isnull=True), name="story_slug_unique_per_date"
            ),
            models.UniqueConstraint(fields=["draft_of"], name="story_one_pending_draft"),
            models.CheckConstraint(
                condition=Q(draft_of__isnull=True) | Q(status="draft"), name="story_pending_draft_is_draft"
            ),
            models.CheckConstraint(condition=Q(slug__regex=SLUG_REGEX), name="story_slug_format"),
            models.CheckConstraint(
                condition=Q(status__in=["draft", "scheduled", "published"]), name="story_status_valid"
            ),
            models.CheckConstraint(
                condition=~Q(status="published") | Q(published_at__isnull=False), name="story_published_has_time"
            ),
            models.CheckConstraint(
                condition=~Q(status="scheduled") | Q(scheduled_for__isnull=False), name="story_scheduled_has_time"
            ),
            models.CheckConstraint(condition=Q(version__gte=1), name="story_version_positive"),
            *ReviewStatus.constraints(),
        ]
        indexes = [
            models.Index(fields=["status", "newsroom", "-published_at"], name="story_newsroom_latest"),
            models.Index(fields=["status", "updated_at", "id"], name="story_updated_cursor"),
            # the home page and the feeds read the newest stories of all newsrooms together
            models.Index(fields=["status", "-published_at"], name="story_latest"),
            # Text keys are indexed here rather than with db_index, which on PostgreSQL adds a
            # second, varchar_pattern_ops index for LIKE that no query of these columns uses
            # (and that every write of a row has to update).
            models.Index(fields=["edition"], name="story_edition"),
            models.Index(fields=["slug"], name="story_slug"),
        ]
        permissions = [
            ("publish_story", "Can publish, unpublish and schedule stories"),
            ("override_checks", "Can publish a story whose checks failed, with a reason"),
        ]

    def __str__(self):
        return self.headline

    def save(self, *args, **kwargs):
        if self.edition_id:
            self.edition_date = self.edition_id[:10]
        super().save(*args, **kwargs)

    def get_absolute_url(self):
        return self.path

    @property
    def is_published(self) -> bool:
        return self.status == self.Status.PUBLISHED

    @staticmethod
    def published_q(prefix: str = "") -> Q:
        """The condition ``published()`` filters on, for a query through a relation:
        ``Correction.objects.filter(Story.published_q("story"))``."""
        return Q(**{f"{prefix}__status" if prefix else "status": Story.Status.PUBLISHED})

    @property
    def path(self) -> str:
        return reverse("story-detail", args=[self.edition_id[:10], self.slug])

    @property
    def url(self) -> str:
        return settings.SITE_URL + self.path


class Section(models.Model):
    story = models.ForeignKey(Story, on_delete=models.CASCADE, related_name="sections", db_index=False)
    position = models.PositiveIntegerField(default=0)
    heading = models.CharField(max_length=500)

    class Meta:
        ordering = ["position", "id"]
        indexes = [models.Index(fields=["story"], name="section_story")]

    def __str__(self):
        return self.heading


class Paragraph(models.Model):
    section = models.ForeignKey(Section, on_delete=models.CASCADE, related_name="paragraphs")
    position = models.PositiveIntegerField(default=0)
    markdown = models.TextField()
    # Sanitised HTML of the Markdown, stored by the commit step (pages render no Markdown).
    html = models.TextField(blank=True, default="", editable=False)

    class Meta:
        ordering = ["position", "id"]

    def __str__(self):
        return self.markdown[:80]

    def save(self, *args, **kwargs):
        """Saved alone (the admin's form), the Markdown may be new: the commit step renders it again."""
        if (fields := kwargs.get("update_fields")) is None or "markdown" in fields:
            self.html = ""
            kwargs["update_fields"] = None if fields is None else {*fields, "html"}
        super().save(*args, **kwargs)

    @property
    def story(self) -> Story:
        return self.section.story


class KeyFact(models.Model):
    story = models.ForeignKey(Story, on_delete=models.CASCADE, related_name="key_facts", db_index=False)
    position = models.PositiveIntegerField(default=0)
    text = models.TextField()
    declared_self_reported = models.BooleanField(
        null=True, blank=True, help_text="The flag as imported; used only while a cited claim is a stub."
    )

    class Meta:
        ordering = ["position", "id"]
        indexes = [models.Index(fields=["story"], name="keyfact_story")]

    def __str__(self):
        return self.text[:80]


class CiteQuerySet(models.QuerySet):
    def citing(self, *, manifest=None, claim=None):
        """The cites of ``manifest`` and/or of ``claim`` (an object, an id, or a queryset of
        claims), each with ``story_id``: the story of the paragraph or key fact it belongs to."""
        cites = self
        if manifest is not None:
            cites = cites.filter(manifest=manifest)
        if isinstance(claim, models.QuerySet):
            cites = cites.filter(claims__claim__in=claim)
        elif claim is not None:
            cites = cites.filter(claims__claim=claim)
        return cites.annotate(story_id=Coalesce("paragraph__section__story_id", "key_fact__story_id"))

    def of_published_stories(self):
        return self.filter(Story.published_q("paragraph__section__story") | Story.published_q("key_fact__story"))


class Cite(models.Model):
    """A paragraph's or key fact's cite: one manifest and an ordered list of its claims."""

    paragraph = models.ForeignKey(Paragraph, on_delete=models.CASCADE, null=True, blank=True, related_name="cites")
    key_fact = models.ForeignKey(KeyFact, on_delete=models.CASCADE, null=True, blank=True, related_name="cites")
    position = models.PositiveIntegerField(default=0)
    manifest = models.ForeignKey(Manifest, on_delete=models.PROTECT, related_name="cites", db_index=False)

    objects = models.Manager.from_queryset(CiteQuerySet)()

    class Meta:
        ordering = ["position", "id"]
        constraints = [
            models.CheckConstraint(
                condition=Q(paragraph__isnull=False, key_fact__isnull=True)
                | Q(paragraph__isnull=True, key_fact__isnull=False),
                name="cite_has_one_owner",
            )
        ]
        indexes = [models.Index(fields=["manifest"], name="cite_manifest")]

    def __str__(self):
        return f"m:{self.manifest_id}"

    @property
    def story(self) -> Story:
        return self.paragraph.story if self.paragraph_id else self.key_fact.story


class CiteClaim(models.Model):
    cite = models.ForeignKey(Cite, on_delete=models.CASCADE, related_name="claims", db_index=False)  # cite_claim_once
    position = models.PositiveIntegerField(default=0)
    claim = models.ForeignKey(Claim, on_delete=models.PROTECT, related_name="citations", db_index=False)

    class Meta:
        ordering = ["position", "id"]
        constraints = [models.UniqueConstraint(fields=["cite", "claim"], name="cite_claim_once")]
        indexes = [models.Index(fields=["claim"], name="citeclaim_claim")]

    def __str__(self):
        return self.claim_id

    @property
    def story(self) -> Story:
        return self.cite.story


class Image(models.Model):
    story = models.ForeignKey(Story, on_delete=models.CASCADE, related_name="images", db_index=False)
    position = models.PositiveIntegerField(default=0)
    url = models.URLField(max_length=1000, validators=[http_url])
    alt = models.CharField(max_length=1000, help_text="Required: what the image shows, for readers who cannot see it.")
    caption = models.TextField(blank=True)
    credit = models.CharField(max_length=500, blank=True)
    width = models.PositiveIntegerField(null=True, blank=True)
    height = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["position", "id"]
        constraints = [models.CheckConstraint(condition=~Q(alt=""), name="image_alt_required")]
        indexes = [models.Index(fields=["story"], name="image_story")]

    def __str__(self):
        return self.alt


class RelatedLink(models.Model):
    story = models.ForeignKey(Story, on_delete=models.CASCADE, related_name="related_links", db_index=False)
    position = models.PositiveIntegerField(default=0)
    url = models.URLField(max_length=1000, validators=[http_url])
    headline = models.CharField(max_length=500)
    slug = models.SlugField(max_length=200, blank=True, db_index=False)  # never looked up

    class Meta:
        ordering = ["position", "id"]
        indexes = [models.Index(fields=["story"], name="relatedlink_story")]

    def __str__(self):
        return self.headline


# Corrections live in their own module; imported last because Correction refers to Story.
from .corrections import AppendOnlyError, Correction, CorrectionQuerySet  # noqa: E402, F401
