"""One scoring core for every adapter: a completion in, a ``Reward`` out.

Two backends give the same numbers: ``ApiBackend`` posts to ``POST /api/v1/checks/`` with a
key (the trainer runs anywhere), ``LocalBackend`` runs the project's checks in-process
against the local database (offline evaluation; it must run inside the project's Django
environment, and imports it only when first used).
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from ..errors import InvalidDocument
from ..types import Rubric
from .document import NoDocument, document_key, extract_document
from .reward import CRITERIA, Reward, from_rubric, invalid


class DocumentRefused(ValueError):
    """The backend's validator refused the document: ``path`` and ``message`` say where and why."""

    def __init__(self, path: str, message: str):
        self.path, self.message = path, message
        super().__init__(f"{path}: {message}")


class Backend(Protocol):
    """Checks one desk/1 document: its rubric, or ``DocumentRefused``."""

    def check(self, document: dict[str, Any]) -> Rubric: ...

    async def acheck(self, document: dict[str, Any]) -> Rubric: ...


class ApiBackend:
    """The checks through the API (any key, read or writer). ``concurrency`` caps the
    requests in flight at once from ``acheck`` (per event loop). ``transport`` and
    ``async_transport`` replace httpx's (tests); other options go to the clients."""

    def __init__(
        self,
        base_url: str,
        key: str,
        *,
        concurrency: int = 8,
        transport: Any = None,
        async_transport: Any = None,
        **client_options: Any,
    ):
        from ..client import Client

        self.base_url, self.key, self.concurrency = base_url, key, concurrency
        self.client_options = client_options
        self.async_transport = async_transport
        self.client = Client(base_url, key, transport=transport, **client_options)
        self._loop_entry: tuple[Any, Any, asyncio.Semaphore] | None = None

    def check(self, document: dict[str, Any]) -> Rubric:
        try:
            return self.client.check(document)
        except InvalidDocument as exc:
            raise DocumentRefused(exc.path or "$", exc.message) from None

    def _for_loop(self) -> tuple[Any, asyncio.Semaphore]:
        # An httpx.AsyncClient belongs to the event loop it runs on: one per loop, the
        # previous loop's dropped with it.
        from ..client import AsyncClient

        loop = asyncio.get_running_loop()
        if self._loop_entry is None or self._loop_entry[0] is not loop:
            client = AsyncClient(self.base_url, self.key, transport=self.async_transport, **self.client_options)
            self._loop_entry = (loop, client, asyncio.Semaphore(self.concurrency))
        return self._loop_entry[1], self._loop_entry[2]

    async def aclose(self) -> None:
        """Close this event loop's connections (``score_many`` does, before its loop ends)."""
        if self._loop_entry is not None and self._loop_entry[0] is asyncio.get_running_loop():
            await self._loop_entry[1].aclose()
            self._loop_entry = None

    def close(self) -> None:
        """Close the synchronous client's connections."""
        self.client.close()

    async def acheck(self, document: dict[str, Any]) -> Rubric:
        client, semaphore = self._for_loop()
        async with semaphore:
            try:
                return await client.check(document)
            except InvalidDocument as exc:
                raise DocumentRefused(exc.path or "$", exc.message) from None


class LocalBackend:
    """The project's checks in-process (``stories.checks.run_checks`` after
    ``stories.desk.validate``), exactly as ``POST checks/`` runs them. Needs Django set up
    with the project's settings and a database holding the manifests; imported lazily."""

    def check(self, document: dict[str, Any]) -> Rubric:
        from stories import desk
        from stories.checks import run_checks

        try:
            doc = desk.validate(document)
        except desk.DeskError as exc:
            raise DocumentRefused(exc.path, exc.message) from None
        return run_checks(doc, exclude_story_id=doc["id"] or None)

    async def acheck(self, document: dict[str, Any]) -> Rubric:
        # The ORM is synchronous: each check runs in a worker thread with its own connection.
        return await asyncio.to_thread(self.check, document)


class RewardCore:
    """Scores completions through a ``Backend``. Equal documents are checked once: results
    are kept (``memo`` of them, least recently used dropped), and concurrent requests for
    the same document share one check, so the per-criterion functions of an adapter cost
    one check per completion together."""

    def __init__(self, backend: Backend, *, memo: int = 4096, criteria: Sequence[str] = CRITERIA):
        self.backend = backend
        self.criteria = tuple(criteria)
        self.memo_size = memo
        self._memo: OrderedDict[str, Reward] = OrderedDict()
        self._pending: dict[tuple[int, str], asyncio.Future] = {}
        self._lock = threading.Lock()
        self.checks_run = 0

    # ------------------------------------------------------------------ memo

    def _remember(self, key: str, reward: Reward) -> Reward:
        with self._lock:
            self._memo[key] = reward
            self._memo.move_to_end(key)
            while len(self._memo) > self.memo_size:
                self._memo.popitem(last=False)
        return reward

    def _recall(self, key: str) -> Reward | None:
        with self._lock:
            reward = self._memo.get(key)
            if reward is not None:
                self._memo.move_to_end(key)
            return reward

    def _prepare(self, completion: Any) -> tuple[dict[str, Any] | None, str, Reward | None]:
        """(document, memo key, a ready reward when there is nothing to check)."""
        try:
            document = extract_document(completion)
        except NoDocument as exc:
            return None, "", invalid(exc.path, exc.message, self.criteria)
        key = document_key(document)
        return document, key, self._recall(key)

    def _finish(self, key: str, rubric: Rubric | None, refused: DocumentRefused | None) -> Reward:
        if refused is not None:
            return self._remember(key, invalid(refused.path, refused.message, self.criteria))
        return self._remember(key, from_rubric(rubric))

    # ------------------------------------------------------------------ scoring

    def score(self, completion: Any) -> Reward:
        """The ``Reward`` of a desk/1 document or of a completion holding one. A completion
        without a well-formed document scores 0 with the validation error as feedback; only
        failures to reach the checks (network, key) raise."""
        document, key, ready = self._prepare(completion)
        if ready is not None:
            return ready
        self.checks_run += 1
        try:
            return self._finish(key, self.backend.check(document), None)
        except DocumentRefused as exc:
            return self._finish(key, None, exc)

    async def ascore(self, completion: Any) -> Reward:
        """``score`` for asyncio; concurrent calls for one document share one check."""
        document, key, ready = self._prepare(completion)
        if ready is not None:
            return ready
        loop = asyncio.get_running_loop()
        slot = (id(loop), key)
        if (pending := self._pending.get(slot)) is not None:
            return await asyncio.shield(pending)
        future: asyncio.Future = loop.create_future()
        self._pending[slot] = future
        try:
            self.checks_run += 1
            try:
                reward = self._finish(key, await self.backend.acheck(document), None)
            except DocumentRefused as exc:
                reward = self._finish(key, None, exc)
            future.set_result(reward)
            return reward
        except BaseException as exc:
            future.set_exception(exc)
            future.exception()  # retrieved: no "never retrieved" warning when nobody waits
            raise
        finally:
            del self._pending[slot]

    async def ascore_many(self, completions: Iterable[Any]) -> list[Reward]:
        """Every completion's ``Reward``, concurrently (at most one check per distinct document)."""
        return list(await asyncio.gather(*(self.ascore(c) for c in completions)))

    def score_many(self, completions: Iterable[Any]) -> list[Reward]:
        """``ascore_many`` from synchronous code (its own event loop, or a worker thread's
        when one is already running in this thread)."""
        completions = list(completions)

        async def batch() -> list[Reward]:
            try:
                return await self.ascore_many(completions)
            finally:
                if (aclose := getattr(self.backend, "aclose", None)) is not None:
                    await aclose()  # the loop ends with the batch: its connections too

        try:
            asyncio.get_running_loop()
        except RuntimeError:
            return asyncio.run(batch())
        outcome: dict[str, Any] = {}

        def run() -> None:
            try:
                outcome["rewards"] = asyncio.run(batch())
            except BaseException as exc:
                outcome["error"] = exc

        worker = threading.Thread(target=run)
        worker.start()
        worker.join()
        if "error" in outcome:
            raise outcome["error"]
        return outcome["rewards"]

    def close(self) -> None:
        """Close the backend's connections, if it holds any."""
        if (close := getattr(self.backend, "close", None)) is not None:
            close()


def api_core(base_url: str, key: str, *, concurrency: int = 8, **client_options: Any) -> RewardCore:
    """A ``RewardCore`` scoring through ``POST /api/v1/checks/`` of the site at ``base_url``."""
    return RewardCore(ApiBackend(base_url, key, concurrency=concurrency, **client_options))


def local_core() -> RewardCore:
    """A ``RewardCore`` running the checks in-process (inside the project's Django environment)."""
    return RewardCore(LocalBackend())
