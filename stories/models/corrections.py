"""Corrections, clarifications and updates: append-only, written only by an editor's action."""

from django.conf import settings
from django.db import models
from django.db.models import Q


class AppendOnlyError(Exception):
    pass


class CorrectionQuerySet(models.QuerySet):
    def update(self, **kwargs):
        raise AppendOnlyError("corrections are append-only")

    def delete(self):
        raise AppendOnlyError("corrections are append-only")


class Correction(models.Model):
    """A correction, clarification or update. Append-only: never edited, never deleted."""

    class Kind(models.TextChoices):
        CORRECTION = "correction", "Correction"
        CLARIFICATION = "clarification", "Clarification"
        UPDATE = "update", "Update"

    story = models.ForeignKey("stories.Story", on_delete=models.PROTECT, related_name="corrections", db_index=False)
    corrected_at = models.DateTimeField()
    kind = models.CharField(max_length=16, choices=Kind.choices)
    text = models.TextField()
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True)

    objects = models.Manager.from_queryset(CorrectionQuerySet)()

    class Meta:
        ordering = ["corrected_at", "id"]
        indexes = [
            models.Index(fields=["-corrected_at", "-id"], name="correction_latest"),  # /corrections/ pages
            models.Index(fields=["story"], name="correction_story"),
        ]
        constraints = [
            models.CheckConstraint(
                condition=Q(kind__in=["correction", "clarification", "update"]), name="correction_kind_valid"
            ),
            models.CheckConstraint(condition=~Q(text=""), name="correction_text_not_empty"),
        ]

    def __str__(self):
        return f"{self.get_kind_display()} of {self.corrected_at:%Y-%m-%d %H:%M}"

    def save(self, *args, **kwargs):
        if self.pk is not None:
            raise AppendOnlyError("corrections are append-only: record a new one instead")
        super().save(*args, **kwargs)

    def delete(self, *args, **kwargs):
        raise AppendOnlyError("corrections are append-only")
