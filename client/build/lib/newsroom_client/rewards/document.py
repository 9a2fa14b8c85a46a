"""Finding the desk/1 document in a model's completion."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

DESK_SCHEMA = "hangingcontext.desk/1"
_FENCE = re.compile(r"```[ \t]*(?:json|JSON)?[ \t]*\n(.*?)```", re.DOTALL)


class NoDocument(ValueError):
    """The completion holds no JSON object to check. ``path`` is ``$`` (the whole completion)."""

    path = "$"

    def __init__(self, message: str):
        self.message = message
        super().__init__(message)


def completion_text(completion: Any) -> str:
    """The text of a completion as the frameworks pass it: a string, or chat messages (the
    last assistant message's content, itself a string or a list of text parts)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping):
        content = completion.get("content", "")
        if isinstance(content, list):
            return "".join(p.get("text", "") for p in content if isinstance(p, Mapping))
        return str(content) if content is not None else ""
    if isinstance(completion, list | tuple):
        messages = [m for m in completion if isinstance(m, Mapping)]
        assistant = [m for m in messages if m.get("role") == "assistant"] or messages
        return completion_text(assistant[-1]) if assistant else ""
    raise NoDocument(f"a completion must be text or chat messages, not {type(completion).__name__}")


def _objects(text: str) -> list[dict]:
    """Every JSON object in ``text``: fenced blocks first, then objects starting at a ``{``."""
    found: list[dict] = []
    for block in _FENCE.findall(text):
        try:
            value = json.loads(block)
        except ValueError:
            continue
        if isinstance(value, dict):
            found.append(value)
    decoder = json.JSONDecoder()
    i = text.find("{")
    while i != -1:
        try:
            value, end = decoder.raw_decode(text, i)
        except ValueError:
            i = text.find("{", i + 1)
            continue
        if isinstance(value, dict):
            found.append(value)
        i = text.find("{", end)
    return found


def extract_document(completion: Any) -> dict[str, Any]:
    """The desk/1 document a completion holds: the document itself (a dict), or text that is
    the JSON, or text with it in a fenced block or inline. When several JSON objects appear,
    the last one that declares ``"schema": "hangingcontext.desk/1"`` wins, else the last
    object. ``NoDocument`` when there is none; whether it is *valid* desk/1 is the server's
    (or the local validator's) to say."""
    if isinstance(completion, Mapping) and "role" not in completion:
        return dict(completion)
    text = completion_text(completion)
    stripped = text.strip()
    if not stripped:
        raise NoDocument("the completion is empty: expected a hangingcontext.desk/1 JSON document")
    objects = _objects(stripped)
    if not objects:
        raise NoDocument("no JSON object found in the completion: expected a hangingcontext.desk/1 document")
    declared = [o for o in objects if o.get("schema") == DESK_SCHEMA]
    return (declared or objects)[-1]


def document_key(document: Mapping[str, Any]) -> str:
    """A canonical text of a document: equal documents share one check."""
    return json.dumps(document, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
