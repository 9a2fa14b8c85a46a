"""Sources and their claims. Knows nothing of stories."""

from typing import NamedTuple

from django.core.exceptions import EmptyResultSet
from django.db import connections, models
from django.urls import reverse

from newsroom.validators import http_url

ID_REGEX = r"^[0-9A-Za-z_-]+$"


class Publisher(models.Model):
    """A source, named by its ``source_name`` (``huggingface-daily-papers``)."""

    name = models.CharField(max_length=200, unique=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.CheckConstraint(condition=~models.Q(name=""), name="publisher_name_not_empty")]

    def __str__(self):
        return self.name


class ManifestQuerySet(models.QuerySet):
    def with_claims(self):
        return self.select_related("publisher").prefetch_related("claims")

    def search(self, term: str):
        return self.filter(
            models.Q(id__startswith=term) | models.Q(title__icontains=term) | models.Q(publisher__name__icontains=term)
        )


class Manifest(models.Model):
    """One source document, split into claims. Ids are strings (19 digits), never numbers."""

    id = models.CharField(primary_key=True, max_length=64)
    title = models.CharField(max_length=500)
    publisher = models.ForeignKey(Publisher, on_delete=models.PROTECT, related_name="manifests")
    source_url = models.URLField(max_length=1000, validators=[http_url])
    published_date = models.DateField()
    fetched_at = models.DateTimeField(null=True, blank=True, help_text="When the provider was last asked for it.")
    updated_at = models.DateTimeField(auto_now=True)

    objects = models.Manager.from_queryset(ManifestQuerySet)()

    class Meta:
        ordering = ["-published_date", "id"]
        constraints = [models.CheckConstraint(condition=models.Q(id__regex=ID_REGEX), name="manifest_id_format")]

    def __str__(self):
        return f"{self.title} ({self.id})"

    def get_absolute_url(self):
        return reverse("manifest-detail", args=[self.id])

    @property
    def source_name(self) -> str:
        return self.publisher.name


class ClaimRow(NamedTuple):
    """What the checks and the story writer read of a claim: a row, not a model instance
    (a batch of stories cites tens of thousands of claims)."""

    id: str
    manifest_id: str
    text: str
    has_text: bool
    self_reported: bool | None

    @classmethod
    def stub(cls, claim_id: str, manifest_id: str) -> "ClaimRow":
        """A claim known by id only, as ``Claim`` stores a stub."""
        return cls(claim_id, manifest_id, "", False, None)

    @property
    def self_reported_or_unknown(self) -> bool | None:
        return self.self_reported if self.has_text else None


class ClaimQuerySet(models.QuerySet):
    def stubs(self):
        return self.filter(has_text=False)

    def rows(self) -> dict[str, ClaimRow]:
        """Claim id -> ``ClaimRow``, in one query. On PostgreSQL the rows come straight
        from the cursor (the same SQL): its text and boolean columns need none of the
        ORM's per-row conversions, which took as long as the query's own reading for the
        ten thousand claims a bulk import's run cites. Elsewhere (SQLite returns booleans
        as integers) the ORM reads them."""
        query = self.order_by().values_list("id", "manifest_id", "text", "has_text", "self_reported")
        connection = connections[self.db]
        if connection.vendor != "postgresql":
            return {row[0]: ClaimRow._make(row) for row in query}
        try:
            sql, params = query.query.sql_with_params()
        except EmptyResultSet:  # an empty ``id__in``: nothing to read
            return {}
        with connection.cursor() as cursor:
            cursor.execute(sql, params)
            return {row[0]: ClaimRow._make(row) for row in cursor.fetchall()}

    def self_reported_flags(self) -> dict[str, bool | None]:
        """Claim id -> ``self_reported_or_unknown``."""
        return {c.id: c.self_reported_or_unknown for c in self.only("id", "self_reported", "has_text")}


class Claim(models.Model):
    """A claim of a manifest. A stub (``has_text=False``) is known by id only, until its
    manifest is imported or fetched."""

    id = models.CharField(primary_key=True, max_length=64)
    manifest = models.ForeignKey(Manifest, on_delete=models.CASCADE, related_name="claims")
    position = models.PositiveIntegerField(default=0)
    text = models.TextField(blank=True)
    has_text = models.BooleanField(default=True)
    self_reported = models.BooleanField(
        null=True, help_text="Whether the source reports this about itself; unknown for stubs."
    )

    objects = models.Manager.from_queryset(ClaimQuerySet)()

    class Meta:
        ordering = ["manifest_id", "position", "id"]
        constraints = [
            models.CheckConstraint(condition=models.Q(id__regex=ID_REGEX), name="claim_id_format"),
            models.CheckConstraint(
                condition=models.Q(has_text=False) | ~models.Q(text=""), name="claim_text_unless_stub"
            ),
        ]
        indexes = [models.Index(fields=["manifest", "position"])]

    def __str__(self):
        return self.id if not self.has_text else f"{self.id}: {self.text[:60]}"

    @property
    def self_reported_or_unknown(self) -> bool | None:
        """``self_reported``, or None while the claim is a stub: its flag is not known yet."""
        return self.self_reported if self.has_text else None
