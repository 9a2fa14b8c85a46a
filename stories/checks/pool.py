"""The process pool that runs an import's checks ahead (``checks.ahead``).

A pool of forked workers whose end cannot be held up by a worker that died: killed by an
operator or by the kernel when memory runs out, a worker may die holding a lock of the
pool's queues, or halfway through sending a result, and the standard pool's end would then
wait for ever. Its worker handler also waits only for what it serves (``QuietPool``).
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.pool
import os
import struct
import threading
import time
from multiprocessing.reduction import ForkingPickler

LOOK_SECONDS = 0.25  # while waiting, how often the workers are looked at: one that exited is given up


class QuietPool(multiprocessing.pool.Pool):
    """A process pool whose worker handler (the thread that replaces workers that exited)
    wakes when a worker exits or the pool's state changes, not whenever a result waits in
    the results' pipe. The standard pool also wakes it for those results (for workers that
    retire after ``maxtasksperchild`` tasks, which this pool never sets); while a chunk's
    results waited for the result handler, it went round its loop without blocking, each
    time taking the interpreter's lock from the importing process: about a tenth of a
    second of CPU a run of 500 stories, for nothing. A worker that exits still wakes it
    (the workers' own sentinels)."""

    def __init__(self, *args, **kwargs):
        try:
            super().__init__(*args, **kwargs)
        except BaseException:
            # Workers forked, but a thread of the pool could not start (the process limit
            # counts threads): no worker of a pool that never ran is left behind, and no
            # handler that did start goes on replacing them.
            handler = getattr(self, "_worker_handler", None)
            if handler is not None:
                handler._state = multiprocessing.pool.TERMINATE
                self._change_notifier.put(None)
                if handler.ident is not None:  # started: joined before its workers are
                    handler.join()  # stopped, or it would fork others in their place
            for process in self._pool:
                process.terminate()
            for process in self._pool:
                process.join()
            raise

    def _get_sentinels(self):
        return [self._change_notifier._reader]

    def _setup_queues(self):
        super()._setup_queues()
        self._quick_get = _results_reader(self._outqueue._reader)  # the result handler's read

    @staticmethod
    def _help_stuff_finish(inqueue, task_handler, size):
        # As the standard pool's, but what is left of the tasks is read as bytes, not as
        # messages: a worker killed (``terminate``) between a task's length and the task
        # left the pipe in the middle of one.
        inqueue._rlock.acquire()
        while task_handler.is_alive() and inqueue._reader.poll():
            os.read(inqueue._reader.fileno(), 1 << 16)
            time.sleep(0)

    def terminate(self):
        """As the standard pool's, but the workers are stopped first. A worker that died
        (killed, or out of memory) may hold a queue's lock for good: the tasks' read lock,
        which a worker holds while it waits for a task, or the results' write lock, while it
        sends one; the standard terminate waits for the first, and its task handler for the
        second, forever. With every worker stopped and none replaced, nobody else can hold
        them: they are freed. The workers have nothing to finish: their batch is published,
        or given up."""
        if self._state != multiprocessing.pool.TERMINATE:
            handler = self._worker_handler
            handler._state = multiprocessing.pool.TERMINATE  # no worker replaced from here on
            self._change_notifier.put(None)
            handler.join()
            for process in self._pool:
                process.kill()
            for process in self._pool:
                process.join()
            _free(self._inqueue._rlock, wait=0)  # taken by workers only
            # Also taken, for a moment, by this process's task handler as it ends.
            _free(self._outqueue._wlock, wait=1)
        super().terminate()


def _results_reader(reader):
    """``reader.recv``, as the result handler reads the results, but a result left half
    sent by a worker that was killed sending it is given up (EOFError: the handler ends)
    once the pool is terminated, instead of waited for forever. Waits without a time-out
    for a result to begin, as ``recv`` does."""
    fd = reader.fileno()

    def read(size: int, begun: bool = True) -> bytes:
        data = bytearray()
        while len(data) < size:
            if (begun or data) and not reader.poll(LOOK_SECONDS):
                if getattr(threading.current_thread(), "_state", None) == multiprocessing.pool.TERMINATE:
                    raise EOFError("a result left half sent by a worker that is gone")
                continue
            chunk = os.read(fd, size - len(data))
            if not chunk:
                raise EOFError
            data += chunk
        return bytes(data)

    def get():
        (size,) = struct.unpack("!i", read(4, begun=False))
        if size == -1:
            (size,) = struct.unpack("!Q", read(8))
        message = read(size)
        try:
            return ForkingPickler.loads(message)
        except Exception:  # the end of a result left half sent, with this process's sentinel:
            return None  # read as a sentinel, the handler goes on until the pool ends

    return get


def _free(lock, wait: float) -> None:
    """Free ``lock``, held by nobody or by a process that is gone (``wait``: seconds that a
    thread of this process may still take to release it)."""
    if lock is not None:
        lock.acquire(timeout=wait)  # taken here if free; otherwise the dead worker's
        lock.release()
