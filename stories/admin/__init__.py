"""The editing desk in Django's admin: stories, their parts and cites, and the desk's views."""

from . import parts, story  # noqa: F401  (importing registers the model admins)
