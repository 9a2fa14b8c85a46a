"""The newsroom's policy pages, the RSL licence and robots.txt's License: line."""

from xml.etree import ElementTree as ET

import pytest

from newsroom.models import SiteProfile

pytestmark = pytest.mark.django_db
RSL = "{https://rslstandard.org/rsl}"


def _profile(**fields):
    profile = SiteProfile.load()
    for name, value in fields.items():
        setattr(profile, name, value)
    profile.save()
    return profile


def test_verification_page_explains_the_checks_and_adds_the_profile_text(client, django_assert_max_num_queries):
    _profile(verification_policy="Our editors read **every** story.")
    with django_assert_max_num_queries(1):
        response = client.get("/policies/verification/")
    html = response.content.decode()
    assert response.status_code == 200
    assert "Its sources are recent." in html and "checks.json" in html
    assert "Our editors read <strong>every</strong> story." in html


@pytest.mark.parametrize("slug", ["publishing-principles", "corrections"])
def test_default_policies_have_pages(client, slug):
    assert client.get(f"/policies/{slug}/").status_code == 200


@pytest.mark.parametrize("slug", ["ownership-funding", "masthead", "no-such-policy"])
def test_a_policy_not_stated_is_not_found(client, slug):
    assert client.get(f"/policies/{slug}/").status_code == 404


@pytest.mark.parametrize(
    "field,slug",
    [
        ("publishing_principles", "publishing-principles"),
        ("corrections_policy", "corrections"),
        ("verification_policy", "verification"),
        ("ownership_funding", "ownership-funding"),
        ("masthead", "masthead"),
    ],
)
def test_hostile_markdown_is_sanitised(client, field, slug):
    _profile(**{field: '<script>alert(1)</script>\n\n[x](javascript:alert(1)) <img src=x onerror="alert(1)">'})
    html = client.get(f"/policies/{slug}/").content.decode()
    # shown as text, never as markup: no script element, no javascript: link, no image
    assert "<script>alert" not in html and 'href="javascript:' not in html and "<img" not in html


def test_policy_pages_follow_profile_saves(client):
    assert client.get("/policies/masthead/").status_code == 404
    _profile(masthead="Editor: A. Person")
    assert "Editor: A. Person" in client.get("/policies/masthead/").content.decode()


def test_robots_txt_names_the_rsl_licence(client):
    body = client.get("/robots.txt").content.decode()
    assert "License: https://hangingcontext.com/license.xml" in body.splitlines()


def test_rsl_licence_states_the_reuse_policy(client, django_assert_max_num_queries):
    with django_assert_max_num_queries(1):
        response = client.get("/license.xml")
    assert response["Content-Type"] == "application/rsl+xml; charset=utf-8"
    root = ET.fromstring(response.content)
    assert root.tag == f"{RSL}rsl"
    [content] = root.findall(f"{RSL}content")
    assert content.get("url") == "https://hangingcontext.com/"
    assert content.find(f"{RSL}terms").text == "https://hangingcontext.com/terms/reuse/"
    assert content.find(f"{RSL}copyright").text == "Hanging Context, with provenance by Synorb"
    license_ = content.find(f"{RSL}license")
    assert license_.find(f"{RSL}permits").text == "all"
    assert license_.find(f"{RSL}payment").get("type") == "attribution"
    assert license_.find(f"{RSL}prohibits") is None


def test_rsl_prohibits_training_when_trust_txt_does(client):
    _profile(trust_datatrainingallowed="no")
    root = ET.fromstring(client.get("/license.xml").content)
    assert root.find(f"{RSL}content/{RSL}license/{RSL}prohibits").text == "ai-train"


def test_reuse_json_links_the_rsl_licence(client):
    assert client.get("/.well-known/reuse.json").json()["rsl_url"] == "https://hangingcontext.com/license.xml"
