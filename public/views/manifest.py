"""The public page of a manifest: the source, its claims, and the published stories that
cite each claim.
"""

from collections import defaultdict

from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_safe

from manifests.models import Manifest
from newsroom.infra.pagecache import list_page, public
from stories.models import Story

# The two ways a claim is cited by a story: from a paragraph or from a key fact.
CITING_PATHS = ("citations__cite__paragraph__section__story", "citations__cite__key_fact__story")


def citing_story_ids(manifest) -> dict[str, list[str]]:
    """claim id -> ids of the published stories citing it (one query per citing path)."""
    out = defaultdict(list)
    for path in CITING_PATHS:
        rows = manifest.claims.filter(**{f"{path}__status": "published"}).values_list("id", f"{path}__id").distinct()
        for claim_id, story_id in rows:
            if story_id not in out[claim_id]:
                out[claim_id].append(story_id)
    return out


@require_safe
@public
@list_page
def manifest_detail(request, manifest_id):
    manifest = get_object_or_404(Manifest.objects.select_related("publisher"), id=manifest_id)
    claims = list(manifest.claims.order_by("position", "id"))
    by_claim = citing_story_ids(manifest)
    ids = {sid for sids in by_claim.values() for sid in sids}
    stories = {s.id: s for s in Story.objects.published().filter(id__in=ids).newest_first()}
    rows = [{"claim": c, "stories": [stories[s] for s in by_claim.get(c.id, []) if s in stories]} for c in claims]
    citing = sorted(stories.values(), key=lambda s: s.published_at, reverse=True)
    return render(request, "public/manifest_detail.html", {"manifest": manifest, "rows": rows, "citing": citing})
