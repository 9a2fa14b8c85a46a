"""Helpers of the readers' site tests: stories of any size, imported through the desk."""

import copy

from stories import actions, desk


def import_seed_story(
    seed_doc, *, id, slug, paragraphs=2, published_at="2026-10-16T00:39:10Z", edition="2026-10-16T00", **overrides
):
    """Import a story derived from the seed with ``paragraphs`` paragraphs in one section."""
    doc = copy.deepcopy(seed_doc)
    base = seed_doc["sections"][0]["paragraphs"]
    doc["sections"] = [
        {"heading": "Body", "paragraphs": [copy.deepcopy(base[i % len(base)]) for i in range(paragraphs)]}
    ]
    doc.update(id=id, slug=slug, published_at=published_at, edition=edition, **overrides)
    return actions.import_story(desk.validate(doc), restore=True).story
