"""Partners, their API keys and webhooks, and the webhook outbox."""

import hashlib
import secrets
import uuid

from django.db import DEFAULT_DB_ALIAS, IntegrityError, models, transaction
from django.db.models import F, Q
from django.utils import timezone

from .webhook_urls import validate_webhook_url

KEY_PREFIX = "hc"  # keys read "hc_<prefix>_<secret>" so a leaked one is recognisable in a scan


def hash_secret(token: str) -> str:
    """SHA-256 of a key. Keys are 256-bit random tokens, so a fast hash is enough: there is
    nothing to brute-force that a slow hash would protect."""
    return hashlib.sha256(token.encode()).hexdigest()


def new_webhook_secret() -> str:
    return "whsec_" + secrets.token_urlsafe(32)


class Partner(models.Model):
    name = models.CharField(max_length=200)
    slug = models.SlugField(max_length=100, unique=True)
    active = models.BooleanField(default=True, help_text="An inactive partner's keys are refused.")
    contact = models.CharField(max_length=300, blank=True, help_text="Who to write to about this integration.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["name"]
        constraints = [models.CheckConstraint(condition=~Q(slug=""), name="partner_slug_not_empty")]

    def __str__(self):
        return self.name


class ApiKeyQuerySet(models.QuerySet):
    def usable(self):
        return self.filter(revoked_at__isnull=True, partner__active=True)


class ApiKey(models.Model):
    """A partner's key. Only its prefix (the visible id) and the SHA-256 of the whole key are
    kept: the key itself is shown once, when it is made."""

    class Scope(models.TextChoices):
        READ = "read", "Read published content"
        WRITER = "writer", "Read, and submit stories and manifests"

    partner = models.ForeignKey(Partner, on_delete=models.CASCADE, related_name="keys")
    name = models.CharField(max_length=200, blank=True, help_text="What the key is for, e.g. 'production poller'.")
    prefix = models.CharField(max_length=16, unique=True, editable=False)
    hashed_secret = models.CharField(max_length=64, editable=False)
    scope = models.CharField(max_length=8, choices=Scope.choices, default=Scope.READ)
    created_at = models.DateTimeField(auto_now_add=True)
    revoked_at = models.DateTimeField(null=True, blank=True, editable=False)
    last_used_at = models.DateTimeField(null=True, blank=True, editable=False)

    objects = ApiKeyQuerySet.as_manager()

    class Meta:
        ordering = ["partner__name", "-created_at"]
        verbose_name = "API key"
        constraints = [models.CheckConstraint(condition=Q(scope__in=["read", "writer"]), name="apikey_scope_valid")]

    def __str__(self):
        return f"{self.partner} {KEY_PREFIX}_{self.prefix}… ({self.scope})"

    @classmethod
    def issue(cls, *, partner: Partner, scope: str = Scope.READ, name: str = "") -> tuple["ApiKey", str]:
        """A new key for ``partner``: the saved row and the plaintext key (shown once)."""
        key = cls(partner=partner, scope=scope, name=name)
        plaintext = key.set_new_secret()
        key.save()
        return key, plaintext

    def set_new_secret(self) -> str:
        self.prefix = secrets.token_hex(6)
        plaintext = f"{KEY_PREFIX}_{self.prefix}_{secrets.token_urlsafe(32)}"
        self.hashed_secret = hash_secret(plaintext)
        return plaintext

    @property
    def is_active(self) -> bool:
        return self.revoked_at is None

    @property
    def can_write(self) -> bool:
        return self.scope == self.Scope.WRITER

    def revoke(self) -> None:
        if self.revoked_at is None:
            self.revoked_at = timezone.now()
            self.save(update_fields=["revoked_at"])


class ApiKeyUsage(models.Model):
    """Requests made with a key, per UTC day."""

    key = models.ForeignKey(ApiKey, on_delete=models.CASCADE, related_name="usage")
    day = models.DateField()
    count = models.PositiveBigIntegerField(default=0)

    class Meta:
        ordering = ["-day"]
        constraints = [models.UniqueConstraint(fields=["key", "day"], name="apikey_usage_once_per_day")]

    def __str__(self):
        return f"{self.key_id} {self.day}: {self.count}"

    @classmethod
    def count_request(cls, key_id: int, day, *, n: int = 1, using: str = DEFAULT_DB_ALIAS) -> None:
        """Add ``n`` to the day's count, atomically (an UPDATE ... SET count = count + n)."""
        rows = cls.objects.using(using)
        if rows.filter(key_id=key_id, day=day).update(count=F("count") + n):
            return
        try:
            with transaction.atomic(using=using):
                rows.create(key_id=key_id, day=day, count=n)
        except IntegrityError:
            # Another request created the row between our UPDATE and INSERT.
            rows.filter(key_id=key_id, day=day).update(count=F("count") + n)


class WebhookEndpoint(models.Model):
    class Event(models.TextChoices):
        PUBLISHED = "story.published", "story.published"
        CORRECTED = "story.corrected", "story.corrected"
        UNPUBLISHED = "story.unpublished", "story.unpublished"

    partner = models.ForeignKey(Partner, on_delete=models.CASCADE, related_name="webhooks")
    url = models.URLField(
        max_length=1000,
        validators=[validate_webhook_url],
        help_text="https, on a public host (docs/api.md, Webhooks): private and internal addresses are refused.",
    )
    secret = models.CharField(
        max_length=100,
        default=new_webhook_secret,
        help_text="Shared with the partner: signs every delivery (HMAC-SHA256).",
    )
    events = models.JSONField(default=list, help_text="Any of story.published, story.corrected, story.unpublished.")
    active = models.BooleanField(default=True, help_text="Turned off when the receiver answers 410 Gone.")
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["partner__name", "url"]

    def __str__(self):
        return f"{self.partner}: {self.url}"

    def clean(self):
        from django.core.exceptions import ValidationError

        events = self.events if isinstance(self.events, list) else None
        unknown = [e for e in events or [] if e not in self.Event.values]
        if events is None or not events or unknown:
            raise ValidationError(
                {
                    "events": f"a list of one or more of {', '.join(self.Event.values)}"
                    + (f"; unknown: {unknown}" if unknown else "")
                }
            )

    def wants(self, event: str) -> bool:
        return self.active and event in (self.events or [])


class WebhookDeliveryQuerySet(models.QuerySet):
    def pending(self):
        return self.filter(status=WebhookDelivery.Status.PENDING)

    def due(self, now):
        """Pending deliveries whose time has come, not in flight with a worker (or whose lease
        ran out), and with no earlier pending delivery for the same endpoint and story (so a
        story's events arrive in order, one at a time)."""
        earlier = WebhookDelivery.objects.filter(
            endpoint=models.OuterRef("endpoint"),
            story_id=models.OuterRef("story_id"),
            status=WebhookDelivery.Status.PENDING,
            id__lt=models.OuterRef("id"),
        )
        not_in_flight = Q(leased_until__isnull=True) | Q(leased_until__lte=now)
        return (
            self.pending()
            .filter(not_in_flight, next_attempt_at__lte=now)
            .exclude(models.Exists(earlier))
            .order_by("id")
        )


class WebhookDelivery(models.Model):
    """The outbox: one row per event per subscribed endpoint, written in the transaction of
    the event itself, so nothing is lost when the receiver (or this worker) is down."""

    class Status(models.TextChoices):
        PENDING = "pending", "Pending"
        DELIVERED = "delivered", "Delivered"
        FAILED = "failed", "Failed (gave up)"
        GONE = "gone", "Gone (receiver answered 410)"

    delivery_id = models.UUIDField(default=uuid.uuid4, unique=True, editable=False)
    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField(max_length=32, choices=WebhookEndpoint.Event.choices)
    story_id = models.CharField(max_length=64, db_index=True)
    payload = models.TextField(help_text="The exact JSON body sent (and signed).")
    status = models.CharField(max_length=16, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    next_attempt_at = models.DateTimeField(default=timezone.now)
    created_at = models.DateTimeField(default=timezone.now)
    delivered_at = models.DateTimeField(null=True, blank=True)
    leased_until = models.DateTimeField(
        null=True,
        blank=True,
        help_text="Set while a worker is sending it; if that worker dies, it is tried again after this.",
    )

    objects = WebhookDeliveryQuerySet.as_manager()

    class Meta:
        ordering = ["-id"]
        verbose_name_plural = "webhook deliveries"
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=["pending", "delivered", "failed", "gone"]), name="webhook_delivery_status_valid"
            )
        ]
        indexes = [models.Index(fields=["status", "next_attempt_at"], name="webhook_delivery_due")]

    def __str__(self):
        return f"{self.event} {self.story_id} -> {self.endpoint_id} ({self.status})"


class WebhookAttempt(models.Model):
    delivery = models.ForeignKey(WebhookDelivery, on_delete=models.CASCADE, related_name="attempt_log")
    at = models.DateTimeField(default=timezone.now)
    status_code = models.PositiveIntegerField(null=True, blank=True)
    error = models.TextField(blank=True)
    duration_ms = models.PositiveIntegerField(default=0)

    class Meta:
        ordering = ["at", "id"]

    def __str__(self):
        return f"{self.at:%Y-%m-%d %H:%M:%S} {self.status_code or self.error[:40]}"
