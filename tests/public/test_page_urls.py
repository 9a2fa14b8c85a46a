"""``{% load page_urls %}``'s ``url`` and ``static`` render what Django's own tags render,
and what a changed setting makes them render."""

import pytest
from django.template import engines
from django.test import RequestFactory, override_settings

BODY = (
    "{% url 'home' %}|{% url 'manifest-detail' mid %}|{% url 'newsroom-feed-atom' slug %}|"
    "{% url 'policy' 'verification' %}|{% url 'home' as home %}[{{ home }}]|"
    "{% static 'site/site.css' %}|{% static name %}|{% static 'site/site.css' as css %}[{{ css }}]"
)
CONTEXT = {"mid": "m<1>&'2'", "slug": "tech", "name": "site/cites.js"}


def both():
    engine = engines["django"]
    builtin = engine.from_string("{% load static %}" + BODY)
    kept = engine.from_string("{% load static page_urls %}" + BODY)
    request = RequestFactory().get("/")
    return builtin.render(CONTEXT, request), kept.render(CONTEXT, request), kept.render(CONTEXT, request)


def test_the_kept_answers_are_djangos():
    builtin, first, again = both()
    assert first == builtin and again == builtin
    assert builtin.startswith("/|/manifests/m%3C1%3E&amp;&#x27;2&#x27;/|/n/tech/feed.atom|/policies/verification/|[/]|")


@pytest.mark.parametrize("setting", [{"STATIC_URL": "/elsewhere/"}, {"FORCE_SCRIPT_NAME": "/prefix"}])
def test_a_changed_setting_is_seen(setting):
    before = both()[1]
    with override_settings(**setting):
        builtin, first, again = both()
        assert first == builtin and again == builtin
    assert both()[1] == before
    if "STATIC_URL" in setting:
        assert "/elsewhere/" in builtin and "/elsewhere/" not in before
