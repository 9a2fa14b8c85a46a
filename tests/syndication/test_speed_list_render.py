"""What the cold story list saves per story gives the same answers: URLs built from a
pattern reversed once are ``reverse``'s own, and reading only each story's newest live
entry leaves its publication record as the full prefetch has it."""

import pytest
from django.urls import reverse, set_script_prefix

from stories import actions
from stories.actions import drafts
from stories.desk import derive
from stories.models import Paragraph, Story
from stories.models.records import LIVE_ENTRIES
from stories.publication import publication_of
from syndication import storydocs

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("story-detail", ["2026-10-16", "agent-training-stack"]),
        ("story-detail", ["2026-10-16", "a_b-9"]),
        ("newsroom-detail", ["the-desk"]),
        ("edition-detail", ["2026-10-16T00"]),
        ("edition-detail", ["2026-10-16"]),
        ("edition-detail", ["caf\u00e9 au lait"]),  # quoted by reverse: reversed as before
        ("edition-detail", ["a%2Fb"]),
    ],
)
def test_a_reversed_url_is_reverses_own(name, args):
    assert derive.reversed_url(name, *args) == reverse(name, args=args)
    assert derive.reversed_url(name, *args) == reverse(name, args=args)  # from the kept pattern


def test_a_reversed_url_follows_the_script_prefix():
    try:
        set_script_prefix("/mounted/")
        assert derive.reversed_url("newsroom-detail", "the-desk") == "/mounted/n/the-desk/"
    finally:
        set_script_prefix("/")
    assert derive.reversed_url("newsroom-detail", "the-desk") == "/n/the-desk/"


def test_an_argument_a_converter_refuses_is_refused_as_before():
    from django.urls import NoReverseMatch

    with pytest.raises(NoReverseMatch):
        derive.reversed_url("newsroom-detail", "not a slug")
    with pytest.raises(NoReverseMatch):
        derive.reversed_url("no-such-page", "x")


def test_the_story_url_is_the_site_url_and_the_story_page(settings):
    assert derive.story_url("2026-10-16T00", "a-story") == settings.SITE_URL + reverse(
        "story-detail", args=["2026-10-16", "a-story"]
    )


def _publish_two_changes(story, editor):
    """Two published changes of ``story``'s first paragraph: three live entries in all."""
    for text in ("A first published change.", "A second published change."):
        draft = drafts.start_changes(story=Story.objects.get(pk=story.id), user=editor)
        paragraph = Paragraph.objects.filter(section__story=draft).order_by("section__position", "position").first()
        paragraph.markdown = text
        actions.save_story(story=draft, user=editor, write=paragraph.save)
        drafts.publish_changes(draft=draft, user=editor, override_reason="an editor's reason")


def test_only_the_newest_live_entry_is_read_and_it_is_the_prefetchs_first(demo, editor):
    _publish_two_changes(demo, editor)
    everything = Story.objects.published().with_everything().get(pk=demo.id)
    assert len(getattr(everything, LIVE_ENTRIES)) >= 3
    (doc,) = storydocs.load([demo.id])
    row = storydocs.story_row(doc)
    entries = getattr(row, LIVE_ENTRIES)
    assert len(entries) == 1
    assert entries[0].pk == getattr(everything, LIVE_ENTRIES)[0].pk
    assert publication_of(row) == publication_of(everything)
    assert publication_of(row).failed_criteria == publication_of(everything).failed_criteria


def test_a_story_with_no_live_entry_has_none(demo):
    from stories.models import AuditEntry

    AuditEntry.objects.filter(story_id=demo.id).delete()
    (doc,) = storydocs.load([demo.id])
    assert getattr(storydocs.story_row(doc), LIVE_ENTRIES) == []
    assert publication_of(storydocs.story_row(doc)) is None


def test_the_encoding_is_drfs_json_renderers_byte_for_byte():
    import datetime as dt
    import decimal

    from rest_framework.renderers import JSONRenderer

    from syndication.renderers import encode

    data = {
        "text": 'caf\u00e9 \u2028 line \u2029 para "quoted" \\ </script>',
        "n": [1, 2.5, True, False, None, -0.0],
        "nested": {"emoji": "\U0001f600", "empty": {}, "list": []},
        "when": dt.datetime(2026, 10, 16, 0, 39, 10, tzinfo=dt.UTC),
        "date": dt.date(2026, 10, 16),
        "amount": decimal.Decimal("1.50"),
    }
    for value in (data, [data, data], "plain", 3, []):
        assert encode(value) == JSONRenderer().render(value, None, {})
    assert encode(None) == JSONRenderer().render(None, None, {}) == b""
    with pytest.raises(ValueError):
        encode({"nan": float("nan")})


def test_all_cites_are_iter_cites_without_their_paths(seed_doc):
    cites = list(derive.all_cites(seed_doc))
    assert cites and cites == [c for _, c in derive.iter_cites(seed_doc)]
    assert all(a is b for a, (_, b) in zip(cites, derive.iter_cites(seed_doc), strict=True))


def test_run_these_manifests_is_a_copy_sharing_nothing_with_the_profile():
    import copy

    from newsroom.models import SiteProfile, _fill

    profile = SiteProfile.load()
    profile.run_these_manifests = {**profile.run_these_manifests, "extra": [{"n": 1, "x": [1.5, None, True]}]}
    before = copy.deepcopy(profile.run_these_manifests)
    ids = ["m-one", "m-two"]
    got = profile.run_these_manifests_for(ids)
    base = copy.deepcopy(before)
    expected = {k: base.pop(k) for k in ("title", "summary") if k in base}
    expected["manifest_ids"] = ids
    expected.update(base)
    template = base.get("request", {}).get("url_template", "")
    expected["commands"] = {
        "one": _fill(profile.command_one, url=template.replace("{manifest_id}", ids[0])),
        "all": _fill(profile.command_all, ids=" ".join(ids), url_var=template.replace("{manifest_id}", "$id")),
    }
    assert got == expected and list(got) == list(expected)

    def containers(value):
        if isinstance(value, dict):
            yield value
            for v in value.values():
                yield from containers(v)
        elif isinstance(value, list):
            yield value
            for v in value:
                yield from containers(v)

    theirs = {id(c) for c in containers(profile.run_these_manifests)}
    assert not theirs & {id(c) for c in containers(got)}
    got["extra"][0]["x"].append("changed")
    assert profile.run_these_manifests == before


def test_only_each_storys_current_revision_is_read(demo, seed_doc, editor):
    from newsroom.infra.prepared import padded
    from stories.models import Revision
    from tests.public.helpers import import_seed_story

    other = import_seed_story(seed_doc, id="903", slug="still-at-its-first-version")
    _publish_two_changes(demo, editor)
    stories = {s.id: s for s in Story.objects.filter(pk__in=[demo.id, other.id])}
    assert Revision.objects.filter(story_id=demo.id).count() > 1
    assert Revision.objects.filter(story_id=demo.id, version=stories[other.id].version).exists()
    rows = storydocs.REVISIONS.values(padded([demo.id, other.id]))
    assert sorted((story_id, version) for story_id, version, _ in rows) == sorted(
        (s.id, s.version) for s in stories.values()
    )
    assert len(storydocs.load([demo.id, other.id])) == 2
    assert all(isinstance(d, storydocs.StoryDoc) for d in storydocs.load([demo.id, other.id]))


USED = ("key_facts", "images", "sections", "related")


def parts_or_none_agree(doc_text: str) -> dict | None:
    """``revision_parts`` either declines or reads what ``json.loads`` reads."""
    import json

    got = storydocs.revision_parts(doc_text)
    if got is not None:
        whole = json.loads(doc_text)
        assert got == {k: whole[k] for k in USED}
        assert list(got["sections"]) == list(whole["sections"])
    return got


def test_a_revisions_used_parts_are_read_as_json_loads_reads_them(demo):
    import json

    from stories.models import Revision

    text = json.dumps(Revision.objects.get(story_id=demo.id, version=demo.version).data, ensure_ascii=False)
    assert parts_or_none_agree(text) is not None


def test_a_revision_laid_out_otherwise_is_read_whole(demo):
    import json

    from stories.models import Revision

    data = Revision.objects.get(story_id=demo.id, version=demo.version).data
    fake = [{"text": "not the key facts", "cites": []}]

    def dumped(d, **kw):
        return json.dumps(d, ensure_ascii=False, **kw)

    def first(extra: dict) -> dict:
        return {**extra, **data}

    cases = {
        # keys named so inside other members, before and after the document's own
        "nested before": dumped(first({"x": {"key_facts": fake, "related": fake}})),
        "nested after": dumped({**data, "reuse": {"related": fake, "key_facts": fake}}),
        "nested in sponsor": dumped({**data, "sponsor": {"related": fake}}),
        "quoted key": dumped(first({'a"key_facts': fake})),
        "in a string": dumped({**data, "headline": 'say "key_facts": [] and "related": []'}),
        "compact": dumped(data, separators=(",", ":")),
        "other order": dumped({k: data[k] for k in reversed(list(data))}),
        "related first": dumped({"related": data["related"], **{k: v for k, v in data.items() if k != "related"}}),
        "no related": dumped({k: v for k, v in data.items() if k != "related"}),
        "indented": dumped(data, indent=2),
    }
    declined = set()
    for name, text in cases.items():
        try:
            if parts_or_none_agree(text) is None:
                declined.add(name)
        except KeyError:
            declined.add(name)  # json.loads has no such key either: the document falls back as before
    assert {"nested after", "quoted key", "compact", "other order", "related first", "no related"} <= declined
    assert "in a string" not in declined
