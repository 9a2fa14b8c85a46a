"""An optional support judge that asks an OpenAI-compatible chat endpoint.

Settings: ``CHECKS_JUDGE = "stories.checks.meaning.chat.ChatJudge"``, ``CHECKS_JUDGE_URL``
(the chat completions URL), ``CHECKS_JUDGE_MODEL``, ``CHECKS_JUDGE_TIMEOUT`` (seconds, for
one answer) and ``CHECKS_JUDGE_API_KEY`` (from the environment).

The deterministic judge reads every sentence first and its contradictions stand; the
endpoint is asked only about the rest. Answers are cached (Django's cache) by model,
sentence and claims. The endpoint's answer is untrusted text: it is read up to
``MAX_ANSWER_BYTES`` within the timeout, must be JSON naming one of the three verdicts, and
its reason is cut short. An endpoint that is down, slow or answers garbage is not asked
again during the run, and the deterministic verdict stands.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time

import httpx
from django.conf import settings
from django.core.cache import cache

from .judge import CONTRADICTED, VERDICTS, DeterministicJudge, Verdict

log = logging.getLogger(__name__)

MAX_ANSWER_BYTES = 64 * 1024
MAX_REASON = 300
MAX_SENTENCE = 2000
MAX_CLAIMS = 40
CACHE_SECONDS = 7 * 24 * 3600
RUN_BUDGET_CALLS = 200  # questions one check run may ask
KINDS = frozenset({"negation", "direction", "comparison", "outcome", "roles", "number", "name"})

PROMPT = (
    "You check a news sentence against the claims it cites. Answer with one JSON object: "
    '{"verdict": "supported" | "contradicted" | "not enough information", "reason": "<one short sentence>", '
    '"claim": "<the claim you compared with, verbatim>", "kind": "negation" | "direction" | "comparison" | '
    '"outcome" | "roles" | "number" | "name" | "other"}. "contradicted" means the sentence says the '
    "opposite of a claim or changes what it states; a sentence the claims neither support nor contradict is "
    '"not enough information".'
)


class ChatJudge:
    def __init__(self):
        self.fallback = DeterministicJudge()
        self.url = settings.CHECKS_JUDGE_URL
        self.model = settings.CHECKS_JUDGE_MODEL
        self.timeout = float(settings.CHECKS_JUDGE_TIMEOUT)
        self.down = not self.url
        self.calls = 0

    def judge(self, sentence: str, claims: list[str]) -> Verdict:
        base = self.fallback.judge(sentence, claims)
        if base.label == CONTRADICTED or self.down:
            return base
        sentence, claims = sentence[:MAX_SENTENCE], [c[:MAX_SENTENCE] for c in claims[:MAX_CLAIMS]]
        key = (
            "checks-judge:"
            + hashlib.sha256(json.dumps([self.model, sentence, claims], ensure_ascii=False).encode()).hexdigest()
        )
        cached = cache.get(key)
        if isinstance(cached, dict):
            return Verdict(**cached)
        if self.calls >= RUN_BUDGET_CALLS:
            return base
        self.calls += 1
        verdict = self.ask(sentence, claims)
        if verdict is None:
            self.down = True  # not asked again during this run
            return base
        cache.set(
            key,
            {
                "label": verdict.label,
                "reason": verdict.reason,
                "kind": verdict.kind,
                "claim": verdict.claim,
                "terms": list(verdict.terms),
            },
            CACHE_SECONDS,
        )
        return verdict

    def ask(self, sentence: str, claims: list[str]) -> Verdict | None:
        """The endpoint's verdict, or None when it is down, slow or makes no sense."""
        body = {
            "model": self.model,
            "temperature": 0,
            "messages": [
                {"role": "system", "content": PROMPT},
                {"role": "user", "content": json.dumps({"sentence": sentence, "claims": claims}, ensure_ascii=False)},
            ],
        }
        headers = {"Authorization": f"Bearer {settings.CHECKS_JUDGE_API_KEY}"} if settings.CHECKS_JUDGE_API_KEY else {}
        deadline = time.monotonic() + self.timeout
        try:
            raw = self._post(body, headers, deadline)
        except (httpx.HTTPError, OSError, TimeoutError) as exc:
            log.warning("support judge endpoint unavailable: %s", type(exc).__name__)
            return None
        verdict = parse_answer(raw, claims)
        if verdict is None:
            log.warning("support judge endpoint answered something that is not a verdict")
        return verdict

    def _post(self, body: dict, headers: dict, deadline: float) -> bytes:
        chunks, size = [], 0
        with httpx.stream(
            "POST", self.url, json=body, headers=headers, timeout=httpx.Timeout(self.timeout), follow_redirects=False
        ) as response:
            if response.status_code != 200:
                raise httpx.HTTPError(f"status {response.status_code}")
            for chunk in response.iter_raw():
                size += len(chunk)
                if size > MAX_ANSWER_BYTES:
                    raise httpx.HTTPError("answer too long")
                if time.monotonic() > deadline:
                    raise TimeoutError("answer too slow")
                chunks.append(chunk)
        return b"".join(chunks)


def parse_answer(raw: bytes, claims: list[str]) -> Verdict | None:
    """A chat completion's verdict, checked field by field; None if anything is off."""
    try:
        content = json.loads(raw)["choices"][0]["message"]["content"]
        answer = json.loads(_strip_fence(content))
        label = answer["verdict"]
    except (ValueError, KeyError, IndexError, TypeError, RecursionError):
        return None
    if not isinstance(answer, dict) or label not in VERDICTS:
        return None
    reason = answer.get("reason")
    reason = " ".join(reason.split())[:MAX_REASON] if isinstance(reason, str) else ""
    claim = answer.get("claim")
    claim = claim if isinstance(claim, str) and claim in claims else (claims[0] if claims else "")
    kind = answer.get("kind")
    kind = kind if kind in KINDS else "judge"
    if label != CONTRADICTED:
        return Verdict(label, reason or label)
    return Verdict(label, reason or "the support judge reads it as the opposite of its claim", kind, claim, ())


def _strip_fence(content) -> str:
    """Chat models often wrap JSON in a Markdown code fence."""
    if not isinstance(content, str):
        raise TypeError("content is not text")
    text = content.strip()
    if text.startswith("```"):
        text = text.strip("`")
        text = text[4:] if text.startswith("json") else text
    return text
