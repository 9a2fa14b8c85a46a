"""The stories list's query parameters, read strictly: a value that cannot be used is a
400 naming the parameter, never an empty or unfiltered list."""

import datetime as dt
import re

from django.utils.dateparse import parse_datetime

from newsroom.infra.jsondoc import SLUG_RE
from newsroom.models import EDITION_REGEX, Beat, Newsroom

from .errors import BadParameter

DATE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}$")


def parse_time(name: str, value: str) -> dt.datetime:
    """An ISO 8601 time with a zone (``2026-10-16T00:00:00Z``), or a date (midnight UTC)."""
    try:
        if DATE_RE.match(value):
            return dt.datetime.combine(dt.date.fromisoformat(value), dt.time(), tzinfo=dt.UTC)
        moment = parse_datetime(value.replace(" ", "+"))  # a '+' in a query string arrives as a space
    except ValueError:
        moment = None
    if moment is None or moment.tzinfo is None:
        raise BadParameter(name, f"{value[:40]!r} is not an ISO 8601 time with a zone, e.g. 2026-10-16T00:00:00Z")
    # In UTC, as the database compares it: 9999-12-31T23:59:59-23:59 is past the year 9999
    # there, which Python cannot hold and PostgreSQL refused with an error (a 500).
    try:
        return moment.astimezone(dt.UTC)
    except OverflowError:
        raise BadParameter(name, f"{value[:40]!r} is out of range once converted to UTC") from None


def parse_slug(name: str, value: str) -> str:
    if not SLUG_RE.match(value) or len(value) > 100:
        raise BadParameter(name, f"{value[:40]!r} is not a slug")
    return value


def present(params, name: str) -> str | None:
    """The parameter's value; None when absent; a 400 when given empty (``?newsroom=``): an
    empty filter is more likely a client's bug than a wish for no filter."""
    if name not in params:
        return None
    value = params.get(name)
    if not value:
        raise BadParameter(name, "is empty: give a value or leave the parameter out")
    return value


def filter_stories(queryset, params):
    """Apply ``newsroom``, ``beat``, ``edition``, ``published_after`` and ``updated_since``."""
    newsroom = None
    if value := present(params, "newsroom"):
        # Only newsrooms and beats readers can see: one with nothing published is not named.
        newsroom = Newsroom.objects.having_published().filter(slug=parse_slug("newsroom", value)).first()
        if newsroom is None:
            raise BadParameter("newsroom", f"there is no newsroom {value!r}")
        queryset = queryset.in_newsroom(newsroom)
    if value := present(params, "beat"):
        beats = Beat.objects.having_published().filter(slug=parse_slug("beat", value))
        if newsroom is not None:
            beats = beats.filter(newsroom=newsroom)
        if not beats.exists():
            raise BadParameter("beat", f"there is no beat {value!r}" + (f" in {newsroom.slug}" if newsroom else ""))
        queryset = queryset.filter(beat__in=beats)
    if value := present(params, "edition"):
        if re.match(EDITION_REGEX, value):
            queryset = queryset.filter(edition_id=value)
        elif DATE_RE.match(value):
            try:
                day = dt.date.fromisoformat(value)
            except ValueError:
                raise BadParameter("edition", f"{value!r} is not a real date") from None
            queryset = queryset.filter(edition_date=day)
        else:
            raise BadParameter("edition", f"{value[:40]!r} is not an edition (YYYY-MM-DDTHH) or a date (YYYY-MM-DD)")
    if value := present(params, "published_after"):
        queryset = queryset.filter(published_at__gt=parse_time("published_after", value))
    if value := present(params, "updated_since"):
        queryset = queryset.filter(updated_at__gte=parse_time("updated_since", value))
    return queryset
