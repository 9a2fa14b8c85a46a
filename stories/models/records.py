"""What is kept about a story besides its content: its revisions, audit entries, check
results and fingerprint."""

from django.conf import settings
from django.contrib.postgres.search import SearchVectorField
from django.db import models
from django.db.models import Exists, OuterRef, Prefetch, Q, Subquery

from newsroom.fields import OrderedJSONField


class Revision(models.Model):
    """The story's desk/1 JSON as of one save."""

    story = models.ForeignKey(
        "stories.Story", on_delete=models.CASCADE, related_name="revisions", db_index=False
    )  # revision_once_per_version indexes it
    version = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    data = OrderedJSONField()

    class Meta:
        ordering = ["-version"]
        constraints = [models.UniqueConstraint(fields=["story", "version"], name="revision_once_per_version")]

    def __str__(self):
        return f"{self.story_id} v{self.version}"


class ReviewStatus(models.TextChoices):
    """Where a draft stands between its writer and an editor (``stories.actions.review``)."""

    NONE = "", "Not submitted"
    IN_REVIEW = "in_review", "In review"
    SENT_BACK = "sent_back", "Sent back"

    @classmethod
    def constraints(cls) -> list:
        """The story's review fields, kept consistent by the database: a known status, a
        note on every draft sent back, a time on every status set."""
        Q = models.Q
        return [
            models.CheckConstraint(condition=Q(review_status__in=cls.values), name="story_review_status_valid"),
            models.CheckConstraint(
                condition=~Q(review_status="sent_back") | ~Q(review_note=""), name="story_sent_back_has_note"
            ),
            models.CheckConstraint(
                condition=Q(review_status="") | Q(review_changed_at__isnull=False), name="story_review_has_time"
            ),
        ]


class AuditAction(models.TextChoices):
    """What an audit row records; a database constraint keeps the column to these."""

    CREATE = "create", "Created"
    EDIT = "edit", "Edited"
    IMPORT = "import", "Imported"
    RESTORE = "restore", "Restored from a backup"
    DEMO = "loaddemo", "Loaded as demo content"
    SUBMISSION = "submission", "Submitted through the API"
    PUBLISH = "publish", "Published"
    PUBLISH_CHANGES = "publish_changes", "Changes published"
    DISCARD_CHANGES = "discard_changes", "Changes discarded"
    UNPUBLISH = "unpublish", "Unpublished"
    SCHEDULE = "schedule", "Scheduled"
    UNSCHEDULE = "unschedule", "Schedule cancelled"
    CORRECT = "correct", "Correction recorded"
    SOURCE_CHANGED = "source_changed", "A cited source changed"
    SUBMIT_REVIEW = "submit_review", "Submitted for review"
    SEND_BACK = "send_back", "Sent back to the writer"


class AuditEntry(models.Model):
    """One row per side-effecting action on a story (publish, unpublish, correct, import...)."""

    Action = AuditAction

    story = models.ForeignKey("stories.Story", on_delete=models.CASCADE, related_name="audit_entries", db_index=False)
    action = models.CharField(max_length=32, choices=Action.choices)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    version = models.PositiveIntegerField()
    reason = models.TextField(blank=True)
    details = OrderedJSONField(default=dict, blank=True)

    class Meta:
        ordering = ["-created_at", "-id"]
        verbose_name_plural = "audit entries"
        indexes = [models.Index(fields=["story"], name="auditentry_story")]
        constraints = [
            models.CheckConstraint(condition=models.Q(action__in=AuditAction.values), name="audit_action_valid"),
        ]

    def __str__(self):
        return f"{self.action} {self.story_id} v{self.version}"


class CheckResult(models.Model):
    """The rubric of one run of the publish checks on a stored story."""

    story = models.ForeignKey("stories.Story", on_delete=models.CASCADE, related_name="check_results", db_index=False)
    version = models.PositiveIntegerField()
    created_at = models.DateTimeField(auto_now_add=True)
    passed = models.BooleanField()
    score = models.FloatField()
    rubric = OrderedJSONField()

    class Meta:
        ordering = ["-created_at", "-id"]
        get_latest_by = "created_at"
        indexes = [models.Index(fields=["story"], name="checkresult_story")]

    def __str__(self):
        return f"{self.story_id} v{self.version}: {'passed' if self.passed else 'failed'} ({self.score:.2f})"


class StoryFingerprint(models.Model):
    """What ``not_a_repeat`` compares: a MinHash signature of the text and the cited claim ids.
    Kept up to date on every write of a story, so a check reads no other story's text."""

    story = models.OneToOneField(
        "stories.Story", on_delete=models.CASCADE, primary_key=True, related_name="fingerprint"
    )
    minhash = OrderedJSONField(default=list)
    claim_ids = OrderedJSONField(default=list)
    updated_at = models.DateTimeField(auto_now=True)

    def __str__(self):
        return f"fingerprint of {self.story_id}"


class StorySearch(models.Model):
    """A published story's words as PostgreSQL's full-text search reads them: headline
    (weight A), dek (B) and paragraphs (C), English configuration. Kept by the commit step in
    the action's transaction (``stories.search_index``) and GIN-indexed on PostgreSQL, so a
    search reads the index, never the paragraphs. Unused on SQLite."""

    story = models.OneToOneField("stories.Story", on_delete=models.CASCADE, primary_key=True, related_name="search")
    document = SearchVectorField()

    def __str__(self):
        return f"search document of {self.story_id}"


# The actions after which a story may be live with that version's content.
LIVE_ACTIONS = (
    AuditAction.PUBLISH,
    AuditAction.PUBLISH_CHANGES,
    AuditAction.IMPORT,
    AuditAction.RESTORE,
    AuditAction.DEMO,
    AuditAction.SUBMISSION,
)
LIVE_ENTRIES = "live_entries"


def live_entries_prefetch() -> Prefetch:
    """A story's audit rows its live version may come from (``LIVE_ACTIONS``), newest
    first, each with the rubric recorded for the version it made live and whether a person
    had edited the story by then: one query for any number of stories (``stories.publication``)."""
    # The rubric of the checks run on this very content, recorded by the action before its
    # row: at the version it made live (publishing the changes of a pending draft records the
    # draft's rubric so), else at the version it bumped from (publishing the stored story
    # checks it as stored). A run of the checks on the live story's previous content at that
    # version ("Run checks" before the changes were published) never stands for it, nor one
    # recorded after the row, nor an earlier publication's.
    rubric = (
        CheckResult.objects.filter(
            story=OuterRef("story"),
            created_at__lte=OuterRef("created_at"),
            version__gte=OuterRef("version") - 1,
            version__lte=OuterRef("version"),
        )
        .order_by("-version", "-created_at", "-id")
        .values("rubric")[:1]
    )
    # A person edited the story: an edit of it, or published changes whose text people
    # wrote (their edits were recorded on the pending draft, which goes once published).
    changes_by_people = Q(action=AuditAction.PUBLISH_CHANGES, details__contains='"text_changed": true') & ~Q(
        details__contains='"edited_by": []'
    )
    edited = AuditEntry.objects.filter(
        Q(action=AuditAction.EDIT, user__isnull=False) | changes_by_people,
        story=OuterRef("story"),
        created_at__lte=OuterRef("created_at"),
    )
    entries = (
        AuditEntry.objects.filter(action__in=LIVE_ACTIONS)
        .select_related("user")
        .annotate(recorded_rubric=Subquery(rubric, output_field=OrderedJSONField()), edited_by_people=Exists(edited))
        .order_by("-created_at", "-id")
    )
    return Prefetch("audit_entries", queryset=entries, to_attr=LIVE_ENTRIES)
