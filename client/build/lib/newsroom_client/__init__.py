"""A Python client for the Hanging Context partner API, for syndication partners and writer agents.

- ``Client`` / ``AsyncClient``: stories (an iterator over the API's cursor), a story, its
  ninjs and its ``checks.json``, the checks, submissions; timeouts, retries, conditional GETs.
- ``verify_webhook``: a webhook delivery's HMAC header or RFC 9421 signature, in one call.
- ``newsroom_client.rewards``: the checks as reward functions (verifiers, Inspect, TRL).
"""

from .client import AsyncClient, Client, Stats, StoryWalk
from .errors import ApiError, ClientError, Conflict, InvalidDocument, InvalidSignature, RateLimited
from .retry import ETagCache, RetryPolicy
from .webhooks import VerifiedDelivery, verify_hmac, verify_webhook

__all__ = [
    "ApiError",
    "AsyncClient",
    "Client",
    "ClientError",
    "Conflict",
    "ETagCache",
    "InvalidDocument",
    "InvalidSignature",
    "RateLimited",
    "RetryPolicy",
    "Stats",
    "StoryWalk",
    "VerifiedDelivery",
    "verify_hmac",
    "verify_webhook",
]
