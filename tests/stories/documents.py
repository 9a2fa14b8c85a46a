"""desk/1 documents of our own for the desk's tests, and helpers to import them.

The stories' derived fields are computed here, independently of ``stories.desk``, from
docs/desk-1.md; the manifests they cite are listed in ``LISTINGS`` and ``CLAIMS``."""

import copy
import io
import json

import pytest
from django.apps import apps
from django.core.management import call_command
from django.core.management.base import CommandError

from stories.models import Story
from tests.seed import SEED_JSON

SEED = json.loads(SEED_JSON.read_text(encoding="utf-8"))

SITE = "https://hangingcontext.com"

LISTINGS = {
    "1792100000000000001": ("Sea ice extent at record low", "polar-data", "2026-10-16"),
    "1792100000000000002": ("Arctic institute annual report", "arctic-institute", "2026-10-15"),
    "1792100000000000003": ("Open models, closed data", "open-models-weekly", "2026-10-18"),
    "0000000000000000042": ("A source whose id starts with zeros", "zero-padded-press", "2026-12-31"),
}
# Claim ids of each manifest, with whether the source reports them about itself.
CLAIMS = {
    "1792100000000000001": {"1792100000000000011": False, "1792100000000000012": False, "1792100000000000013": True},
    "1792100000000000002": {"1792100000000000021": True, "1792100000000000022": True},
    "1792100000000000003": {"1792100000000000031": True, "1792100000000000032": True},
    "0000000000000000042": {"0000000000000000043": False},
}
FLAGS = {cid: flag for claims in CLAIMS.values() for cid, flag in claims.items()}
NEWSROOM_TITLES = {"climate": "Climate Desk", "artificial-intelligence": "Artificial Intelligence"}


def cite(mid, *cids):
    return {"manifest_id": mid, "claim_ids": list(cids)}


# The disclosure of a story people wrote, imported with no editor named (the reference story's is an agent's).
HUMAN_DISCLOSURE = (
    "Written by people, not an agent, from the Synorb Manifests listed here; an editor took editorial "
    "responsibility and published it after server-side checks: every cited Manifest id exists and is recent, "
    "claim ids belong to their Manifest, the story does not repeat a recent story, and each paragraph is "
    "supported by the claims it cites. Run the Manifests yourself to verify."
)


def complete(stored: dict, seed: dict) -> dict:
    """The full desk/1 document of ``stored`` (derived fields computed from the spec, with the
    seed's site-level texts), in the spec's key order."""
    url = f"{SITE}/stories/{stored['edition'][:10]}/{stored['slug']}/"
    cites = [c for f in stored["key_facts"] for c in f["cites"]]
    cites += [c for s in stored["sections"] for p in s["paragraphs"] for c in p["cites"]]
    cited = list(dict.fromkeys(c["manifest_id"] for c in cites))
    n = len(cited)
    title = NEWSROOM_TITLES[stored["newsroom"]]
    run = copy.deepcopy(seed["run_these_manifests"])
    run["manifest_ids"] = cited
    run["commands"] = {
        "one": f'curl -s -H "Authorization: Bearer $SYNORB_KEY" https://api.synorb.com/manifests/by-id/{cited[0]}'
        if cited
        else "",
        "all": f"for id in {' '.join(cited)}; do\n"
        '  curl -s -H "Authorization: Bearer $SYNORB_KEY" "https://api.synorb.com/manifests/by-id/$id"\ndone',
    }
    manifests = [
        {
            "manifest_id": mid,
            "title": LISTINGS[mid][0],
            "source_name": LISTINGS[mid][1],
            "source_url": f"https://example.org/m/{mid}",
            "published_date": LISTINGS[mid][2],
        }
        for mid in cited
    ]
    key_facts = [
        {
            "text": f["text"],
            "self_reported": all(FLAGS[c] for ci in f["cites"] for c in ci["claim_ids"]),
            "cites": f["cites"],
        }
        for f in stored["key_facts"]
    ]
    return {
        "schema": "hangingcontext.desk/1",
        "type": "story",
        "id": stored["id"],
        "slug": stored["slug"],
        "edition": stored["edition"],
        "url": url,
        "newsroom": stored["newsroom"],
        "beat": stored["beat"],
        "newsroom_title": title,
        "audience": stored["audience"],
        "angle": stored["angle"],
        "headline": stored["headline"],
        "dek": stored["dek"],
        "published_at": stored["published_at"],
        "labels": {
            "trust": stored["trust"],
            "trust_text": f"{stored['trust'].capitalize()} · {n} source{'' if n == 1 else 's'}",
            "newsroom": title,
        },
        "source_count": n,
        "publishers": sorted({LISTINGS[mid][1] for mid in cited}),
        "key_facts": key_facts,
        "images": stored["images"],
        "sections": stored["sections"],
        "unresolved": stored["unresolved"],
        "decision_card": stored["decision_card"],
        "writer": stored["writer"],
        "corrections": stored["corrections"],
        "cited_manifest_ids": cited,
        "manifests": manifests,
        "run_these_manifests": run,
        "links": {
            "html": url,
            "json": url + "index.json",
            "markdown": url + "index.md",
            "newsroom": f"{SITE}/n/{stored['newsroom']}/",
            "edition": f"{SITE}/editions/{stored['edition']}/",
        },
        "related": stored["related"],
        "sponsor": seed["sponsor"],
        "disclosure": seed["disclosure"] if stored["writer"]["agent"] else HUMAN_DISCLOSURE,
        "reuse": {**seed["reuse"], "canonical_url": url},
    }


def manifests_document() -> dict:
    """The manifests/1 document of every manifest in ``LISTINGS``, with its ``CLAIMS``."""
    return {
        "schema": "hangingcontext.manifests/1",
        "manifests": [
            {
                "manifest_id": mid,
                "title": title,
                "source_name": source,
                "source_url": f"https://example.org/m/{mid}",
                "published_date": date,
                "claims": [
                    {"claim_id": cid, "text": f"Claim {cid}.", "self_reported": flag}
                    for cid, flag in CLAIMS[mid].items()
                ],
            }
            for mid, (title, source, date) in LISTINGS.items()
        ],
    }


# --------------------------------------------------------------------------- variants of the seed


def variant(story_doc, n: int, **overrides) -> dict:
    """A valid story of our own, made from the seed, with its own id and slug."""
    return story_doc(**{"id": f"17922000000000000{n:02d}", "slug": f"variant-{n}", "related": [], **overrides})


# Two valid corrections, oldest first.
CORRECTIONS = [
    {
        "corrected_at": "2026-10-17T08:00:00Z",
        "kind": "correction",
        "text": "An earlier version misstated the task count.",
    },
    {"corrected_at": "2026-10-18T09:30:00Z", "kind": "clarification", "text": "Clarified who ran the benchmark."},
]


# --------------------------------------------------------------------------- import_stories


def db_state() -> dict:
    """Row counts of every model of the project's apps, and every story's version."""
    counts = {
        m._meta.label: m._base_manager.count()
        for m in apps.get_models()
        if m._meta.app_label in ("newsroom", "manifests", "stories", "syndication")
    }
    counts["versions"] = dict(Story.objects.values_list("id", "version"))
    return counts


def run_import(*paths) -> tuple[str, str]:
    """Run import_stories; return (stdout, stderr). Raises CommandError when a file is rejected."""
    out, err = io.StringIO(), io.StringIO()
    try:
        call_command("import_stories", "--restore", *map(str, paths), stdout=out, stderr=err)
    except CommandError as exc:
        exc.stdout, exc.stderr = out.getvalue(), err.getvalue()
        raise
    return out.getvalue(), err.getvalue()


def write_json(tmp_path, doc, name="story.json") -> str:
    path = tmp_path / name
    path.write_text(doc if isinstance(doc, str) else json.dumps(doc, ensure_ascii=False), encoding="utf-8")
    return str(path)


def write_jsonl(tmp_path, docs, name="stories.jsonl") -> str:
    path = tmp_path / name
    lines = [d if isinstance(d, str) else json.dumps(d, ensure_ascii=False) for d in docs]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return str(path)


def assert_rejected(path: str, *fragments: str, before: dict) -> str:
    """The import of ``path`` fails naming the file and each fragment, writing nothing."""
    with pytest.raises(CommandError) as info:
        run_import(path)
    stderr = info.value.stderr
    assert path in stderr
    for fragment in fragments:
        assert fragment in stderr, stderr
    assert "nothing imported from this file" in stderr
    assert path in str(info.value)
    assert db_state() == before
    return stderr
