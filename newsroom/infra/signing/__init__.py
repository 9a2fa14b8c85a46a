"""Signing what the site serves and sends: keys (``keys``), RFC 9421 signatures over an
RFC 9530 digest (``messages``), the response decorator and the key directory (``views``)."""

from .keys import keyring, require_key, thumbprint
from .messages import content_digest, response_headers, sign_request
from .views import DIRECTORY_TYPE, directory, named_host, sign_response, signed

__all__ = [
    "DIRECTORY_TYPE",
    "content_digest",
    "directory",
    "keyring",
    "named_host",
    "require_key",
    "response_headers",
    "sign_request",
    "sign_response",
    "signed",
    "thumbprint",
]
