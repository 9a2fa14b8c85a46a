"""The editing screen's autosave: one working copy per person and story, kept while they
write. Not a revision and not a version: nothing here reaches readers, and saving the
story (one version, through the actions) clears it."""

from django.conf import settings
from django.db import models


class Autosave(models.Model):
    """What ``user`` last had on the editing screen of a story (``key``: the story's id, or
    ``new`` for a story not saved yet): the screen's working document, and the version of
    the story it started from."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+", db_index=False
    )  # autosave_one_per_user_and_story indexes it
    key = models.CharField(max_length=64)
    base_version = models.PositiveIntegerField(null=True, blank=True)
    data = models.JSONField()
    saved_at = models.DateTimeField(auto_now=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["user", "key"], name="autosave_one_per_user_and_story")]

    def __str__(self):
        return f"autosave of {self.key} by {self.user_id}"
