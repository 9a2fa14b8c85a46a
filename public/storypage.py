"""A published story as its renderings need it, read from the stored revision of its live
version rather than from the row graph.

The revision (``stories.models.Revision``, kept by the commit step of every action that makes
a version) holds the version's key facts, sections, paragraphs with their cites, images and
related links. What changes without a new version is read fresh, each in one small query: the
story row (with its newsroom, beat and creator), how its live version was published, the
paragraphs' stored HTML, the key facts' declared flags, the cited claims and manifests (a
claim imported since, a renamed publisher) and the corrections. Nine queries in all for the
page (the story view's lookup reads the story row and the rendering reuses it), as flat rows
and no model instances for the parts, each compiled to SQL once per process
(``newsroom.infra.prepared``).

The rows stay the truth: the revision is used only when its paragraphs and key facts match
the rows, text for text; otherwise (a story without a revision of its version) the story is
loaded with everything (``Story.objects.loaded()``) as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

from manifests.models import Claim, Manifest
from newsroom.infra.prepared import Prepared
from newsroom.models import SiteProfile
from public import markup
from stories import desk
from stories.models import Correction, KeyFact, Paragraph, Revision, Story, live_entries_prefetch
from stories.models.records import LIVE_ENTRIES as LIVE_ENTRIES_ATTR


@dataclass
class StoryPage:
    """A story row and what its renderings read besides: ``fields`` (desk/1's stored fields),
    the cited ``manifests`` and claims (``flags``: self-reported or unknown, ``claims``: the
    texts the page shows), and each section's paragraph HTML as stored."""

    story: Story
    fields: dict
    manifests: dict[str, desk.ManifestInfo]
    flags: dict[str, bool | None]
    claims: dict[str, dict]
    html: list[list[str]]

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


# The page's queries, compiled once per database (``newsroom.infra.prepared``): building their SQL
# cost Django more than running them. ``\x1f`` marks the samples apart from real values.
STORY = Prepared(
    lambda pk: Story.objects.published().filter(pk=pk).select_related("newsroom", "beat", "created_by")[:1],
    "\x1fstory",
)
LIVE_ENTRIES = Prepared(lambda pk: live_entries_prefetch().queryset.filter(story_id=pk), "\x1fstory")
REVISION = Prepared(
    lambda pk, version: Revision.objects.filter(story_id=pk, version=version).values_list("data")[:1],
    "\x1fstory",
    987_654_321,
)
PARAGRAPHS = Prepared(
    lambda pk: (
        Paragraph.objects.filter(section__story_id=pk)
        .order_by("section__position", "section__id", "position", "id")
        .values_list("markdown", "html")
    ),
    "\x1fstory",
)
FACTS = Prepared(
    lambda pk: (
        KeyFact.objects.filter(story_id=pk).order_by("position", "id").values_list("text", "declared_self_reported")
    ),
    "\x1fstory",
)
CORRECTIONS = Prepared(
    lambda pk: (
        Correction.objects.filter(story_id=pk)
        .order_by("corrected_at", "id")
        .values_list("corrected_at", "kind", "text")
    ),
    "\x1fstory",
)
CLAIMS = Prepared(
    lambda ids: Claim.objects.filter(id__in=ids).values_list("id", "text", "has_text", "self_reported"), ["\x1fclaim"]
)
MANIFESTS = Prepared(
    lambda ids: Manifest.objects.filter(id__in=ids).values_list(
        "id", "title", "publisher__name", "source_url", "published_date"
    ),
    ["\x1fmanifest"],
)


def load(story_ids: list[str], one: bool, row: Story | None = None):
    """For ``stories.cache.representations``: the published stories ``story_ids``, each as a
    ``StoryPage`` when its revision matches its rows, else loaded with everything. ``row``:
    the story's row as ``story_row`` read it a moment ago in this request, read again otherwise."""
    if not one:
        return Story.objects.published().with_everything().filter(pk__in=story_ids)
    page = story_page(story_ids[0], row if row is not None and row.id == story_ids[0] else None)
    if page is False:
        story = Story.objects.published().loaded(story_ids[0])
        return [story] if story is not None else []
    return [page] if page is not None else []


def story_row(pk: str) -> Story | None:
    """The published story ``pk`` with its newsroom, beat and creator."""
    rows = STORY.objects(pk)
    return rows[0] if rows else None


def story_page(pk: str, story: Story | None = None) -> StoryPage | bool | None:
    """The published story ``pk`` as a ``StoryPage``; None when it is not published; False
    when its rows and its live version's revision differ (or it has none). ``story``: its
    row (``story_row``) when already read."""
    if story is None:
        story = story_row(pk)
    if story is None:
        return None
    entries = LIVE_ENTRIES.objects(pk)
    for entry in entries:  # as the prefetch leaves them
        Story.audit_entries.rel.field.set_cached_value(entry, story)
    setattr(story, LIVE_ENTRIES_ATTR, entries)
    data = REVISION.values(pk, story.version)
    if not data:
        return False
    data = data[0][0]
    paragraphs = PARAGRAPHS.values(pk)
    facts = FACTS.values(pk)
    sections = data["sections"]
    if [p["markdown"] for s in sections for p in s["paragraphs"]] != [m for m, _ in paragraphs] or [
        f["text"] for f in data["key_facts"]
    ] != [t for t, _ in facts]:
        return False
    fields = desk.in_stored_order(
        desk.story_fields(story),
        {
            "key_facts": [
                {"text": f["text"], "self_reported": declared, "cites": f["cites"]}
                for f, (_, declared) in zip(data["key_facts"], facts, strict=True)
            ],
            "images": data["images"],
            "sections": [
                {
                    "heading": s["heading"],
                    "paragraphs": [{"markdown": p["markdown"], "cites": p["cites"]} for p in s["paragraphs"]],
                }
                for s in sections
            ],
            "corrections": [
                desk.correction_fields(SimpleNamespace(corrected_at=at, kind=kind, text=text))
                for at, kind, text in CORRECTIONS.values(pk)
            ],
            "related": data["related"],
        },
    )
    cites = [c for _, c in desk.iter_cites(fields)]
    claims, flags = {}, {}
    claim_ids = {cid for c in cites for cid in c["claim_ids"]}
    for cid, text, has_text, self_reported in CLAIMS.values(list(claim_ids)):
        claims[cid] = {"text": text if has_text else "", "self_reported": self_reported}
        flags[cid] = self_reported if has_text else None
    rows = MANIFESTS.values(list({c["manifest_id"] for c in cites}))
    manifests = {row[0]: desk.ManifestInfo(*row) for row in rows}
    html, n = [], 0
    for s in sections:
        html.append([_html(*paragraphs[n + i]) for i in range(len(s["paragraphs"]))])
        n += len(s["paragraphs"])
    return StoryPage(story, fields, manifests, flags, claims, html)


def _html(markdown: str, html: str) -> str:
    """As ``presenters.stored_html``: the stored HTML, else (a row written without it) rendered now."""
    return html or (str(markup.to_html(markdown)) if markdown else "")
