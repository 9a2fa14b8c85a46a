"""JSON Schemas of the request bodies, for the OpenAPI document. They state what a schema
can (types, formats, required fields); ``stories.desk.validate`` and
``manifests.formats.validate_manifests_document`` remain the authority, and references
(a cited manifest must be stored or listed) are beyond any schema."""

from drf_spectacular.openapi import AutoSchema

ID = {"type": "string", "pattern": "^[0-9A-Za-z_-]{1,64}$", "example": "1792067182956183080"}
SLUG = {"type": "string", "pattern": "^[a-z0-9]+(-[a-z0-9]+)*$", "maxLength": 200}
TEXT = {"type": "string", "minLength": 1, "pattern": r"\S"}
TIMESTAMP = {"type": "string", "format": "date-time", "example": "2026-10-16T00:39:10Z"}
# What the formats' URL reader accepts (an http(s) URL with no spaces), not RFC 3986's "uri".
URL = {
    "type": "string",
    "pattern": "^https?://[^\\s/$.?#][^\\s]*$",
    "maxLength": 1000,
    "example": "https://example.org/a",
}

CITES = {
    "type": "array",
    "items": {
        "type": "object",
        "required": ["manifest_id"],
        "properties": {"manifest_id": ID, "claim_ids": {"type": "array", "items": ID, "uniqueItems": True}},
    },
}

MANIFEST_ENTRY = {
    "type": "object",
    "required": ["manifest_id", "title", "source_name", "source_url", "published_date"],
    "properties": {
        "manifest_id": ID,
        "title": {**TEXT, "maxLength": 500},
        "source_name": {**TEXT, "maxLength": 200},
        "source_url": URL,
        "published_date": {"type": "string", "format": "date"},
    },
}

DESK_STORY = {
    "type": "object",
    "description": "A story in hangingcontext.desk/1 (docs/desk-1.md). Derived fields may be sent; they are recomputed.",
    "required": ["schema", "slug", "edition", "newsroom", "headline"],
    "properties": {
        "schema": {"type": "string", "enum": ["hangingcontext.desk/1"]},
        "type": {"type": "string", "enum": ["story"]},
        "id": {**ID, "nullable": True, "description": "Omit (or null) for a new story."},
        "slug": SLUG,
        "edition": {"type": "string", "pattern": "^\\d{4}-\\d{2}-\\d{2}T\\d{2}$", "example": "2026-10-16T00"},
        "newsroom": SLUG,
        "beat": {**SLUG, "nullable": True},
        "audience": {"type": "string", "pattern": "^[a-z0-9_-]*$", "maxLength": 100},
        "angle": {"type": "string"},
        "headline": {**TEXT, "maxLength": 500},
        "dek": {"type": "string"},
        "published_at": {**TIMESTAMP, "nullable": True, "description": "Ignored by submissions: they are drafts."},
        "labels": {"type": "object", "properties": {"trust": SLUG}},
        "key_facts": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["text"],
                "properties": {"text": TEXT, "self_reported": {"type": "boolean"}, "cites": CITES},
            },
        },
        "images": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["url", "alt"],
                "properties": {
                    "url": URL,
                    "alt": {**TEXT, "maxLength": 1000},
                    "caption": {"type": "string"},
                    "credit": {"type": "string", "maxLength": 500},
                    "width": {"type": "integer", "minimum": 0, "nullable": True},
                    "height": {"type": "integer", "minimum": 0, "nullable": True},
                },
            },
        },
        "sections": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["heading", "paragraphs"],
                "properties": {
                    "heading": TEXT,
                    "paragraphs": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["markdown"],
                            "properties": {"markdown": TEXT, "cites": CITES},
                        },
                    },
                },
            },
        },
        "unresolved": {"type": "array", "items": TEXT},
        "decision_card": {"type": "object", "additionalProperties": {"type": "array", "items": TEXT}},
        "writer": {"type": "object", "properties": {"agent": {"type": "string"}, "run_id": {"type": "string"}}},
        "corrections": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["corrected_at", "kind", "text"],
                "properties": {
                    "corrected_at": TIMESTAMP,
                    "kind": {"type": "string", "enum": ["correction", "clarification", "update"]},
                    "text": TEXT,
                },
            },
        },
        "manifests": {
            "type": "array",
            "items": MANIFEST_ENTRY,
            "description": "Sources the database may lack (stubs are made from them).",
        },
        "related": {
            "type": "array",
            "items": {
                "type": "object",
                "required": ["url", "headline"],
                "properties": {
                    "url": URL,
                    "headline": TEXT,
                    "slug": {**SLUG, "pattern": "^([a-z0-9]+(-[a-z0-9]+)*)?$", "nullable": True},
                },
            },
        },
    },
}

MANIFESTS_DOCUMENT = {
    "type": "object",
    "description": "A hangingcontext.manifests/1 document: manifests with their claims.",
    "required": ["schema", "manifests"],
    "properties": {
        "schema": {"type": "string", "enum": ["hangingcontext.manifests/1"]},
        "manifests": {
            "type": "array",
            "items": {
                **MANIFEST_ENTRY,
                "required": [*MANIFEST_ENTRY["required"], "claims"],
                "properties": {
                    **MANIFEST_ENTRY["properties"],
                    "claims": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "required": ["claim_id", "text"],
                            "properties": {"claim_id": ID, "text": TEXT, "self_reported": {"type": "boolean"}},
                        },
                    },
                },
            },
        },
    },
}


class RequiredBodySchema(AutoSchema):
    """The write endpoints' bodies are raw JSON Schemas, which drf-spectacular marks optional."""

    def _get_request_body(self, direction="request"):
        body = super()._get_request_body(direction)
        if body:
            body["required"] = True
        return body
