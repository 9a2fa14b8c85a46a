"""Keyset ("cursor") pagination: ``WHERE (t, id) > (cursor) ORDER BY t, id LIMIT n``.

No OFFSET, so page 1,000 costs what page 1 does, and a row updated mid-walk moves to the
end instead of shifting every later page (no row is skipped or served twice by a walk).
"""

import base64
import binascii
import datetime as dt
import json

from django.core.exceptions import ValidationError
from django.db.models import Q
from rest_framework.pagination import BasePagination
from rest_framework.response import Response
from rest_framework.utils.urls import replace_query_param

from newsroom.infra.jsondoc import ID_RE

from .errors import BadParameter
from .filters import present


def encode_cursor(moment: dt.datetime, pk) -> str:
    raw = json.dumps([moment.astimezone(dt.UTC).isoformat(), pk], separators=(",", ":"))
    return base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")


def decode_cursor(cursor: str) -> tuple[dt.datetime, object]:
    """The (time, pk) a cursor holds; BadParameter when it holds none."""
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        moment, pk = json.loads(raw)
        moment = dt.datetime.fromisoformat(moment)
        if moment.tzinfo is not None:
            moment.astimezone(dt.UTC)  # a time the database can hold (not past year 9999 in UTC)
    except (binascii.Error, ValueError, TypeError, UnicodeDecodeError, OverflowError):
        raise BadParameter("cursor", "not a cursor this API gave out") from None
    if isinstance(pk, str) and not ID_RE.fullmatch(pk):
        raise BadParameter("cursor", "not a cursor this API gave out")
    if isinstance(pk, int) and not 0 <= pk < 2**63:
        raise BadParameter("cursor", "not a cursor this API gave out")
    if moment.tzinfo is None or not isinstance(pk, (str, int)) or isinstance(pk, bool):
        raise BadParameter("cursor", "not a cursor this API gave out")
    return moment, pk


def parse_page_size(value: str | None, *, default: int, maximum: int) -> int:
    if value is None or value == "":
        return default
    try:
        size = int(value)
    except ValueError:
        raise BadParameter("page_size", f"must be a whole number from 1 to {maximum}") from None
    if not 1 <= size <= maximum:
        raise BadParameter("page_size", f"must be a whole number from 1 to {maximum}")
    return size


class KeysetPagination(BasePagination):
    """Pages in the order of ``view.keyset`` = (time field, pk field), ascending unless
    ``view.keyset_descending``. Each page carries ``next`` (a URL, null on the last page) and
    ``next_cursor`` (where to resume, even after the last page: keep it for the next poll)."""

    page_size = 50
    max_page_size = 100

    def paginate_queryset(self, queryset, request, view=None):
        time_field, pk_field = view.keyset
        descending = getattr(view, "keyset_descending", False)
        self.request = request
        size = parse_page_size(
            present(request.query_params, "page_size"), default=self.page_size, maximum=self.max_page_size
        )
        sign = "-" if descending else ""
        queryset = queryset.order_by(f"{sign}{time_field}", f"{sign}{pk_field}")
        self.cursor = present(request.query_params, "cursor")
        if self.cursor:
            queryset = queryset.filter(
                self._after(queryset.model, time_field, pk_field, descending, *decode_cursor(self.cursor))
            )
        rows = list(queryset[: size + 1])
        self.has_next = len(rows) > size
        rows = rows[:size]
        if rows:
            last = rows[-1]
            self.next_cursor = encode_cursor(getattr(last, time_field), getattr(last, pk_field))
        else:
            self.next_cursor = self.cursor
        return rows

    @staticmethod
    def _after(model, time_field, pk_field, descending, moment, pk) -> Q:
        try:
            pk = model._meta.get_field(pk_field).to_python(pk)
        except ValidationError:
            raise BadParameter("cursor", "not a cursor this API gave out") from None
        op = "lt" if descending else "gt"
        # The redundant first term lets the database walk the (time, id) index from the cursor.
        return Q(**{f"{time_field}__{op}e": moment}) & (
            Q(**{f"{time_field}__{op}": moment}) | Q(**{time_field: moment, f"{pk_field}__{op}": pk})
        )

    def get_next_link(self):
        if not self.has_next:
            return None
        return replace_query_param(self.request.build_absolute_uri(), "cursor", self.next_cursor)

    def get_paginated_response(self, data):
        return Response({"next": self.get_next_link(), "next_cursor": self.next_cursor, "results": data})

    def get_paginated_response_schema(self, schema):
        return {
            "type": "object",
            "required": ["next", "next_cursor", "results"],
            "properties": {
                "next": {
                    "type": "string",
                    "format": "uri",
                    "nullable": True,
                    "description": "The next page; null on the last.",
                },
                "next_cursor": {
                    "type": "string",
                    "nullable": True,
                    "description": "Where to resume (pass as `cursor`), also after the last page.",
                },
                "results": schema,
            },
        }

    def get_schema_operation_parameters(self, view):
        return [
            {
                "name": "cursor",
                "required": False,
                "in": "query",
                "description": "An opaque cursor from `next_cursor` or `next`.",
                "schema": {"type": "string"},
            },
            {
                "name": "page_size",
                "required": False,
                "in": "query",
                "description": f"Items per page, 1 to {self.max_page_size} (default {self.page_size}).",
                "schema": {"type": "integer", "minimum": 1, "maximum": self.max_page_size, "default": self.page_size},
            },
        ]
