"""A JSON field that keeps key order on every database.

PostgreSQL's jsonb sorts object keys, and desk/1 output has a fixed key order (the reference story's),
so documents whose order matters are kept as JSON text instead.
"""

import json

from django import forms
from django.core.exceptions import ValidationError
from django.db import models


class JSONText(str):
    """A value already serialised as ``OrderedJSONField`` stores it (``OrderedJSONField.text``):
    saved as it is, so that a document serialised once for another use (a digest) is not
    serialised again to be stored."""


class OrderedJSONField(models.TextField):
    description = "JSON, stored as text so that key order is kept"

    def from_db_value(self, value, expression, connection):
        return None if value is None else json.loads(value)

    def to_python(self, value):
        if isinstance(value, str):
            try:
                return json.loads(value)
            except json.JSONDecodeError as exc:
                raise ValidationError(f"not valid JSON: {exc}") from exc
        return value

    @staticmethod
    def text(value) -> JSONText:
        """``value`` as this field stores it."""
        return JSONText(json.dumps(value, ensure_ascii=False))

    @staticmethod
    def text_with(text: str, value: dict, changed: dict) -> JSONText | None:
        """``text(changed_value)`` made from ``text``, which is ``text(value)``, where
        ``changed_value`` has ``value``'s keys in the same order and differs only in the
        values of the keys of ``changed`` (given with their new values): only those values
        are serialised, each put in place of the old one, whose place is found by
        serialising the keys before it or those after it, whichever side is nearer; the rest
        of the text is copied. None when ``text`` is found not to be ``value``'s there, or a
        key of ``changed`` is not one of ``value``'s."""
        keys = list(value)
        places = {key: i for i, key in enumerate(keys)}
        if not changed or not changed.keys() <= places.keys():
            return None
        spans = []
        for key in changed:
            i, old = places[key], json.dumps(value[key], ensure_ascii=False)
            if i < len(keys) // 2:  # nearer the start: the text up to this value is the keys before it and it
                head = json.dumps({k: value[k] for k in keys[: i + 1]}, ensure_ascii=False)[:-1]
                if not text.startswith(head):
                    return None
                spans.append((len(head) - len(old), len(head), changed[key]))
            else:  # the text from this key on is its item and those after it
                tail = json.dumps({k: value[k] for k in keys[i:]}, ensure_ascii=False)[1:]
                if not text.endswith(tail):
                    return None
                start = len(text) - len(tail) + len(json.dumps(key, ensure_ascii=False)) + 2  # after '"key": '
                spans.append((start, start + len(old), changed[key]))
        parts, at = [], 0
        for start, end, new in sorted(spans, key=lambda span: span[0]):
            parts += (text[at:start], json.dumps(new, ensure_ascii=False))
            at = end
        parts.append(text[at:])
        return JSONText("".join(parts))

    def get_prep_value(self, value):
        if value is None:
            return None
        if type(value) is JSONText:
            return str(value)
        return json.dumps(value, ensure_ascii=False)

    def value_to_string(self, obj):
        return self.get_prep_value(self.value_from_object(obj))

    def formfield(self, **kwargs):
        return models.Field.formfield(self, **{"form_class": forms.JSONField, **kwargs})
