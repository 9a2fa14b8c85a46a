"""Check a desk/1 file against the database without saving anything.

Exit status: 0 when every criterion passed, 1 when one did not, 2 when the file is not a
well-formed desk/1 story (the message names the JSON path of the problem).
"""

import json
from pathlib import Path

from django.core.management.base import BaseCommand

from stories import desk
from stories.checks import run_checks


class Command(BaseCommand):
    help = (
        "Run the publish checks on a desk/1 file (nothing is saved). Exit 0 passed, 1 not passed, 2 not a valid story."
    )

    def add_arguments(self, parser):
        parser.add_argument("file", metavar="FILE")
        parser.add_argument("--json", action="store_true", help="print the rubric as JSON (checks.md)")

    def handle(self, *args, file, json: bool = False, **options):
        try:
            doc = desk.parse(Path(file).read_bytes())
        except desk.DeskError as exc:
            self._invalid(exc.path, exc.message, as_json=json)
        except OSError as exc:
            self._invalid("$", f"cannot read {file}: {exc.strerror or exc}", as_json=json)
        rubric = run_checks(doc)
        self.stdout.write(_dumps(rubric) if json else format_table(rubric))
        raise SystemExit(0 if rubric["passed"] else 1)

    def _invalid(self, path: str, message: str, *, as_json: bool):
        if as_json:
            self.stdout.write(_dumps({"valid": False, "error": {"path": path, "message": message}}))
        self.stderr.write(f"not a valid desk/1 story: {path}: {message}")
        raise SystemExit(2)


def _dumps(data) -> str:
    return json.dumps(data, ensure_ascii=False, indent=2)


SEVERITY_ORDER = {"error": 0, "warning": 1, "info": 2}


def format_table(rubric: dict) -> str:
    """The rubric as a table for people: one row per criterion, then the findings."""
    lines = [f"{'criterion':<22}{'result':<8}{'score':>6}  findings", "-" * 48]
    for c in rubric["criteria"]:
        counts = {}
        for f in c["findings"]:
            counts[f["severity"]] = counts.get(f["severity"], 0) + 1
        summary = (
            ", ".join(f"{n} {sev}" for sev, n in sorted(counts.items(), key=lambda kv: SEVERITY_ORDER.get(kv[0], 9)))
            or "-"
        )
        lines.append(f"{c['name']:<22}{'pass' if c['passed'] else 'FAIL':<8}{c['score']:>6.2f}  {summary}")
    lines += ["-" * 48, f"{'overall':<22}{'PASSED' if rubric['passed'] else 'FAILED':<8}{rubric['score']:>6.2f}"]
    findings = [(c["name"], f) for c in rubric["criteria"] for f in c["findings"]]
    if findings:
        lines += ["", "Findings:"]
        for name, f in sorted(findings, key=lambda nf: SEVERITY_ORDER.get(nf[1]["severity"], 9)):
            lines.append(f"  {f['severity']:<8}{name}  {f['path']}: {f['message']}")
            if f.get("sentence"):
                lines.append(f"            sentence: {f['sentence']}")
    return "\n".join(lines)
