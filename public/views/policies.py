"""The newsroom's policy pages, ``trust.txt`` and the RSL licence document.

All follow the ``lists`` generation (``newsroom.infra.pagecache.list_page``), which a save
of the site profile moves (``stories.cache``): an edit in the admin shows at once, and a
warm request costs no query.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from django.http import Http404, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from newsroom import policies
from newsroom.infra.pagecache import list_page, public
from newsroom.models import SiteProfile
from public import markup, sitefiles

TEXTS = Path(__file__).resolve().parent.parent / "texts"


@cache
def shipped_text(slug: str) -> str:
    """The maintained Markdown the app ships for a policy (the checks, for verification)."""
    return (TEXTS / f"{slug}.md").read_text(encoding="utf-8")


@require_safe
@public
@list_page
def policy(request, slug):
    """``/policies/<slug>/``: a policy's text (sanitised Markdown); a policy the site does
    not state is not found."""
    chosen = policies.BY_SLUG.get(slug)
    profile = SiteProfile.current()
    if chosen is None or chosen not in policies.stated(profile):
        raise Http404("no such policy")
    parts = [shipped_text(slug)] if chosen.shipped else []
    own = (getattr(profile, chosen.field) or "").strip()
    context = {
        "policy": chosen,
        "shipped_html": markup.to_html(parts[0]) if parts else "",
        "html": markup.to_html(own) if own else "",
        "others": [p for p in policies.stated(profile) if p != chosen],
    }
    return render(request, "public/policy.html", context)


@require_safe
@public
@list_page
def trust_txt(request):
    """``/trust.txt`` and ``/.well-known/trust.txt``."""
    return HttpResponse(sitefiles.trust_txt(SiteProfile.current()), content_type="text/plain; charset=utf-8")


@require_safe
@public
@list_page
def license_rsl(request):
    """``/license.xml``: the site's reuse terms as an RSL 1.0 document."""
    return HttpResponse(sitefiles.rsl_xml(SiteProfile.current()), content_type=sitefiles.RSL_CONTENT_TYPE)
