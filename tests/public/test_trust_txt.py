"""trust.txt (JournalList): one variable=value line per value, from the site profile."""

import re

import pytest
from django.core.exceptions import ValidationError

from newsroom.models import SiteProfile

pytestmark = pytest.mark.django_db

LINE = re.compile(r"^(#.*|(member|belongto|control|social|contact|vendor|customer|datatrainingallowed)=\S+|)$")


def _profile(**fields):
    profile = SiteProfile.load()
    for name, value in fields.items():
        setattr(profile, name, value)
    profile.save()
    return profile


@pytest.mark.parametrize("url", ["/trust.txt", "/.well-known/trust.txt"])
def test_trust_txt_lists_each_value_on_its_own_line(client, url, django_assert_max_num_queries):
    _profile(
        trust_member="https://journallist.net\nhttps://example.org/association",
        trust_social="https://social.example/@hc",
        trust_contact="editors@example.org\nhttps://example.org/contact",
        trust_datatrainingallowed="no",
    )
    with django_assert_max_num_queries(1):
        response = client.get(url)
    assert response["Content-Type"] == "text/plain; charset=utf-8"
    body = response.content.decode()
    assert all(LINE.match(line) for line in body.splitlines()), body
    assert "member=https://journallist.net\nmember=https://example.org/association\n" in body
    assert "social=https://social.example/@hc" in body
    assert "contact=editors@example.org\ncontact=https://example.org/contact" in body
    assert body.endswith("datatrainingallowed=no\n")


def test_an_empty_profile_gives_comments_only(client):
    body = client.get("/trust.txt").content.decode()
    assert [line for line in body.splitlines() if line and not line.startswith("#")] == []


@pytest.mark.parametrize(
    "field,value",
    [
        ("trust_member", "javascript:alert(1)"),
        ("trust_belongto", "<script>alert(1)</script>"),
        ("trust_control", "https://example.org/a b"),
        ("trust_social", "https://example.org\rcontrol=https://evil.example"),
        ("trust_contact", "not an address"),
    ],
)
def test_the_admin_refuses_what_is_not_a_url(field, value):
    profile = SiteProfile.load()
    setattr(profile, field, value)
    with pytest.raises(ValidationError) as err:
        profile.full_clean()
    assert field in err.value.message_dict


def test_hostile_text_stored_without_the_admin_adds_no_line(client):
    _profile(
        trust_member="https://ok.example\njavascript:alert(1)\nhttps://x.example/ datatrainingallowed=yes",
        trust_social="<script>alert(1)</script>",
        trust_contact="a@b.example\r\nbelongto=https://evil.example",
    )
    body = client.get("/trust.txt").content.decode()
    assert all(LINE.match(line) for line in body.splitlines()), body
    assert "javascript" not in body and "<script" not in body and "evil" not in body
    assert "datatrainingallowed" not in body
    assert "member=https://ok.example" in body and "contact=a@b.example" in body


def test_a_profile_save_shows_at_once(client):
    client.get("/trust.txt")
    _profile(trust_control="https://sister.example")
    assert "control=https://sister.example" in client.get("/trust.txt").content.decode()
