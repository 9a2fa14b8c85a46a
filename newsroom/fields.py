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
