"""The API's JSON body parser."""

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser


class JsonBodyParser(JSONParser):
    """DRF's JSON parser, plus a 400 for a body nested too deeply to parse: ``json`` raises
    ``RecursionError`` (not a ``ValueError``) for ``[[[[...]]]]`` a few thousand deep, which
    DRF's parser let through as a 500 (found by tests/reliability/test_api_bad_input.py)."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - nested too deeply") from None
