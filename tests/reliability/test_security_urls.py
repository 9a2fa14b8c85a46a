"""Every URL the site renders into ``href`` or ``src`` is http or https: ``javascript:``,
``data:`` and ``ftp:`` are refused with an error naming the field, in the admin (model
validation) and in the desk/1 and manifests/1 documents."""

import copy

import pytest
from django.core.exceptions import ValidationError

from manifests.formats import validate_manifest
from manifests.models import Manifest
from newsroom.infra.jsondoc import FormatError
from newsroom.models import SiteProfile
from stories import desk

pytestmark = pytest.mark.django_db

BAD = ["javascript:alert(1)", "JaVaScRiPt:alert(1)", "data:text/html,<script>alert(1)</script>", "ftp://example.org/x"]


@pytest.mark.parametrize("url", BAD)
def test_the_site_profile_refuses_a_sponsor_link_that_is_not_http(url):
    profile = SiteProfile.load()
    profile.sponsor = copy.deepcopy(profile.sponsor)
    profile.sponsor["cta"]["url"] = url
    with pytest.raises(ValidationError) as exc:
        profile.full_clean()
    assert "sponsor" in exc.value.message_dict
    assert "cta.url" in exc.value.message_dict["sponsor"][0]


@pytest.mark.parametrize("field", ["reuse", "run_these_manifests"])
def test_the_site_profile_refuses_other_urls_that_are_not_http(field):
    profile = SiteProfile.load()
    value = copy.deepcopy(getattr(profile, field))
    value["evil_url"] = "javascript:alert(1)"
    setattr(profile, field, value)
    with pytest.raises(ValidationError) as exc:
        profile.full_clean()
    assert field in exc.value.message_dict


def test_the_default_site_profile_is_valid():
    SiteProfile.load().full_clean()


@pytest.mark.parametrize("url", BAD)
def test_a_manifest_source_url_must_be_http(manifests_loaded, url):
    manifest = Manifest.objects.first()
    manifest.source_url = url
    with pytest.raises(ValidationError) as exc:
        manifest.full_clean()
    assert "source_url" in exc.value.message_dict


@pytest.mark.parametrize("model_name", ["Image", "RelatedLink"])
def test_story_image_and_related_urls_must_be_http(model_name):
    from stories import models

    field = getattr(models, model_name)._meta.get_field("url")
    with pytest.raises(ValidationError):
        field.clean("javascript:alert(1)", None)
    assert field.clean("https://example.org/a.png", None) == "https://example.org/a.png"


@pytest.mark.parametrize("where", ["images", "related"])
def test_desk_documents_refuse_them(seed_doc, where):
    doc = copy.deepcopy(seed_doc)
    doc[where] = [{"url": "javascript:alert(1)", "alt": "a", "headline": "h"}]
    with pytest.raises(FormatError) as exc:
        desk.validate(doc)
    assert exc.value.path == f"{where}[0].url"


def test_manifest_documents_refuse_them(seed_manifests_doc):
    entry = copy.deepcopy(seed_manifests_doc["manifests"][0])
    entry["source_url"] = "javascript:alert(1)"
    with pytest.raises(FormatError) as exc:
        validate_manifest(entry, "manifests[0]")
    assert exc.value.path == "manifests[0].source_url"
