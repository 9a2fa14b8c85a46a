"""The TRL calling convention (without TRL), batching and concurrency of the reward functions."""

import asyncio
import copy
import json

import httpx
import pytest
from newsroom_client.rewards import CRITERIA, api_core
from newsroom_client.rewards.trl_rewards import criteria_weights, reward_functions

RUBRIC = {
    "passed": False,
    "score": 0.8571,
    "criteria": [
        {"name": n, "passed": n != "claims_support", "score": 0.0 if n == "claims_support" else 1.0, "findings": []}
        for n in CRITERIA
    ],
}


class Concurrency:
    """An async mock of ``POST checks/`` that keeps how many requests were in flight at once."""

    def __init__(self):
        self.in_flight = self.most = self.requests = 0

    async def __call__(self, request):
        self.requests += 1
        self.in_flight += 1
        self.most = max(self.most, self.in_flight)
        await asyncio.sleep(0.01)
        self.in_flight -= 1
        return httpx.Response(200, json=RUBRIC)


def completions(n: int) -> list[str]:
    return [json.dumps({"schema": "hangingcontext.desk/1", "slug": f"s-{i}"}) for i in range(n)]


def test_trl_reward_functions_take_prompts_completions_and_columns_and_return_one_float_each():
    server = Concurrency()
    core = api_core("https://news.example", "hc_k_s", concurrency=4, async_transport=httpx.MockTransport(server))
    funcs = reward_functions(core)
    assert [f.__name__ for f in funcs] == [f"checks_{n}" for n in CRITERIA] + ["checks_score"]
    batch = completions(10)
    results = [f(prompts=["write"] * 10, completions=batch, answer=[None] * 10, trainer_state=object()) for f in funcs]
    assert all(len(r) == 10 and all(isinstance(v, float) for v in r) for r in results)
    assert results[CRITERIA.index("claims_support")] == [0.0] * 10 and results[-1] == [0.8571] * 10
    assert server.requests == 10  # eight functions, one request per completion
    assert 1 < server.most <= 4  # concurrent, within the cap


def test_trl_conversational_completions_are_read_from_the_assistant_message():
    server = Concurrency()
    core = api_core("https://news.example", "hc_k_s", async_transport=httpx.MockTransport(server))
    score = reward_functions(core)[-1]
    conversational = [[{"role": "assistant", "content": text}] for text in completions(3)]
    assert score(prompts=[[{"role": "user", "content": "write"}]] * 3, completions=conversational) == [0.8571] * 3


def test_a_batch_with_an_invalid_completion_scores_it_zero_and_raises_nothing():
    server = Concurrency()
    core = api_core("https://news.example", "hc_k_s", async_transport=httpx.MockTransport(server))
    score = reward_functions(core)[-1]
    assert score(prompts=["p", "p"], completions=["no story here", completions(1)[0]]) == [0.0, 0.8571]
    assert server.requests == 1


def test_the_weights_make_the_weighted_sum_the_overall_score():
    weights = criteria_weights()
    values = [c["score"] for c in RUBRIC["criteria"]] + [RUBRIC["score"]]
    assert sum(w * v for w, v in zip(weights, values)) == pytest.approx(RUBRIC["score"], abs=1e-4)


@pytest.mark.slow
def test_a_batch_against_the_live_server_costs_one_check_per_completion(site, keys, remote_core, seed_doc):
    counted = []

    class Counting(httpx.AsyncHTTPTransport):
        async def handle_async_request(self, request):
            counted.append(request.url.path)
            return await super().handle_async_request(request)

    core = remote_core(site, keys[0], concurrency=2, async_transport=Counting())
    faulty = copy.deepcopy(seed_doc)
    faulty["sections"][0]["paragraphs"][0]["cites"] = []
    batch = [json.dumps(seed_doc), json.dumps(faulty), "not a story"]
    results = {f.__name__: f(prompts=["p"] * 3, completions=batch) for f in reward_functions(core)}
    assert results["checks_score"][0] == 1.0 and 0 < results["checks_score"][1] < 1 and results["checks_score"][2] == 0
    assert results["checks_paragraphs_cited"][1] < 1
    assert counted == ["/api/v1/checks/", "/api/v1/checks/"]
