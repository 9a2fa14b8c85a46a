"""import_stories on a real database: wall rate, and the CPU of both ends.

    DEBUG=0 SECRET_KEY=... SIGNING_KEY=... DATABASE_URL=postgres://postgres@127.0.0.1:5432/bench_import_fast \\
        .venv/bin/python bench/import_rate.py --write 10000 --first 1000 /tmp/import-10000.jsonl

``--write N`` first writes N generated stories to the file (``bench/import_stories.py``'s
``write_stories``: by default ``--shape varied``, the demo story's shape with its own text and
claims per story, which pass the checks, their manifests (dated within the freshness window)
and claims stored first; ``--shape demo``, copies of the demo story's text, which fail
``not_a_repeat``; ``--shape small``, the shape ``generate_scale_data`` makes; ``--first``
offsets them so that several files can go into one database), in a child process, so that
this process's peak RSS is the import's own. Then the file is imported into ``DATABASE_URL``
(the database itself, not a test copy: migrate it and import the demo story's manifests first),
and one line reports the wall time and rate, this process's CPU and its resident set (before
the import, and the peak), the CPU and peak resident set of the checks' worker processes
(``IMPORT_CHECK_WORKERS``), and the CPU of the PostgreSQL backend serving it (from /proc: the
server must run on this machine), and the minor page faults of the importing process and of
the workers (pages first touched, or copied after a fork). On a busy machine the wall rate
mostly measures the wait for a core; the CPU figures do not. Run it with DEBUG off: with
DEBUG on, Django keeps the SQL of recent queries. ``--phases`` also prints where the wall time
went, run by run (``bench/import_phases.py``): the phases the importing process runs alone,
those beside the checks' workers, and the commit. ``--waits`` also prints how long the importing
process waited for PostgreSQL (wall time in psycopg's ``Connection.wait``), by the project
function that asked, and the cyclic collector's passes in the importing process during the
import, with their CPU.
"""

import argparse
import contextlib
import io
import multiprocessing
import os
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "newsroom.settings")

import django  # noqa: E402

django.setup()

from django.core.management import CommandError, call_command  # noqa: E402
from django.db import connection  # noqa: E402


def backend_cpu(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def write_sources(path: Path, n: int, first: int, shape: str, per_day: int) -> None:
    """Write the stories' file, and store the manifests and claims they cite."""
    from import_stories import insert_sources, write_stories  # bench/import_stories.py

    sources = write_stories(path, n, first=first, shape=shape, per_day=per_day)
    if sources:
        insert_sources(sources)


@contextlib.contextmanager
def waits_counted():
    """Within the block, the importing process's waits for PostgreSQL (wall seconds in
    psycopg's ``Connection.wait``) are added up by the first project function on the stack,
    and the cyclic collector's passes and their CPU seconds by generation; yields the two
    counters and the calls counter."""
    import collections
    import gc

    import psycopg

    waited, calls, collected = collections.Counter(), collections.Counter(), collections.Counter()
    real_wait, started = psycopg.Connection.wait, [0.0]

    def wait(self, gen, *args, **kwargs):
        t0 = time.perf_counter()
        try:
            return real_wait(self, gen, *args, **kwargs)
        finally:
            frame, caller = sys._getframe(1), "?"
            while frame is not None:
                name = frame.f_code.co_filename
                if name.startswith(str(ROOT)) and "/.venv/" not in name and "/infra/" not in name:
                    caller = f"{Path(name).relative_to(ROOT)}:{frame.f_code.co_name}"
                    break
                frame = frame.f_back
            waited[caller] += time.perf_counter() - t0
            calls[caller] += 1

    def collecting(phase, info):
        if phase == "start":
            started[0] = time.process_time()
        else:
            collected[f"generation {info['generation']} passes"] += 1
            collected[f"generation {info['generation']} CPU s"] += time.process_time() - started[0]

    psycopg.Connection.wait = wait
    gc.callbacks.append(collecting)
    try:
        yield waited, calls, collected
    finally:
        psycopg.Connection.wait = real_wait
        gc.callbacks.remove(collecting)


def waits_report(waited, calls, collected) -> str:
    lines = [f"waiting for PostgreSQL: {sum(waited.values()):.2f} s in all"]
    lines += [f"  {seconds:7.3f} s {calls[caller]:6d} waits  {caller}" for caller, seconds in waited.most_common(12)]
    lines.append(
        "the collector in the importing process: "
        + (
            ", ".join(
                f"{key} {value:.3f}" if "CPU" in key else f"{key} {value}" for key, value in sorted(collected.items())
            )
            or "no pass"
        )
    )
    return "\n".join(lines)


def rss_now() -> float:
    """This process's resident set now, in MB."""
    return int(Path("/proc/self/statm").read_text().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("file", type=Path)
    parser.add_argument("--write", type=int, metavar="N")
    parser.add_argument("--first", type=int, default=0)
    parser.add_argument(
        "--shape",
        choices=["demo", "small"],
        default="varied",
        help="varied: the demo story's shape (8 paragraphs, 5 key facts), its own text and claims each; "
        "demo: copies of the demo story; small: the shape generate_scale_data makes",
    )
    parser.add_argument("--per-day", type=int, default=100, help="varied: stories per edition day")
    parser.add_argument("--profile", type=Path, help="write cProfile stats of the import to this file")
    parser.add_argument(
        "--phases", action="store_true", help="time each batch's phases (bench/import_phases.py) and print them"
    )
    parser.add_argument(
        "--waits",
        action="store_true",
        help="print the importing process's waits for PostgreSQL by caller, and its collector's passes",
    )
    args = parser.parse_args()
    if args.write:
        # In a child process: the generated manifests and claims it holds while it stores
        # them are not the import's, whose peak RSS this process reports.
        child = multiprocessing.get_context("spawn").Process(
            target=write_sources, args=(args.file, args.write, args.first, args.shape, args.per_day)
        )
        child.start()
        child.join()
        if child.exitcode:
            sys.exit(f"writing the stories failed (exit code {child.exitcode})")
    rss0 = rss_now()
    n = sum(1 for line in args.file.open("rb") if line.strip())
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        pid = cursor.fetchone()[0]
    kids0 = resource.getrusage(resource.RUSAGE_CHILDREN)  # the writer's, if any: not the import's
    server0, wall0, own0 = backend_cpu(pid), time.perf_counter(), resource.getrusage(resource.RUSAGE_SELF)
    from stories.models import Story

    published0 = Story.objects.filter(status=Story.Status.PUBLISHED).count()
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile(time.process_time)  # CPU: on a busy machine wall time is the wait
        profiler.enable()
    import import_phases  # bench/import_phases.py

    tracing = import_phases.traced() if args.phases else contextlib.nullcontext()
    counting = waits_counted() if args.waits else contextlib.nullcontext()
    started = time.perf_counter()
    with tracing as batches, counting as counted:
        try:
            call_command("import_stories", str(args.file), stderr=io.StringIO())
        except CommandError as error:  # stories kept as drafts by the checks still count as imported
            print(str(error)[:200], file=sys.stderr)
    if batches is not None:
        print(import_phases.report(batches, started, time.perf_counter()), file=sys.stderr)
    if counted is not None:
        print(waits_report(*counted), file=sys.stderr)
    wall, own, server, kids = (
        time.perf_counter() - wall0,
        resource.getrusage(resource.RUSAGE_SELF),
        backend_cpu(pid) - server0,
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(args.profile)
    passed = Story.objects.filter(status=Story.Status.PUBLISHED).count() - published0
    client = own.ru_utime - own0.ru_utime + own.ru_stime - own0.ru_stime
    workers = kids.ru_utime - kids0.ru_utime + kids.ru_stime - kids0.ru_stime
    # ru_maxrss of the children is the largest of any: the import's workers' only if it grew
    worker_rss = f"{kids.ru_maxrss / 1024:.0f} MB" if kids.ru_maxrss > kids0.ru_maxrss else "not above the writer's"
    print(
        f"{n} stories: wall {wall:.1f} s ({n / wall:.0f}/s); client CPU {client:.1f} s ({n / client:.0f} per CPU-second); "
        f"checks' workers' CPU {workers:.1f} s; server CPU {server:.1f} s; "
        f"together {n / (client + workers + server):.0f} per CPU-second; "
        f"{passed} published; RSS before the import {rss0:.0f} MB, peak {own.ru_maxrss / 1024:.0f} MB, "
        f"workers' peak {worker_rss}; minor page faults: client {own.ru_minflt - own0.ru_minflt}, "
        f"workers {kids.ru_minflt - kids0.ru_minflt}",
        file=sys.stderr,
    )


if __name__ == "__main__":
    main()
