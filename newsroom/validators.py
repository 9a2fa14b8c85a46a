"""URLs the site renders into ``href`` and ``src``: http and https only (never
``javascript:``, ``data:`` or ``ftp:``)."""

from django.core.exceptions import ValidationError
from django.core.validators import URLValidator, validate_email

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


def lines_of(text: str) -> list[str]:
    """The non-empty lines of a one-value-per-line field, stripped."""
    return [line.strip() for line in (text or "").splitlines() if line.strip()]


def is_http_url(value: str) -> bool:
    try:
        http_url(value)
    except ValidationError:
        return False
    return True


def is_email(value: str) -> bool:
    try:
        validate_email(value)
    except ValidationError:
        return False
    return True


def check_url_lines(field: str, text: str, *, emails: bool = False) -> None:
    """A ValidationError on ``field`` naming each line that is not an http(s) URL (nor,
    with ``emails``, an email address). Whitespace inside a value is refused, so a value
    can never hold a line break or a second ``key=value``."""
    bad = [line for line in lines_of(text) if not (is_http_url(line) or (emails and is_email(line)))]
    if bad:
        what = "an http:// or https:// URL or an email address" if emails else "an http:// or https:// URL"
        names = ", ".join(repr(line[:80]) for line in bad[:3])
        raise ValidationError({field: f"each line must be {what}: {names} is not"})
