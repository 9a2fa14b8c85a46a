"""The key look-up, cached for ``KEY_CACHE_TTL`` seconds so that a warm request costs no
query for it. Every way the desk revokes or changes a key forgets the entry at once (and
again when the transaction commits, so no request re-reads the row from before it):
``ApiKey.revoke()`` and any save or delete of a key or its partner (signals), and the
admin's "Revoke" action (a queryset update, so it forgets the keys itself). A change made
behind all of these (SQL, a queryset ``update()`` in a shell) applies within the TTL."""

from __future__ import annotations

from django.core.cache import cache
from django.db import transaction
from django.db.models.signals import post_delete, post_save

from .models import ApiKey, Partner

KEY_CACHE_TTL = 30


def _cache_key(prefix: str) -> str:
    return f"apikey:{prefix}"


def usable_key(prefix: str) -> ApiKey | None:
    """The usable key (with its partner) of this prefix, or None."""
    key = cache.get(_cache_key(prefix))
    if key is None:
        key = ApiKey.objects.usable().select_related("partner").filter(prefix=prefix).order_by().first()
        if key is not None:
            cache.set(_cache_key(prefix), key, KEY_CACHE_TTL)
    return key


def forget(*prefixes: str) -> None:
    names = [_cache_key(p) for p in prefixes if p]
    if not names:
        return
    cache.delete_many(names)
    transaction.on_commit(lambda: cache.delete_many(names))


def key_changed(sender, instance, **kwargs):
    forget(instance.prefix)


def partner_changed(sender, instance, **kwargs):
    forget(*ApiKey.objects.filter(partner_id=instance.pk).values_list("prefix", flat=True))


def connect() -> None:
    post_save.connect(key_changed, sender=ApiKey, dispatch_uid="syndication.keys.save.ApiKey")
    post_delete.connect(key_changed, sender=ApiKey, dispatch_uid="syndication.keys.delete.ApiKey")
    post_save.connect(partner_changed, sender=Partner, dispatch_uid="syndication.keys.save.Partner")
    # A deleted partner's keys are deleted with it, each sending its own post_delete.
