"""Published stories for the API's documents, read from the stored revision of each live
version rather than from the row graph, for any number of stories in a fixed number of
queries.

The revision (``stories.models.Revision``, kept by the commit step of every action that makes
a version) holds the version's key facts, sections and paragraphs with their cites, images
and related links. What a document shows that can change without a new version is read
fresh, for the whole batch at once: the story rows (with newsroom, beat and creator), how
each live version was published, the paragraphs' and key facts' texts (to compare with the
revision) and the key facts' declared flags, the corrections, the cited claims (a claim
imported since) and manifests (a renamed publisher). Eight queries whatever the count,
each compiled once per database and list length (``prepared``); of how each live version
was published, only the newest live entry; of each revision, only the parts a document
reads are decoded (``revision_parts``).

The rows stay the truth: a story's revision is used only when its paragraphs and key facts
match the rows, text for text; a story without a revision of its version, or whose rows
differ, is loaded with everything (``with_everything()``) and exported from its rows.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass
from types import SimpleNamespace

from django.db.models import ExpressionWrapper, F, OuterRef, Subquery, TextField

from manifests.models import Claim, Manifest
from newsroom.infra.prepared import Prepared, padded
from newsroom.models import SiteProfile
from stories import desk
from stories.models import AuditEntry, Correction, KeyFact, Paragraph, Revision, Story, live_entries_prefetch
from stories.models.records import LIVE_ACTIONS, LIVE_ENTRIES


@dataclass
class StoryDoc:
    """A story row and what its desk/1 document reads besides: ``fields`` (desk/1's stored
    fields), the cited ``manifests`` and ``flags`` (each cited claim self-reported, or None
    while its text is not imported)."""

    story: Story
    fields: dict
    manifests: dict[str, desk.ManifestInfo]
    flags: dict[str, bool | None]

    @property
    def id(self):
        return self.story.id

    @property
    def version(self):
        return self.story.version

    @property
    def updated_at(self):
        return self.story.updated_at

    def export(self, profile: SiteProfile) -> dict:
        """The desk/1 document, as ``desk.export_story`` makes it from the loaded rows."""
        return desk.render(
            self.fields,
            manifests=self.manifests,
            claims_self_reported=self.flags,
            newsroom_title=self.story.newsroom.title,
            profile=profile,
            responsibility=desk.responsibility_of(self.story),
        )


def export(story, profile: SiteProfile) -> dict:
    """The desk/1 document of a ``StoryDoc`` or of a story loaded with everything."""
    if isinstance(story, StoryDoc):
        return story.export(profile)
    return desk.export_story(story, profile=profile)


def story_row(story):
    """The story row behind what ``load`` returned (its version, writer, revision time)."""
    return story.story if isinstance(story, StoryDoc) else story


# The list's queries, compiled once per database and list length (``prepared``): building
# their SQL cost Django more than running them. ``\x1f`` marks the samples apart from real values.
STORIES = Prepared(
    lambda ids: Story.objects.published().filter(pk__in=ids).select_related("newsroom", "beat", "created_by"),
    ["\x1fstory"],
)


def _newest_live_entries(ids):
    """Each story's newest live entry (``live_entries_prefetch``'s first, the one
    ``stories.publication`` reads): the older ones are neither read nor decoded."""
    newest = (
        AuditEntry.objects.filter(story=OuterRef("story"), action__in=LIVE_ACTIONS)
        .order_by("-created_at", "-id")
        .values("pk")[:1]
    )
    return live_entries_prefetch().queryset.filter(story_id__in=ids, pk=Subquery(newest))


NEWEST_LIVE_ENTRIES = Prepared(_newest_live_entries, ["\x1fstory"])
# Each story's revision of its current version only (not every revision of each story at
# any of the page's versions), as its JSON text (``revision_parts`` decodes what is used).
REVISIONS = Prepared(
    lambda ids: Revision.objects.filter(story_id__in=ids, version=F("story__version")).values_list(
        "story_id", "version", ExpressionWrapper(F("data"), output_field=TextField())
    ),
    ["\x1fstory"],
)
PARAGRAPHS = Prepared(
    lambda ids: (
        Paragraph.objects.filter(section__story_id__in=ids)
        .order_by("section__story_id", "section__position", "section__id", "position", "id")
        .values_list("section__story_id", "markdown")
    ),
    ["\x1fstory"],
)
FACTS = Prepared(
    lambda ids: (
        KeyFact.objects.filter(story_id__in=ids)
        .order_by("story_id", "position", "id")
        .values_list("story_id", "text", "declared_self_reported")
    ),
    ["\x1fstory"],
)
CORRECTIONS = Prepared(
    lambda ids: (
        Correction.objects.filter(story_id__in=ids)
        .order_by("corrected_at", "id")
        .values_list("story_id", "corrected_at", "kind", "text")
    ),
    ["\x1fstory"],
)
CLAIMS = Prepared(
    lambda ids: Claim.objects.filter(id__in=ids).values_list("id", "has_text", "self_reported"), ["\x1fclaim"]
)
MANIFESTS = Prepared(
    lambda ids: Manifest.objects.filter(id__in=ids).values_list(
        "id", "title", "publisher__name", "source_url", "published_date"
    ),
    ["\x1fmanifest"],
)


def load(story_ids: list[str], one: bool = False) -> list:
    """For ``stories.cache.representations``: the published stories ``story_ids``, each a
    ``StoryDoc`` when its revision matches its rows, else loaded with everything. A story
    not published is left out."""
    stories = STORIES.objects(padded(dict.fromkeys(story_ids)))
    if not stories:
        return []
    ids = padded(s.id for s in stories)
    entries = {}
    for entry in NEWEST_LIVE_ENTRIES.objects(ids):
        entries[entry.story_id] = entry
    for story in stories:  # as the prefetch leaves them, but for the older entries
        entry = entries.get(story.id)
        if entry is not None:
            Story.audit_entries.rel.field.set_cached_value(entry, story)
        setattr(story, LIVE_ENTRIES, [entry] if entry is not None else [])
    wanted = {(s.id, s.version) for s in stories}
    revisions = {
        story_id: revision_parts(text) or json.loads(text)
        for story_id, version, text in REVISIONS.values(ids)
        if (story_id, version) in wanted
    }
    paragraphs = defaultdict(list)
    for story_id, markdown in PARAGRAPHS.values(ids):
        paragraphs[story_id].append(markdown)
    facts = defaultdict(list)
    for story_id, text, declared in FACTS.values(ids):
        facts[story_id].append((text, declared))
    corrections = defaultdict(list)
    for story_id, at, kind, text in CORRECTIONS.values(ids):
        corrections[story_id].append(desk.correction_fields(SimpleNamespace(corrected_at=at, kind=kind, text=text)))

    docs, fallback = {}, []
    for story in stories:
        data = revisions.get(story.id)
        if data is None or not _matches(data, paragraphs[story.id], facts[story.id]):
            fallback.append(story.id)
            continue
        fields = _fields(story, data, facts[story.id], corrections[story.id])
        own = list(desk.all_cites(fields))
        # Each story's cited manifests and claims, in citing order.
        docs[story.id] = (
            fields,
            list(dict.fromkeys(c["manifest_id"] for c in own)),
            list(dict.fromkeys(cid for c in own for cid in c["claim_ids"])),
        )

    flags = {}
    claim_ids = {cid for _, _, claims in docs.values() for cid in claims}
    if claim_ids:
        for cid, has_text, self_reported in CLAIMS.values(padded(claim_ids)):
            flags[cid] = self_reported if has_text else None
    manifest_ids = {mid for _, cited, _ in docs.values() for mid in cited}
    manifests = {}
    if manifest_ids:
        manifests = {row[0]: desk.ManifestInfo(*row) for row in MANIFESTS.values(padded(manifest_ids))}

    loaded = {}
    if fallback:
        loaded = {s.id: s for s in Story.objects.published().with_everything().filter(pk__in=fallback)}
    out = []
    for story in stories:
        if story.id in docs:
            fields, cited, claims = docs[story.id]
            out.append(
                StoryDoc(
                    story,
                    fields,
                    {mid: manifests[mid] for mid in cited if mid in manifests},
                    {cid: flags[cid] for cid in claims if cid in flags},
                )
            )
        elif story.id in loaded:
            out.append(loaded[story.id])
    return out


_DECODER = json.JSONDecoder()


def revision_parts(text: str) -> dict | None:
    """A revision's ``key_facts``, ``images``, ``sections`` and ``related`` (all the
    documents read of it) from its JSON text as ``OrderedJSONField`` writes desk/1, decoding
    about two thirds of it (not its derived fields); None when the text is not laid out so,
    for ``json.loads`` to read whole. Each key is found as a member of the document itself:
    the members before ``key_facts`` make a complete object, ``images`` and ``sections``
    follow it, and the members after ``related`` close the document."""
    try:
        at = text.find('"key_facts": ')
        if at < 2 or text[at - 2 : at] != ", ":
            return None
        json.loads(text[:at] + '"_": 0}')
        out, end = {}, at
        for key, sep in (("key_facts", '"key_facts": '), ("images", ', "images": '), ("sections", ', "sections": ')):
            if not text.startswith(sep, end):
                return None
            out[key], end = _DECODER.raw_decode(text, end + len(sep))
        at = text.rfind('"related": ')
        if at < end or text[at - 2 : at] != ", ":
            return None
        out["related"], end = _DECODER.raw_decode(text, at + len('"related": '))
        json.loads('{"_": 0' + text[end:])
    except ValueError:
        return None
    return out


def _matches(data: dict, paragraphs: list[str], facts: list[tuple[str, bool | None]]) -> bool:
    return [p["markdown"] for s in data["sections"] for p in s["paragraphs"]] == paragraphs and [
        f["text"] for f in data["key_facts"]
    ] == [t for t, _ in facts]


def _fields(story: Story, data: dict, facts: list, corrections: list) -> dict:
    return desk.in_stored_order(
        desk.story_fields(story),
        {
            "key_facts": [
                {"text": f["text"], "self_reported": declared, "cites": f["cites"]}
                for f, (_, declared) in zip(data["key_facts"], facts, strict=True)
            ],
            "images": data["images"],
            # As the revision holds them (a heading, paragraphs of Markdown and cites): the
            # rendering reads those and copies them.
            "sections": data["sections"],
            "corrections": corrections,
            "related": data["related"],
        },
    )
