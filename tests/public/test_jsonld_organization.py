"""The home page's NewsMediaOrganization and every story's publisher, which refers to it."""

import json
import re

import pytest

from newsroom.models import SiteProfile

pytestmark = pytest.mark.django_db
STORY = "/stories/2026-10-16/agent-training-stack/"
ORG_ID = "https://hangingcontext.com/#organization"


def _jsonld(html: str) -> dict:
    [text] = re.findall(r'<script type="application/ld\+json">(.*?)</script>', html, re.S)
    return json.loads(text)


def _no_empty_arrays(value, path="$"):
    if isinstance(value, dict):
        for k, v in value.items():
            _no_empty_arrays(v, f"{path}.{k}")
    elif isinstance(value, list):
        assert value, f"empty array at {path}"
        for i, v in enumerate(value):
            _no_empty_arrays(v, f"{path}[{i}]")


def test_home_page_carries_the_organization_with_its_policies(client, demo):
    org = _jsonld(client.get("/").content.decode())
    assert org["@context"] == "https://schema.org" and org["@type"] == "NewsMediaOrganization"
    assert org["@id"] == ORG_ID
    assert org["logo"] == {"@type": "ImageObject", "url": "https://hangingcontext.com/static/site/logo.png"}
    assert org["publishingPrinciples"] == "https://hangingcontext.com/policies/publishing-principles/"
    assert org["correctionsPolicy"] == "https://hangingcontext.com/policies/corrections/"
    assert org["verificationFactCheckingPolicy"] == "https://hangingcontext.com/policies/verification/"
    assert "masthead" not in org and "ownershipFundingInfo" not in org  # not stated: no page to point at
    for key in ("publishingPrinciples", "correctionsPolicy", "verificationFactCheckingPolicy"):
        assert client.get(org[key].removeprefix("https://hangingcontext.com")).status_code == 200
    _no_empty_arrays(org)


def test_every_policy_once_stated(client, demo):
    profile = SiteProfile.load()
    profile.masthead, profile.ownership_funding = "Editor: A. Person", "Owned by its staff."
    profile.logo_url = "https://cdn.example/logo.png"
    profile.save()
    org = _jsonld(client.get("/").content.decode())
    assert org["masthead"] == "https://hangingcontext.com/policies/masthead/"
    assert org["ownershipFundingInfo"] == "https://hangingcontext.com/policies/ownership-funding/"
    assert org["logo"]["url"] == "https://cdn.example/logo.png"


def test_story_publisher_refers_to_the_organization(client, demo):
    data = _jsonld(client.get(STORY).content.decode())
    publisher = data["publisher"]
    assert publisher["@id"] == ORG_ID and publisher["name"] == "Hanging Context"
    assert publisher["logo"]["url"] == "https://hangingcontext.com/static/site/logo.png"
    _no_empty_arrays(data)
    assert "correction" not in data


def test_story_without_image_uses_the_site_default(client, demo):
    profile = SiteProfile.load()
    profile.default_image_url = "https://cdn.example/share.png"
    profile.save()
    html = client.get(STORY).content.decode()
    assert _jsonld(html)["image"] == ["https://cdn.example/share.png"]
    assert '<meta property="og:image" content="https://cdn.example/share.png">' in html


def test_hostile_profile_urls_are_refused():
    from django.core.exceptions import ValidationError

    profile = SiteProfile.load()
    profile.default_image_url = "javascript:alert(1)"
    profile.logo_url = "data:text/html,<script>alert(1)</script>"
    with pytest.raises(ValidationError) as err:
        profile.full_clean()
    assert {"default_image_url", "logo_url"} <= set(err.value.message_dict)
