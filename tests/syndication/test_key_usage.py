"""Key bookkeeping (syndication.usage): no database write on most requests, counts exact
once flushed, last use to the minute, and revocation still immediate."""

import datetime as dt
import io
import time

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from syndication import keys, usage
from syndication.admin import revoke_keys
from syndication.models import ApiKey, ApiKeyUsage
from tests.syndication.helpers import client_for

# Counts are kept per UTC day: every test here runs from noon (conftest.noon_utc).
pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("noon_utc")]

URL = "/api/v1/newsrooms/"


def writes(queries) -> list[str]:
    return [q["sql"] for q in queries if q["sql"].split()[0] in ("UPDATE", "INSERT", "DELETE")]


def test_most_requests_write_nothing(api, read_key):
    api.get(URL)  # the first use is recorded
    with CaptureQueriesContext(connection) as queries:
        for _ in range(5):
            assert api.get(URL).status_code == 200
    assert writes(queries.captured_queries) == []


def test_last_use_is_written_at_most_once_a_minute(api, read_key):
    key = read_key[0]
    api.get(URL)
    key.refresh_from_db()
    first = key.last_used_at
    assert timezone.now() - first < dt.timedelta(seconds=10)
    api.get(URL)
    key.refresh_from_db()
    assert key.last_used_at == first
    ApiKey.objects.filter(pk=key.pk).update(last_used_at=first - usage.LAST_USED_EVERY)
    keys.forget(key.prefix)  # as if the cached look-up had expired
    api.get(URL)
    key.refresh_from_db()
    assert key.last_used_at > first


def test_counts_reach_the_database_when_the_last_use_is_written(api, read_key):
    key = read_key[0]
    for _ in range(4):
        api.get(URL)
    assert not ApiKeyUsage.objects.filter(key=key).exists()  # in the cache, not yet stored
    ApiKey.objects.filter(pk=key.pk).update(last_used_at=timezone.now() - dt.timedelta(minutes=2))
    keys.forget(key.prefix)  # as if the cached look-up had expired
    api.get(URL)  # a minute on: this request stores the four before it
    assert ApiKeyUsage.objects.get(key=key).count == 4
    assert usage.flush(key.pk) == 1  # and itself, at the next flush
    assert ApiKeyUsage.objects.get(key=key, day=timezone.now().date()).count == 5


def test_a_flush_moves_each_request_once(api, read_key):
    key = read_key[0]
    for _ in range(3):
        api.get(URL)
    assert usage.flush(key.pk) == 3
    assert usage.flush(key.pk) == 0
    api.get(URL)
    assert usage.flush(key.pk) == 1
    assert ApiKeyUsage.objects.get(key=key).count == 4


def test_a_flush_in_progress_is_not_repeated(read_key):
    from django.core.cache import cache

    key = read_key[0]
    cache.set(usage.counter_key(key.pk, timezone.now().date()), 7)
    cache.add(f"apiusage:flush:{key.pk}", 1, 30)  # another process is flushing this key
    assert usage.flush(key.pk) == 0
    assert not ApiKeyUsage.objects.exists()


def test_yesterdays_counts_are_stored_under_yesterday(read_key):
    from django.core.cache import cache

    key, today = read_key[0], timezone.now().date()
    cache.set(usage.counter_key(key.pk, today - dt.timedelta(days=1)), 9)
    cache.set(usage.counter_key(key.pk, today), 2)
    assert usage.flush(key.pk) == 11
    assert dict(ApiKeyUsage.objects.values_list("day", "count")) == {today - dt.timedelta(days=1): 9, today: 2}


def test_the_flush_command_stores_every_keys_counts(read_key, writer_key):
    client_for(read_key[1]).get(URL)
    client_for(writer_key[1]).get(URL)
    client_for(writer_key[1]).get(URL)
    out = io.StringIO()
    call_command("flush_api_usage", stdout=out)
    assert out.getvalue().strip() == "3 requests counted"
    assert dict(ApiKeyUsage.objects.values_list("key_id", "count")) == {read_key[0].pk: 1, writer_key[0].pk: 2}


def test_without_a_cache_each_request_is_counted_in_the_database(api, read_key, settings):
    settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.dummy.DummyCache"}}
    for _ in range(3):
        api.get(URL)
    assert ApiKeyUsage.objects.get(key=read_key[0]).count == 3


def test_the_key_costs_one_query_then_none_for_a_while(api, read_key, django_assert_num_queries):
    api.get(URL)  # records the first use, and so reads the key again next time
    with django_assert_num_queries(2):  # the key; the story's id, version and time (none: 404)
        assert api.get("/api/v1/stories/999/").status_code == 404
    with django_assert_num_queries(1):  # the key is cached
        assert api.get("/api/v1/stories/999/").status_code == 404


def test_a_deleted_key_fails_on_the_very_next_request(api, read_key):
    assert api.get(URL).status_code == 200
    read_key[0].delete()
    assert api.get(URL).status_code == 401


def test_a_revocation_forgets_the_key_again_when_it_commits(api, read_key, django_capture_on_commit_callbacks):
    from django.core.cache import cache

    api.get(URL)
    stale = ApiKey.objects.select_related("partner").get(pk=read_key[0].pk)
    with django_capture_on_commit_callbacks(execute=True):
        read_key[0].revoke()
        # Another worker, reading before the commit, caches the key as still usable...
        cache.set(f"apikey:{stale.prefix}", stale, keys.KEY_CACHE_TTL)
    # ...and the commit forgets it again.
    assert api.get(URL).status_code == 401


def test_a_revoked_key_fails_on_the_very_next_request(api, read_key):
    assert api.get(URL).status_code == 200
    assert api.get(URL).status_code == 200  # the key is cached now
    read_key[0].revoke()
    assert api.get(URL).status_code == 401


def test_a_key_revoked_from_the_admin_list_fails_on_the_very_next_request(api, read_key, rf):
    assert api.get(URL).status_code == 200

    class Admin:
        def message_user(self, *args):
            pass

    revoke_keys(Admin(), rf.post("/"), ApiKey.objects.filter(pk=read_key[0].pk))  # a queryset update: no signal
    assert api.get(URL).status_code == 401


def test_a_deactivated_partners_key_fails_on_the_very_next_request(api, read_key, partner):
    assert api.get(URL).status_code == 200
    partner.active = False
    partner.save()
    assert api.get(URL).status_code == 401


def test_a_process_adds_its_counts_to_the_cache_about_once_a_second(api, read_key, monkeypatch):
    from django.core.cache import cache

    # The process added its counts just now, and the next addition is far off: however slow
    # the requests, only the step "a second on" below makes one.
    monkeypatch.setattr(usage, "ADD_EVERY", 3600.0)
    monkeypatch.setattr(usage, "_added_at", time.monotonic())
    key, today = read_key[0], timezone.now().date()
    api.get(URL)  # the first use: recorded, its count kept in this process
    name = usage.counter_key(key.pk, today)
    for _ in range(3):
        api.get(URL)
    assert usage._pending == {(key.pk, today): 4}  # not a cache write a request
    monkeypatch.setattr(usage, "_added_at", usage._added_at - usage.ADD_EVERY)  # a second on
    api.get(URL)
    assert usage._pending == {}
    assert cache.get(name) == 5


def test_counts_of_several_processes_add_up_and_a_flush_moves_them_once(read_key):
    from django.core.cache import cache

    key, today = read_key[0], timezone.now().date()
    cache.set(usage.counter_key(key.pk, today), 6)  # what other processes added
    ApiKey.objects.filter(pk=key.pk).update(last_used_at=timezone.now())
    for _ in range(4):
        usage.record_use(ApiKey.objects.get(pk=key.pk))
    assert usage.flush(key.pk) == 10
    assert usage.flush(key.pk) == 0
    assert ApiKeyUsage.objects.get(key=key, day=today).count == 10


def test_a_process_exiting_adds_what_it_counted(read_key):
    from django.core.cache import cache

    key, today = read_key[0], timezone.now().date()
    ApiKey.objects.filter(pk=key.pk).update(last_used_at=timezone.now())
    for _ in range(2):
        usage.record_use(ApiKey.objects.get(pk=key.pk))
    assert cache.get(usage.counter_key(key.pk, today)) is None
    usage._add_at_exit()  # registered with atexit
    assert cache.get(usage.counter_key(key.pk, today)) == 2


def test_with_the_cache_unreachable_the_counts_go_to_the_database(read_key, monkeypatch):
    key, today = read_key[0], timezone.now().date()
    ApiKey.objects.filter(pk=key.pk).update(last_used_at=timezone.now())
    for _ in range(3):
        usage.record_use(ApiKey.objects.get(pk=key.pk))
    monkeypatch.setattr(usage, "_add", lambda name, n: False)
    assert usage.add_pending() == 3
    assert ApiKeyUsage.objects.get(key=key, day=today).count == 3
