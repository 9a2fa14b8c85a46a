"""The newsroom as schema.org sees it: one ``NewsMediaOrganization`` with an ``@id``, on
the home page in full, and referred to by every story's ``publisher`` (same ``@id``, with
its name and logo). Its policy properties point at the policy pages (``newsroom.policies``).
"""

from __future__ import annotations

from django.conf import settings
from django.urls import reverse

from newsroom import policies
from public import renderings
from public.templatetags.page_urls import kept_static

LOGO = "site/logo.png"
DEFAULT_IMAGE = "site/default-image.png"


def absolute(path: str) -> str:
    return path if path.startswith(("http://", "https://")) else settings.SITE_URL + path


def organization_id() -> str:
    return settings.SITE_URL + "/#organization"


def logo_url(profile) -> str:
    return profile.logo_url or absolute(kept_static(LOGO))


def default_image_url(profile) -> str:
    return profile.default_image_url or absolute(kept_static(DEFAULT_IMAGE))


def policy_url(policy: policies.Policy) -> str:
    return settings.SITE_URL + reverse("policy", args=[policy.slug])


def publisher_ref(profile) -> dict:
    """What a story's JSON-LD says of its publisher: the organization's ``@id``, its name and logo."""
    return {
        "@type": "NewsMediaOrganization",
        "@id": organization_id(),
        "name": renderings.site_name(),
        "url": settings.SITE_URL + "/",
        "logo": {"@type": "ImageObject", "url": logo_url(profile)},
    }


def organization(profile) -> dict:
    """The home page's ``NewsMediaOrganization``, with a link to each stated policy."""
    data = {"@context": "https://schema.org", **publisher_ref(profile)}
    for policy in policies.stated(profile):
        data[policy.schema_property] = policy_url(policy)
    data["license"] = settings.SITE_URL + reverse("license-rsl")
    return data


def organization_script_text(profile) -> str:
    return renderings.json_script_text(organization(profile))
