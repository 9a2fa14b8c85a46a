"""The public page of a manifest: the source, its claims, and the published stories that
cite each claim.
"""

from collections import defaultdict

from django.http import Http404
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_safe

from manifests.models import Manifest
from newsroom.infra.pagecache import list_page, public
from stories.models import Cite, Story


@require_safe
@public
@list_page
def manifest_detail(request, manifest_id):
    manifest = get_object_or_404(Manifest.objects.select_related("publisher"), id=manifest_id)
    claims = list(manifest.claims.order_by("position", "id"))
    by_claim = defaultdict(set)
    citing = Cite.objects.citing(claim=manifest.claims.all()).of_published_stories()
    for claim_id, story_id in citing.values_list("claims__claim_id", "story_id").order_by().distinct():
        by_claim[claim_id].add(story_id)
    ids = {sid for sids in by_claim.values() for sid in sids}
    stories = list(Story.objects.published().filter(id__in=ids).newest_first())
    if not stories:
        # A source is public once a published story cites it: a draft's sources stay private.
        raise Http404("no published story cites this manifest")
    rows = [{"claim": c, "stories": [s for s in stories if s.id in by_claim.get(c.id, ())]} for c in claims]
    return render(request, "public/manifest_detail.html", {"manifest": manifest, "rows": rows, "citing": stories})
