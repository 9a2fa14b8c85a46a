"""PostgreSQL restarted under load (bench/fault_pg_restart.py), run from pytest when asked.

Restarting PostgreSQL disconnects every user of the server, so this runs only when
FAULT_PG_RESTART=1 is set and the tests run on PostgreSQL (a CI job of its own); the script
uses its own database (FAULT_DATABASE_URL), never the test database.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.db import connection

SCRIPT = Path(__file__).resolve().parents[2] / "bench" / "fault_pg_restart.py"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        os.environ.get("FAULT_PG_RESTART") != "1" or connection.vendor != "postgresql",
        reason="restarts PostgreSQL: only with FAULT_PG_RESTART=1, on PostgreSQL",
    ),
]


def test_postgresql_restart_under_load_gives_503s_then_recovers():
    run = subprocess.run([sys.executable, str(SCRIPT)], capture_output=True, text=True, timeout=300)
    figures = json.loads(run.stdout)
    assert run.returncode == 0, figures["failures"]
    assert set(figures["statuses"]) <= {"200", "503"}
    assert figures["tail_all_200"] and figures["workers_unchanged"]
