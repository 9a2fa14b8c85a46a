"""Adapters: one provider's reply -> one manifests/1 entry, the shape our models are written from.

The client (``manifests.provider``) fetches a reply, parses it as JSON and hands it to the
adapter named by ``settings.MANIFEST_PROVIDER_ADAPTER``. An adapter is a function

    adapter(reply: object, *, manifest_id: str) -> dict

that returns what ``manifests.formats.validate_manifest(..., claims=True)`` returns (a
validated entry: ``manifest_id``, ``title``, ``source_name``, ``source_url``,
``published_date``, ``claims``), or raises ``newsroom.infra.jsondoc.FormatError`` naming the JSON
path of the field that does not map. It does not touch the database: the client writes the
entry with ``manifests.formats.upsert_manifest``. See docs/manifest-provider.md.
"""

from django.conf import settings
from django.utils.module_loading import import_string

from newsroom.infra.jsondoc import FormatError

from .formats import validate_manifest

# Paths in adapter errors start here, so a message reads "reply.claims: missing required field".
REPLY = "reply"


def manifests_1_entry(reply: object, *, manifest_id: str) -> dict:
    """The reference adapter: the reply is one entry of a ``hangingcontext.manifests/1``
    document (``manifest_id``, ``title``, ``source_name``, ``source_url``,
    ``published_date``, ``claims: [{claim_id, text, self_reported}]``)."""
    entry = validate_manifest(reply, REPLY, claims=True)
    return check_identity(entry, manifest_id)


def check_identity(entry: dict, manifest_id: str) -> dict:
    """Refuse a reply about another manifest than the one asked for: writing it would
    attach claims to the wrong source. Every adapter should end with this."""
    if entry["manifest_id"] != manifest_id:
        raise FormatError(
            f"{REPLY}.manifest_id", f"the reply is for manifest {entry['manifest_id']}, not the {manifest_id} asked for"
        )
    return entry


def get_adapter():
    """The adapter configured in ``settings.MANIFEST_PROVIDER_ADAPTER`` (a dotted path)."""
    return import_string(settings.MANIFEST_PROVIDER_ADAPTER)
