"""Reading JSON documents with errors that name the JSON path of the problem.

Shared by the desk/1 story format (``stories.desk``) and manifests/1 (``manifests.formats``).
"""

import datetime as dt
import json
import re

# Matched with ``fullmatch`` and ASCII-only classes: ``$`` alone would accept a trailing
# newline ("81\n"), which PostgreSQL's check constraints then refuse.
ID_RE = re.compile(r"[0-9A-Za-z_-]{1,64}")
SLUG_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
DATE_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
TIMESTAMP_RE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\.[0-9]+)?(Z|[+-][0-9]{2}:[0-9]{2})")
URL_RE = re.compile(r"https?://[^\s/$.?#][^\s]*")
MAX_TEXT = 100_000
# The characters XML 1.0 cannot hold (the C0 controls but tab, newline and carriage return,
# and U+FFFE, U+FFFF): a story's text is written into Atom, RSS and sitemap XML, which would
# fail, or be invalid, for every reader of the feed. A class of characters: linear.
NOT_XML_RE = re.compile("[\x01-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


class FormatError(ValueError):
    """A document that is not well-formed. ``path`` is a JSON path (``sections[2].paragraphs[1]``)."""

    def __init__(self, path: str, message: str):
        self.path = path
        self.message = message
        super().__init__(f"{path}: {message}")

    def as_dict(self) -> dict:
        return {"path": self.path, "message": self.message}


def loads(text: str | bytes) -> object:
    """JSON text to Python, keeping big integers exact (they are then rejected as ids)."""
    try:
        return json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise FormatError("$", f"not JSON: {exc}") from None
    except RecursionError:
        raise FormatError("$", "not JSON: nested too deeply") from None
    except ValueError as exc:  # e.g. an integer literal past Python's digit limit
        raise FormatError("$", f"not JSON: {exc}") from None


class V:
    """Small typed readers that raise FormatError with the path of the bad value."""

    @staticmethod
    def obj(value, path):
        if not isinstance(value, dict):
            raise FormatError(path, f"must be an object, not {_kind(value)}")
        return value

    @staticmethod
    def lst(value, path):
        if not isinstance(value, list):
            raise FormatError(path, f"must be a list, not {_kind(value)}")
        return value

    @staticmethod
    def string(value, path, *, required=True, nonempty=False, max_length=MAX_TEXT):
        if (
            type(value) is str
            and value.isprintable()  # no NUL, no control character, no lone surrogate
            and len(value) <= max_length
            and (not nonempty or (value != "" and not value.isspace()))
        ):
            return value  # most text: every check below passes, read in C
        if value is None and not required:
            return ""
        if not isinstance(value, str):
            raise FormatError(path, f"must be a string, not {_kind(value)}")
        if nonempty and not value.strip():
            raise FormatError(path, "must not be empty")
        if len(value) > max_length:
            raise FormatError(path, f"is longer than {max_length} characters")
        if "\x00" in value:
            raise FormatError(path, "must not contain NUL characters")
        if not value.isprintable():  # printable text (most of it) has none of these characters
            refuse_not_xml(value, path)
        if not value.isascii():
            _refuse_surrogates(value, path)
        return value

    @staticmethod
    def ident(value, path):
        if isinstance(value, bool) or not isinstance(value, str):
            hint = (
                " (ids are strings: quote it)"
                if isinstance(value, (int, float)) and not isinstance(value, bool)
                else ""
            )
            raise FormatError(path, f"must be a string id, not {_kind(value)}{hint}")
        if not ID_RE.fullmatch(value):
            raise FormatError(path, f"{value[:80]!r} is not a valid id (letters, digits, - and _)")
        return value

    @staticmethod
    def slug(value, path, *, max_length=200):
        V.string(value, path, max_length=max_length)
        if not SLUG_RE.fullmatch(value):
            raise FormatError(path, f"{value[:80]!r} is not a slug ([a-z0-9-]+)")
        return value

    @staticmethod
    def boolean(value, path):
        if not isinstance(value, bool):
            raise FormatError(path, f"must be true or false, not {_kind(value)}")
        return value

    @staticmethod
    def timestamp(value, path):
        V.string(value, path, max_length=40)
        if not TIMESTAMP_RE.fullmatch(value):
            raise FormatError(path, f"{value!r} is not an ISO 8601 time with a zone (YYYY-MM-DDTHH:MM:SSZ)")
        try:
            moment = dt.datetime.fromisoformat(value.replace("Z", "+00:00")).astimezone(dt.UTC)
        except ValueError as exc:
            raise FormatError(path, f"{value!r} is not a real time: {exc}") from None
        except OverflowError:  # 9999-12-31T23:59:59-01:00 is past the year 9999 in UTC
            raise FormatError(path, f"{value!r} is out of range once converted to UTC") from None
        # desk/1 times are to the second; finer digits would not survive an export.
        return moment.replace(microsecond=0)

    @staticmethod
    def date(value, path):
        V.string(value, path, max_length=10)
        if not DATE_RE.fullmatch(value):
            raise FormatError(path, f"{value!r} is not a date (YYYY-MM-DD)")
        try:
            return dt.date.fromisoformat(value)
        except ValueError as exc:
            raise FormatError(path, f"{value!r} is not a real date: {exc}") from None

    @staticmethod
    def url(value, path):
        V.string(value, path, nonempty=True, max_length=1000)
        if not URL_RE.fullmatch(value):
            raise FormatError(path, f"{value[:80]!r} is not an http(s) URL")
        return value

    @staticmethod
    def strings(value, path):
        return [V.string(item, f"{path}[{i}]", nonempty=True) for i, item in enumerate(V.lst(value, path))]

    @staticmethod
    def optional_int(value, path):
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, int) or value < 0 or value > 100_000:
            raise FormatError(path, f"must be a whole number of pixels or null, not {_kind(value)}")
        return value


def not_xml_message(value: str) -> str | None:
    """Why ``value`` cannot be written as XML 1.0 text (a control character or U+FFFE/U+FFFF
    in it), or None."""
    found = NOT_XML_RE.search(value)
    if found is None:
        return None
    code = ord(found.group())
    if code >= 0xFFFE:
        return f"contains U+{code:04X}, which is not a character (XML cannot hold it)"
    return f"contains the control character U+{code:04X}"


def xml_text(value: str) -> str:
    """``value`` without the characters XML 1.0 cannot hold: for the XML writers (feeds,
    sitemaps), whatever text reached the database before these characters were refused."""
    return value if value.isprintable() else NOT_XML_RE.sub("", value)


def refuse_not_xml(value: str, path: str) -> None:
    if (message := not_xml_message(value)) is not None:
        raise FormatError(path, message)


def _refuse_surrogates(value: str, path: str) -> None:
    """A lone surrogate (``"\\ud800"`` in JSON, or UTF-8-encoded surrogate bytes, which
    ``json.loads`` of bytes lets through) is not a character: no database column or UTF-8
    file can hold it, so it would fail on save or export instead of here."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise FormatError(
            path, f"contains a lone surrogate (U+{ord(value[exc.start]):04X}), which is not a character"
        ) from None


def _kind(value) -> str:
    if value is None:
        return "null"
    return {
        bool: "a boolean",
        int: "a number",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "an object",
    }.get(type(value), type(value).__name__)


def require(data: dict, key: str, path: str = "$"):
    if key not in data:
        raise FormatError(f"{path}.{key}" if path != "$" else key, f"missing required field '{key}'")
    return data[key]
