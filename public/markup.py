"""Story Markdown to safe HTML and to plain text, for every public rendering.

The renderer lives with the stories (``stories.markup``), because the commit step stores each
paragraph's HTML with the version that produced it; this module is where the public side
reads it from.
"""

from stories.markup import (  # noqa: F401
    ALLOWED_ATTRIBUTES,
    ALLOWED_TAGS,
    LINK_REL,
    URL_SCHEMES,
    sanitise,
    to_html,
    to_inline_html,
    to_text,
)
