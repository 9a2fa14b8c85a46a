"""Parts of the story page made in Python rather than by the template language are byte for
byte what the template's loops made (kept here as they were)."""

import pytest
from django.template import engines
from django.utils.html import format_html
from django.utils.safestring import mark_safe

from public import presenters

SOURCES_LOOP = """<ol class="source-list">
      {% for s in sources %}
      <li id="source-{{ s.n }}" value="{{ s.n }}">
        <p class="source-title"><a href="{{ s.source_url }}" rel="nofollow noopener">{{ s.title }}</a></p>
        <p class="source-meta">{{ s.source_name }} · {{ s.published_date }} · Manifest <a href="{% url 'manifest-detail' s.manifest_id %}"><code>{{ s.manifest_id }}</code></a></p>
        {% if s.claims %}
        <details open>
          <summary>{{ s.claims|length }} cited claim{{ s.claims|length|pluralize }}</summary>
          <ul class="claims">
            {% for c in s.claims %}<li id="claim-{{ c.id }}">{% if c.text %}{{ c.text }}{% else %}<em>Claim text not yet fetched.</em>{% endif %}{% if c.self_reported %} <span class="flag">Self-reported</span>{% endif %} <code class="claim-id">{{ c.id }}</code></li>
            {% endfor %}
          </ul>
        </details>
        {% endif %}
      </li>
      {% endfor %}
    </ol>"""

SOURCES_NOW = """<ol class="source-list">
      {{ sources_html }}
    </ol>"""


def claim(cid, text="A claim.", self_reported=False):
    return {"id": cid, "text": text, "self_reported": self_reported}


SOURCES = [
    presenters.Source(
        1,
        "m-1",
        'Tom & Jerry\'s "<b>report</b>"',
        "example.org <i>",
        "https://example.org/a?x=1&y='2'",
        "2026-10-15",
        [claim("c-1", "Less < more & \"quoted\" 'single'"), claim("c-2", "", None), claim("c-3", "Own.", True)],
    ),
    presenters.Source(2, "m-2", "One claim", "b.example", "https://b.example/", "2026-01-02", [claim("c-4")]),
    presenters.Source(3, "m-3", "No claims cited", "c.example", "https://c.example/", "", []),
    presenters.Source(
        12, "m-4", "Self-reported unknown", "d.example", "https://d.example/", None, [claim("c-5", "x", None)]
    ),
]


@pytest.mark.parametrize("sources", [SOURCES, SOURCES[:1], SOURCES[2:3], []], ids=["all", "one", "no-claims", "none"])
def test_the_sources_list_is_the_templates_loop(sources):
    engine = engines["django"]
    before = engine.from_string(SOURCES_LOOP).render({"sources": sources})
    after = engine.from_string(SOURCES_NOW).render({"sources_html": presenters.sources_html(sources)})
    assert after == before
    assert sources == [] or ("source-list" in after and f'id="source-{sources[0].n}"' in after)


def markers_as_format_html(cites, sources):
    """``markers_html`` as it was written with ``format_html``."""
    out = []
    for cite in cites:
        source = sources.get(cite["manifest_id"])
        if source is not None:
            out.append(
                format_html(
                    '<sup class="cite"><a href="#source-{}" data-claims="{}" aria-label="Source {}: {}">[{}]</a></sup>',
                    source.n,
                    " ".join(cite["claim_ids"]),
                    source.n,
                    source.title,
                    source.n,
                )
            )
    return "".join(out)


def test_the_cite_markers_are_format_htmls():
    sources = {s.manifest_id: s for s in SOURCES}
    sources["m-safe"] = presenters.Source(7, "m-safe", mark_safe("<b>kept</b> & safe"), "e", "https://e/", "", [])
    cites = [
        {"manifest_id": "m-1", "claim_ids": ["c-1", "c<2>&'\""]},
        {"manifest_id": "m-unknown", "claim_ids": ["c-9"]},
        {"manifest_id": "m-4", "claim_ids": []},
        {"manifest_id": "m-safe", "claim_ids": ["c-3"]},
    ]
    got = presenters.markers_html(cites, sources)
    assert got == markers_as_format_html(cites, sources)
    assert "<b>kept</b>" in got and "Tom &amp; Jerry&#x27;s" in got


KEY_FACTS_LOOP = """<ul>
      {% for f in key_facts %}
      <li>{{ f.text }}{% if f.self_reported %} <span class="flag" title="Every claim this fact cites is the source reporting on itself">Self-reported</span>{% endif %}{{ f.markers }}</li>
      {% endfor %}
    </ul>"""

SECTIONS_LOOP = """<div class="story-body">
    {% for s in sections %}
    <section aria-labelledby="{{ s.anchor }}">
      <h2 id="{{ s.anchor }}">{{ s.heading }}</h2>
      {% for p in s.paragraphs %}<div class="para">{{ p }}</div>
      {% endfor %}
    </section>
    {% endfor %}
  </div>"""

KEY_FACTS = [
    {"text": "Tom & Jerry's <b>fact</b>", "self_reported": True, "markers": mark_safe('<sup class="cite">[1]</sup>')},
    {"text": "Plain.", "self_reported": None, "markers": mark_safe("")},
    {"text": 'Not flagged "quoted"', "self_reported": False, "markers": mark_safe('<sup class="cite">[2]</sup>')},
]

SECTIONS = [
    {
        "heading": "A & B <i>",
        "anchor": "section-1",
        "paragraphs": [mark_safe("<p>One <em>para</em>.</p>"), mark_safe("<ul><li>x</li></ul>")],
    },
    {"heading": "", "anchor": "section-2", "paragraphs": []},
    {"heading": None, "anchor": "section-3", "paragraphs": [mark_safe("<p>Three</p>")]},
]


@pytest.mark.parametrize("facts", [KEY_FACTS, KEY_FACTS[1:2], []], ids=["all", "one", "none"])
def test_the_key_facts_are_the_templates_loop(facts):
    engine = engines["django"]
    before = engine.from_string(KEY_FACTS_LOOP).render({"key_facts": facts})
    now = "<ul>\n      {{ key_facts_html }}\n    </ul>"
    after = engine.from_string(now).render({"key_facts_html": presenters.key_facts_html(facts)})
    assert after == before
    assert facts != KEY_FACTS or "Tom &amp; Jerry&#x27;s &lt;b&gt;fact" in after


@pytest.mark.parametrize("sections", [SECTIONS, SECTIONS[1:2], []], ids=["all", "empty-section", "none"])
def test_the_sections_are_the_templates_loop(sections):
    engine = engines["django"]
    before = engine.from_string(SECTIONS_LOOP).render({"sections": sections})
    now = '<div class="story-body">\n    {{ sections_html }}\n  </div>'
    after = engine.from_string(now).render({"sections_html": presenters.sections_html(sections)})
    assert after == before
    assert sections != SECTIONS or ("<p>One <em>para</em>.</p>" in after and "A &amp; B &lt;i&gt;" in after)
