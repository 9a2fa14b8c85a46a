"""The pluggable support judge: the setting, the deterministic default, and the chat judge
against a local stub endpoint (down, slow, garbage, hostile, cached)."""

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.core.cache import cache

from stories.checks.meaning import CONTRADICTED, NOT_ENOUGH, SUPPORTED, DeterministicJudge, Verdict, load_judge
from stories.checks.meaning.chat import ChatJudge, parse_answer
from tests.stories.meaning_corpus import errors_of, support_findings

CLAIMS = ["The ferry service carried more passengers in the spring.", "The harbour opened a second pier."]
PARAGRAPH = (
    "The ferry service carried more passengers in the spring. The harbour opened a second pier. "
    "Local traders welcomed the change."
)


class Stub:
    """A local chat endpoint whose answer a test sets: ``mode`` is one of good, garbage,
    slow, huge, error, redirect."""

    def __init__(self):
        self.mode, self.answer, self.requests = "good", {"verdict": "supported", "reason": "same"}, []
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_POST(self):
                length = int(self.headers.get("Content-Length", 0))
                stub.requests.append((dict(self.headers), json.loads(self.rfile.read(length))))
                if stub.mode == "error":
                    self.send_response(500)
                    self.end_headers()
                    return
                if stub.mode == "redirect":
                    self.send_response(302)
                    self.send_header("Location", "http://127.0.0.1:9/")
                    self.end_headers()
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.end_headers()
                if stub.mode == "slow":
                    for _ in range(100):
                        self.wfile.write(b" ")
                        self.wfile.flush()
                        time.sleep(0.05)
                    return
                if stub.mode == "garbage":
                    self.wfile.write(b"<html>not json</html>")
                    return
                if stub.mode == "huge":
                    self.wfile.write(b'{"choices": [' + b" " * 200_000 + b"]}")
                    return
                content = json.dumps(stub.answer)
                self.wfile.write(json.dumps({"choices": [{"message": {"content": content}}]}).encode())

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}/v1/chat/completions"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def stub(settings):
    server = Stub()
    settings.CHECKS_JUDGE = "stories.checks.meaning.chat.ChatJudge"
    settings.CHECKS_JUDGE_URL = server.url
    settings.CHECKS_JUDGE_MODEL = "stub-model"
    settings.CHECKS_JUDGE_TIMEOUT = 2.0
    settings.CHECKS_JUDGE_API_KEY = "sk-test-secret"
    cache.clear()
    yield server
    server.close()
    cache.clear()


# --------------------------------------------------------------------------- the default


def test_the_default_judge_is_the_deterministic_one():
    assert isinstance(load_judge(), DeterministicJudge)


def test_the_setting_names_the_judge_class(settings):
    settings.CHECKS_JUDGE = "stories.checks.meaning.chat.ChatJudge"
    assert isinstance(load_judge(), ChatJudge)


def test_deterministic_verdicts_have_the_three_labels():
    judge = DeterministicJudge()
    claims = ["Exports rose in March."]
    assert judge.judge("Exports fell in March.", claims).label == CONTRADICTED
    assert judge.judge("In March, exports rose.", claims).label == SUPPORTED
    assert judge.judge("Nobody expected that.", claims).label == NOT_ENOUGH


def test_contradiction_verdict_names_kind_claim_and_terms():
    verdict = DeterministicJudge().judge("Exports fell in March.", ["Exports rose in March."])
    assert verdict == Verdict(CONTRADICTED, "fell vs rose", "direction", "Exports rose in March.", ("fell", "rose"))


# --------------------------------------------------------------------------- the chat judge


def test_chat_contradiction_becomes_an_error_finding(stub):
    stub.answer = {
        "verdict": "contradicted",
        "reason": "the claim says more passengers",
        "claim": CLAIMS[0],
        "kind": "comparison",
    }
    found = errors_of(support_findings(PARAGRAPH, CLAIMS))
    assert found and all(f["kind"] == "comparison" and f["claim"] == CLAIMS[0] for f in found)
    assert found[0]["message"] == "contradicts its claim (comparison): the claim says more passengers"


def test_chat_request_carries_model_key_sentence_and_claims(stub):
    support_findings(PARAGRAPH, CLAIMS)
    headers, body = stub.requests[0]
    assert headers["Authorization"] == "Bearer sk-test-secret"
    assert body["model"] == "stub-model"
    asked = json.loads(body["messages"][1]["content"])
    assert asked == {"sentence": "The ferry service carried more passengers in the spring.", "claims": CLAIMS}


def test_chat_answers_are_cached_by_sentence_and_claims(stub):
    support_findings(PARAGRAPH, CLAIMS)
    asked = len(stub.requests)
    assert asked == 3
    support_findings(PARAGRAPH, CLAIMS)
    assert len(stub.requests) == asked
    support_findings(PARAGRAPH, [*CLAIMS, "A new claim."])
    assert len(stub.requests) == 2 * asked


def test_deterministic_contradictions_stand_without_asking(stub):
    found = errors_of(support_findings("The ferry service carried fewer passengers in the spring.", CLAIMS))
    assert [f["kind"] for f in found] == ["comparison"]
    assert stub.requests == []


@pytest.mark.parametrize("mode", ["garbage", "huge", "error", "redirect", "slow"])
def test_a_bad_endpoint_falls_back_to_the_deterministic_judge_and_is_asked_once(stub, mode):
    stub.mode = mode
    assert errors_of(support_findings(PARAGRAPH, CLAIMS)) == []
    assert len(stub.requests) == 1  # three sentences, one question: then it is down for the run
    found = errors_of(support_findings("The harbour closed a second pier.", CLAIMS))
    assert [f["kind"] for f in found] == ["outcome"]


def test_an_endpoint_that_is_down_falls_back(stub):
    stub.close()
    assert errors_of(support_findings(PARAGRAPH, CLAIMS)) == []


@pytest.mark.parametrize(
    "answer",
    [
        {"verdict": "maybe"},
        {"reason": "no verdict"},
        ["contradicted"],
        "contradicted",
        {"verdict": ["contradicted"]},
    ],
)
def test_answers_that_are_not_verdicts_are_refused(answer):
    raw = json.dumps({"choices": [{"message": {"content": json.dumps(answer)}}]}).encode()
    assert parse_answer(raw, CLAIMS) is None


def test_a_hostile_answer_is_cut_and_cannot_invent_a_claim():
    answer = {"verdict": "contradicted", "reason": "<script>x</script> " * 500, "claim": "made up", "kind": "evil"}
    raw = json.dumps({"choices": [{"message": {"content": "```json\n" + json.dumps(answer) + "\n```"}}]}).encode()
    verdict = parse_answer(raw, CLAIMS)
    assert verdict.label == CONTRADICTED
    assert len(verdict.reason) <= 300 and verdict.claim == CLAIMS[0] and verdict.kind == "judge"


def test_the_api_key_is_never_in_a_finding(stub):
    stub.answer = {"verdict": "contradicted", "reason": "no", "claim": CLAIMS[1]}
    assert "sk-test-secret" not in json.dumps(support_findings(PARAGRAPH, CLAIMS))


class AlwaysContradicts:
    """A judge an operator might plug in: one method, (sentence, claims) -> Verdict."""

    def judge(self, sentence, claims):
        return Verdict(CONTRADICTED, "the operator's judge says so", "other", claims[0], ("a", "b"))


def test_any_class_the_setting_names_judges_each_sentence(settings):
    settings.CHECKS_JUDGE = "tests.stories.test_checks_meaning_judge.AlwaysContradicts"
    found = errors_of(support_findings(PARAGRAPH, CLAIMS))
    assert len(found) == 3
    assert {f["message"] for f in found} == {"contradicts its claim (other): the operator's judge says so"}


def test_the_chat_judge_without_a_url_asks_nothing(settings):
    settings.CHECKS_JUDGE = "stories.checks.meaning.chat.ChatJudge"
    settings.CHECKS_JUDGE_URL = ""
    assert errors_of(support_findings(PARAGRAPH, CLAIMS)) == []
    [f] = errors_of(support_findings("The ferry service carried fewer passengers in the spring.", CLAIMS))
    assert f["kind"] == "comparison"
