"""Primary/replica database routing.

``DATABASE_REPLICA_URLS`` (comma-separated) adds the aliases ``replica1`` .. ``replicaN``
(listed in ``settings.DATABASE_REPLICAS``). Writes always go to ``default`` (the primary).
Reads go to a replica, chosen at random, only when the code being run has asked for it --
``PrimaryDatabaseMiddleware`` asks for safe requests to public pages and the API that are
not pinned to the primary -- and never inside ``transaction.atomic`` (a transaction must see
its own writes). Everything else (the admin, management commands, shells, writes) reads the
primary: a stale read there could be saved back.
"""

import contextlib
import contextvars
import random
from dataclasses import dataclass

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections


@dataclass
class RoutingState:
    """What the current request may do (``use_replicas``) and has done (``wrote``)."""

    use_replicas: bool = False
    wrote: bool = False


_state: contextvars.ContextVar[RoutingState | None] = contextvars.ContextVar("db_routing", default=None)


@contextlib.contextmanager
def routing(*, use_replicas: bool):
    """Within this block, reads may go to replicas if ``use_replicas``; yields the state."""
    state = RoutingState(use_replicas=use_replicas)
    token = _state.set(state)
    try:
        yield state
    finally:
        _state.reset(token)


def replica_reads():
    """Let reads in this block use replicas (for read-only jobs outside a request)."""
    return routing(use_replicas=True)


def primary_only():
    """Send every read in this block to the primary."""
    return routing(use_replicas=False)


class PrimaryReplicaRouter:
    """Reads to a random replica when allowed (see the module docstring); writes to default."""

    def db_for_read(self, model, **hints):
        state = _state.get()
        replicas = settings.DATABASE_REPLICAS
        if not replicas or state is None or not state.use_replicas:
            return DEFAULT_DB_ALIAS
        if connections[DEFAULT_DB_ALIAS].in_atomic_block:
            return DEFAULT_DB_ALIAS
        return random.choice(replicas)

    def db_for_write(self, model, **hints):
        state = _state.get()
        if state is not None:
            # Pin the rest of this request, and (via the middleware's cookie) the next ones.
            state.wrote = True
            state.use_replicas = False
        return DEFAULT_DB_ALIAS

    def allow_relation(self, obj1, obj2, **hints):
        pool = {DEFAULT_DB_ALIAS, *settings.DATABASE_REPLICAS}
        if obj1._state.db in pool and obj2._state.db in pool:
            return True
        return None

    def allow_migrate(self, db, app_label, model_name=None, **hints):
        # Replicas get their schema by streaming replication, never by migrate.
        if db in settings.DATABASE_REPLICAS:
            return False
        return None
