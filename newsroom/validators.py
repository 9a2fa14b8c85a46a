"""URLs the site renders into ``href`` and ``src``: http and https only (never
``javascript:``, ``data:`` or ``ftp:``)."""

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator

http_url = URLValidator(schemes=["http", "https"], message="Enter an http:// or https:// URL.")

# What stands for a value in the site profile's URLs before they are rendered.
_PLACEHOLDERS = {"{site_url}": "https://example.org", "{manifest_id}": "0", "{id}": "0"}


def urls_in(value, path: str = ""):
    """(path, url) for every string under a key that names a URL (``url``, ``*_url``,
    ``url_template``) anywhere in a JSON value."""
    if isinstance(value, dict):
        for key, item in value.items():
            where = f"{path}.{key}" if path else str(key)
            if isinstance(item, str) and (key == "url" or key.endswith("_url") or key.startswith("url_")):
                yield where, item
            else:
                yield from urls_in(item, where)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            yield from urls_in(item, f"{path}[{i}]")


def check_json_urls(field: str, value) -> None:
    """A ValidationError on ``field`` naming the first URL in ``value`` that is not http(s)."""
    for where, url in urls_in(value):
        filled = url
        for placeholder, example in _PLACEHOLDERS.items():
            filled = filled.replace(placeholder, example)
        try:
            http_url(filled)
        except ValidationError:
            raise ValidationError({field: f"{where}: {url[:80]!r} is not an http:// or https:// URL"}) from None
