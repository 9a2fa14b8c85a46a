"""The site's machine-readable statements, each a pure function of the site profile:
``trust.txt`` (JournalList's format) and the RSL 1.0 licence document (Really Simple
Licensing) that ``robots.txt`` names on its ``License:`` line."""

from __future__ import annotations

from xml.etree import ElementTree as ET

from django.conf import settings

from newsroom.validators import is_email, is_http_url, lines_of

TRUST_TXT_SPEC = "https://journallist.net/reference-document-for-trust-txt-specifications"
# (trust.txt variable, site-profile field); contact= also takes email addresses.
TRUST_KEYS = (
    ("member", "trust_member"),
    ("belongto", "trust_belongto"),
    ("control", "trust_control"),
    ("social", "trust_social"),
    ("contact", "trust_contact"),
)
RSL_NAMESPACE = "https://rslstandard.org/rsl"
RSL_CONTENT_TYPE = "application/rsl+xml; charset=utf-8"


def trust_values(profile, key: str, field: str) -> list[str]:
    """The values of one trust.txt variable. Each is checked again here, not only when
    the admin saves it: a value that is not a URL (or, for contact, an email address)
    is left out, so nothing stored can add a line or a variable."""
    ok = [v for v in lines_of(getattr(profile, field)) if is_http_url(v) or (key == "contact" and is_email(v))]
    return list(dict.fromkeys(ok))


def trust_txt(profile) -> str:
    """``/trust.txt``: a comment naming the site and the format, then one ``variable=value``
    line for each value, in the order of the specification's variables."""
    lines = [f"# trust.txt for {settings.SITE_URL}/", f"# Format: {TRUST_TXT_SPEC}", ""]
    for key, field in TRUST_KEYS:
        lines += [f"{key}={value}" for value in trust_values(profile, key, field)]
    if profile.trust_datatrainingallowed in ("yes", "no"):
        lines.append(f"datatrainingallowed={profile.trust_datatrainingallowed}")
    return "\n".join(lines) + "\n"


def rsl_xml(profile) -> str:
    """The RSL 1.0 licence of the whole site, from the reuse policy that
    ``/.well-known/reuse.json`` states: every use permitted, free with attribution, the
    human-readable terms linked; AI training prohibited when trust.txt says
    ``datatrainingallowed=no``."""
    reuse = profile.reuse_for()
    ET.register_namespace("", RSL_NAMESPACE)

    def el(parent, tag, text=None, **attrs):
        node = ET.SubElement(parent, f"{{{RSL_NAMESPACE}}}{tag}", attrs)
        if text is not None:
            node.text = text
        return node

    root = ET.Element(f"{{{RSL_NAMESPACE}}}rsl")
    content = el(root, "content", url=f"{settings.SITE_URL}/")
    if reuse.get("attribution"):
        el(content, "copyright", reuse["attribution"], type="organization")
    if reuse.get("license_url"):
        el(content, "terms", reuse["license_url"])
    license_ = el(content, "license")
    el(license_, "permits", "all", type="usage")
    if profile.trust_datatrainingallowed == "no":
        el(license_, "prohibits", "ai-train", type="usage")
    el(license_, "payment", type="attribution")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
