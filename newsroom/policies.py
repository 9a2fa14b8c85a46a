"""The newsroom's published policies: which site-profile text each page shows, its
title, and the schema.org property of ``NewsMediaOrganization`` that points at it.

Both the readers' site (the pages, JSON-LD) and the API (ninjs ``trustIndicators``)
read this list, so it lives below both.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Policy:
    slug: str  # the page is /policies/<slug>/
    field: str  # the site-profile text (Markdown)
    title: str
    schema_property: str  # of schema.org NewsMediaOrganization
    shipped: bool = False  # True: the page always has the shipped text, the profile adds to it


POLICIES = (
    Policy("publishing-principles", "publishing_principles", "Publishing principles", "publishingPrinciples"),
    Policy("corrections", "corrections_policy", "Corrections policy", "correctionsPolicy"),
    Policy(
        "verification",
        "verification_policy",
        "Verification and fact-checking policy",
        "verificationFactCheckingPolicy",
        shipped=True,
    ),
    Policy("ownership-funding", "ownership_funding", "Ownership and funding", "ownershipFundingInfo"),
    Policy("masthead", "masthead", "Masthead", "masthead"),
)
BY_SLUG = {p.slug: p for p in POLICIES}


def stated(profile) -> list[Policy]:
    """The policies the site states: those with a text in the profile, and the shipped ones."""
    return [p for p in POLICIES if p.shipped or (getattr(profile, p.field) or "").strip()]
