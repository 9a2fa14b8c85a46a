"""Home, newsroom and edition pages, and the site's reuse terms."""

import json

from django.conf import settings
from django.http import Http404, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils.safestring import mark_safe
from django.views.decorators.http import require_safe

from newsroom import policies
from newsroom.infra.keyset import Keyset
from newsroom.infra.pagecache import list_page, public
from newsroom.models import Beat, Edition, Newsroom, SiteProfile
from public import organization
from stories.models import Story

PAGE_SIZE = 20
HOME_EARLIER = 12  # stories from earlier editions on the home page


def _stories():
    return Story.objects.published().select_related("newsroom", "beat")


@require_safe
@public
@list_page
def home(request):
    """The latest edition's stories, the newest stories, and the newsrooms."""
    latest = _stories().newest_first().first()
    edition_stories = list(_stories().in_edition(latest.edition_id).newest_first()) if latest else []
    earlier = list(_stories().exclude(edition_id=latest.edition_id).newest_first()[:HOME_EARLIER]) if latest else []
    newsrooms = Newsroom.objects.having_published().order_by("title")
    profile = SiteProfile.current()
    return render(
        request,
        "public/home.html",
        {
            "edition": latest.edition if latest else None,
            "stories": edition_stories,
            "earlier": earlier,
            "newsrooms": newsrooms,
            "organization_jsonld": mark_safe(organization.organization_script_text(profile)),
            "policies": policies.stated(profile),
        },
    )


@require_safe
@public
@list_page(params=("beat", "before", "page"))
def newsroom_detail(request, slug):
    """A newsroom's published stories, newest first, optionally one beat's (``?beat=``):
    ``PAGE_SIZE`` a page, ``?before=`` pages (``newsroom.infra.keyset``), no total."""
    newsroom = get_object_or_404(Newsroom.objects.having_published(), slug=slug)
    stories = _stories().in_newsroom(newsroom)
    beats = list(Beat.objects.filter(newsroom=newsroom).having_published().order_by("slug"))
    beat = request.GET.get("beat") or None
    if beat is not None:
        chosen = next((b for b in beats if b.slug == beat), None)
        if chosen is None:
            raise Http404("no such beat")
        stories = stories.filter(beat=chosen)
    pages = Keyset(request, stories, "published_at", per_page=PAGE_SIZE, keep={"beat": beat})
    moved = pages.legacy_redirect()
    if moved is not None:
        return moved
    return render(
        request,
        "public/newsroom_detail.html",
        {"newsroom": newsroom, "page": pages.page(), "beats": beats, "beat": beat},
    )


@require_safe
@public
@list_page
def edition_detail(request, edition_id):
    """An hourly edition's published stories; an edition with none is not found."""
    edition = get_object_or_404(Edition, id=edition_id)
    stories = list(_stories().in_edition(edition).newest_first())
    if not stories:
        raise Http404("no published story in this edition")
    return render(request, "public/edition_detail.html", {"edition": edition, "stories": stories})


def _reuse(profile: SiteProfile) -> dict:
    from django.conf import settings

    # The same terms as an RSL 1.0 document (``robots.txt`` names it on its License: line).
    return {**profile.reuse_for(), "rsl_url": settings.SITE_URL + reverse("license-rsl")}


@require_safe
@public
@list_page
def reuse_json(request):
    """``/.well-known/reuse.json``: the site's reuse terms for machines."""
    terms = _reuse(SiteProfile.current())
    # Where the keys that sign every rendering are published (docs/api.md, "Verifying").
    terms["signatures"] = {
        "directory": settings.SITE_URL + reverse("http-message-signatures-directory"),
        "standard": "RFC 9421 HTTP Message Signatures, Ed25519, over an RFC 9530 Content-Digest",
    }
    body = json.dumps(terms, ensure_ascii=False, indent=2)
    return HttpResponse(body, content_type="application/json; charset=utf-8")


@require_safe
@public
@list_page
def reuse_terms(request):
    """``/terms/reuse/``: the same terms for people."""
    return render(request, "public/reuse_terms.html", {"reuse": _reuse(SiteProfile.current())})


@require_safe
@public
def robots_txt(request):
    from django.conf import settings

    lines = [
        "User-agent: *",
        "Disallow: /admin/",
        "Disallow: /api/",
        "Disallow: /search/",
        "",
        f"Sitemap: {settings.SITE_URL}{reverse('django.contrib.sitemaps.views.sitemap')}",
        f"Sitemap: {settings.SITE_URL}{reverse('sitemap-news')}",
        f"License: {settings.SITE_URL}{reverse('license-rsl')}",
    ]
    return HttpResponse("\n".join(lines) + "\n", content_type="text/plain; charset=utf-8")
