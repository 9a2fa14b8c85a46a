"""Keyset pagination for the public list pages: newest first, ``?before=<cursor>``.

A page is ``WHERE (t, id) < cursor ORDER BY t DESC, id DESC LIMIT n + 1``: no ``COUNT(*)``
and no ``OFFSET``, so the 10,000th page costs what the first does when an index leads with
``t`` (the extra row says whether an older page exists). Pages show "Newer" and "Older"
links and no total. A cursor is the (time, id) of the row a page starts after, readable in
the URL: ``20261016T003910.123456Z_81``.

Links from before this scheme (``?page=N``) still answer: ``?page=1`` moves permanently to
the first page, ``?page=N`` redirects (302, as the mapping moves with every publish) to the
``before=`` page that now holds the Nth page's rows; finding that takes one OFFSET query,
once per old link, at most ``MAX_LEGACY_PAGE`` pages deep.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from django.core.exceptions import ValidationError
from django.db.models import Q, QuerySet
from django.http import Http404, HttpResponsePermanentRedirect, HttpResponseRedirect
from django.utils.http import urlencode

CURSOR_RE = re.compile(r"(\d{8}T\d{6})(?:\.(\d{6}))?Z_([0-9A-Za-z-]{1,64})")
# ?page= beyond this is not found without a query: an old link this deep is unlikely, and an
# OFFSET of millions of rows on every request (a 302 or 404 is not cached) is a cost anyone
# could ask for.
MAX_LEGACY_PAGE = 500


def encode_cursor(moment: dt.datetime, pk) -> str:
    moment = moment.astimezone(dt.UTC)
    fraction = f".{moment.microsecond:06d}" if moment.microsecond else ""
    return f"{moment:%Y%m%dT%H%M%S}{fraction}Z_{pk}"


def decode_cursor(cursor: str) -> tuple[dt.datetime, str]:
    """The (time, pk) a cursor holds; Http404 when it holds none."""
    match = CURSOR_RE.fullmatch(cursor)
    if match is None:
        raise Http404("no such page")
    stamp, fraction, pk = match.groups()
    try:
        moment = dt.datetime.strptime(stamp, "%Y%m%dT%H%M%S").replace(microsecond=int(fraction or 0), tzinfo=dt.UTC)
    except ValueError:
        raise Http404("no such page") from None
    return moment, pk


@dataclass
class Page:
    """What ``public/_pagination.html`` reads: the rows, and the URLs of the pages before
    (newer) and after (older) this one, ``None`` when there is no such page."""

    object_list: list
    previous_url: str | None  # newer stories (or better-ranked results)
    next_url: str | None
    number: int | None = None  # shown as "Page N" by lists numbered by offset (search)

    @property
    def has_other_pages(self) -> bool:
        return self.previous_url is not None or self.next_url is not None


class Keyset:
    """Newest-first pages of ``queryset`` on (``time_field``, pk), ``per_page`` a page.
    ``keep`` holds the other query parameters the page's links carry (a filter, a query)."""

    def __init__(self, request, queryset: QuerySet, time_field: str, *, per_page: int, keep: dict | None = None):
        self.request = request
        self.time_field = time_field
        self.per_page = per_page
        self.keep = {k: v for k, v in (keep or {}).items() if v}
        self.queryset = queryset.order_by(f"-{time_field}", "-pk")

    def url(self, cursor: str | None = None) -> str:
        """This list's URL: its first page, or the page of the rows older than ``cursor``."""
        params = {**self.keep, "before": cursor} if cursor is not None else self.keep
        return self.request.path + (f"?{urlencode(params)}" if params else "")

    def legacy_redirect(self):
        """The answer to an old ``?page=N`` link (a redirect; Http404 past the end), or
        None for any other URL."""
        raw = self.request.GET.get("page")
        if raw is None or "before" in self.request.GET:
            return None
        try:
            number = int(raw)
        except ValueError:
            raise Http404("no such page") from None
        if not 1 <= number <= MAX_LEGACY_PAGE:
            raise Http404("no such page")
        if number == 1:
            return HttpResponsePermanentRedirect(self.url())
        at = (number - 1) * self.per_page - 1  # the last row of page N - 1, and one after it
        rows = list(self.queryset.values_list(self.time_field, "pk")[at : at + 2])
        if len(rows) < 2:  # page N would be empty
            raise Http404("no such page")
        return HttpResponseRedirect(self.url(encode_cursor(*rows[0])))

    def page(self) -> Page:
        """The requested page (the first without ``before``). A page past the first with no
        row, or a cursor this site did not give out, is not found."""
        raw = self.request.GET.get("before")
        rows = self.queryset
        if raw is not None:
            moment, pk = decode_cursor(raw)
            try:
                pk = self.queryset.model._meta.pk.to_python(pk)
            except ValidationError:
                raise Http404("no such page") from None
            t = self.time_field
            # ``t <= moment`` on its own, so that an index on t bounds the scan; the OR only breaks ties.
            rows = rows.filter(Q(**{f"{t}__lte": moment}), Q(**{f"{t}__lt": moment}) | Q(pk__lt=pk))
        rows = list(rows[: self.per_page + 1])
        if raw is not None and not rows:
            raise Http404("no such page")
        older = None
        if len(rows) > self.per_page:
            last = rows[self.per_page - 1]
            older = self.url(encode_cursor(getattr(last, self.time_field), last.pk))
        newer = self.url(self._newer_cursor(moment, pk)) if raw is not None else None
        return Page(rows[: self.per_page], newer, older)

    def _newer_cursor(self, moment, pk) -> str | None:
        """The cursor of the page holding the ``per_page`` rows just newer than this page:
        the (per_page + 1)th row at or above this page's cursor, walking up; None (the
        first page) when there are not that many."""
        t = self.time_field
        above = self.queryset.filter(Q(**{f"{t}__gte": moment}), Q(**{f"{t}__gt": moment}) | Q(pk__gte=pk))
        rows = list(above.order_by(t, "pk").values_list(t, "pk")[self.per_page : self.per_page + 1])
        return encode_cursor(*rows[0]) if rows else None
