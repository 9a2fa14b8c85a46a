"""The default cache without CACHE_URL: on disk, shared by every process of the machine,
with the operations the site relies on (atomic counters, get_many, add)."""

import multiprocessing

import pytest
from django.core.cache import cache, caches

from newsroom.infra.cache import LocalDiskCache, count_and_read


def test_the_default_cache_is_the_shared_disk_cache():
    assert isinstance(caches["default"], LocalDiskCache)


def _bump(location: str, n: int) -> None:
    other = LocalDiskCache(location, {})
    for _ in range(n):
        count_and_read(other, "coherence-counter", 60)


def test_counters_are_atomic_across_processes(tmp_path):
    location = str(tmp_path / "cache")
    ctx = multiprocessing.get_context("spawn")
    workers = [ctx.Process(target=_bump, args=(location, 50)) for _ in range(3)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(120)
    assert LocalDiskCache(location, {}).get("coherence-counter") == 150


def test_a_write_in_one_handle_is_read_by_another(tmp_path):
    location = str(tmp_path / "cache")
    one, two = LocalDiskCache(location, {}), LocalDiskCache(location, {})
    one.set("gen:lists", "1.0", None)
    assert two.get_many(["gen:lists", "missing"]) == {"gen:lists": "1.0"}
    assert not two.add("gen:lists", "2.0", None)
    one.delete("gen:lists")
    assert two.get("gen:lists") is None


@pytest.mark.parametrize("value", [b"x" * 300_000, {"body": b"y" * 40_000, "etag": '"a"'}])
def test_large_page_bodies_round_trip(value):
    cache.set("page:big", value, 60)
    assert cache.get("page:big") == value
