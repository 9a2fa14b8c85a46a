"""Schemathesis against ``/api/schema/``, in process (the WSGI app), with a writer key, so
every operation is reachable: a bounded number of cases per operation and generation mode,
every schemathesis check but ``positive_data_acceptance`` (docs/fuzzing.md says why: some
schema-valid values are invalid only against the data, and those 400s are right).

The longer run (hundreds of cases per operation, against a running server) is in
docs/fuzzing.md; this one keeps CI honest in well under a minute and a half.
"""

import pytest
from django.core.wsgi import get_wsgi_application
from hypothesis import HealthCheck, given, settings

schemathesis = pytest.importorskip("schemathesis", reason="schemathesis is not installed (requirements-dev.txt)")

pytestmark = [pytest.mark.django_db, pytest.mark.slow]

CASES_PER_OPERATION = 10
EXCLUDED = {"positive_data_acceptance"}


@pytest.fixture
def fuzz_settings(settings):
    """The throttles measure partners and key guessers, not the fuzzer (which sends invalid
    keys on purpose): raised out of the way (as in docs/fuzzing.md)."""
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"partner": "1000000/min"}}
    settings.API_KEY_FAILURE_RATE = "1000000/min"
    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "localhost"]


@pytest.fixture
def keep_the_test_connection():
    """Schemathesis calls the WSGI app directly, not through Django's test client, so the
    end of each request would close the database connection (``close_old_connections``),
    and with it the test's transaction on PostgreSQL. Django's client unhooks it the same way."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


def _checks():
    from schemathesis.checks import CHECKS, load_all_checks

    load_all_checks()
    return [c for c in CHECKS.get_all() if getattr(c, "__name__", "") not in EXCLUDED]


def fuzz(operation, mode, headers: dict, checks: list) -> int:
    """Send the operation's generated cases of ``mode``, validating each response; return
    how many were sent."""
    calls = []

    @settings(
        max_examples=CASES_PER_OPERATION,
        deadline=None,
        derandomize=True,
        database=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(case=operation.as_strategy(generation_mode=mode))
    def send(case):
        response = case.call_and_validate(headers=headers, checks=checks)
        calls.append(response.status_code)
        assert response.status_code < 500

    send()
    return len(calls)


def test_fuzz_every_operation_no_server_error_and_conforms_to_the_schema(
    demo, writer_key, fuzz_settings, keep_the_test_connection
):
    from schemathesis.generation import GenerationMode

    schema = schemathesis.openapi.from_wsgi("/api/schema/", get_wsgi_application())
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 10, [op.label for op in operations]
    headers = {"Authorization": f"Bearer {writer_key[1]}"}
    checks = _checks()
    assert checks and "not_a_server_error" in {c.__name__ for c in checks}
    ran = {
        (operation.label, mode.value): fuzz(operation, mode, headers, checks)
        for operation in operations
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE)
    }
    # Every operation really got requests (a strategy that generated nothing would prove nothing).
    assert all(n > 0 for n in ran.values()), ran
