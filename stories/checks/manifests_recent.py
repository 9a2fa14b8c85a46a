"""``manifests_recent``: every cited manifest was published within the freshness window
(``CHECKS_FRESHNESS_DAYS``) before the story's edition, and not after the edition's day."""

import datetime as dt

from django.conf import settings

from .base import ERROR, Criterion, CriterionResult, finding, share


class ManifestsRecent(Criterion):
    name = "manifests_recent"

    def run(self, ctx) -> CriterionResult:
        edition_day = ctx.edition_start.date()
        oldest = edition_day - dt.timedelta(days=settings.CHECKS_FRESHNESS_DAYS)
        first_path = {}
        for path, cite in ctx.cites:
            first_path.setdefault(cite["manifest_id"], f"{path}.manifest_id")
        findings, checked, fresh = [], 0, 0
        for mid in ctx.cited_manifest_ids:
            manifest = ctx.manifests.get(mid)
            if manifest is None:
                continue  # manifests_exist reports it
            checked += 1
            published = manifest.published_date
            if published < oldest:
                age = (edition_day - published).days
                findings.append(
                    finding(
                        ERROR,
                        first_path[mid],
                        f"manifest {mid} was published on {published.isoformat()}, {age} days before the "
                        f"edition {ctx.doc['edition']} (the limit is {settings.CHECKS_FRESHNESS_DAYS} days)",
                        manifest_id=mid,
                        published_date=published.isoformat(),
                    )
                )
            elif published > edition_day:
                findings.append(
                    finding(
                        ERROR,
                        first_path[mid],
                        f"manifest {mid} is dated {published.isoformat()}, after the edition {ctx.doc['edition']}",
                        manifest_id=mid,
                        published_date=published.isoformat(),
                    )
                )
            else:
                fresh += 1
        return CriterionResult(self.name, share(fresh, checked), findings)
