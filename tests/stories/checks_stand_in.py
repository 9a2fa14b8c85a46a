"""The ``checks`` fixture of the desk tests: the publish checks (``stories.checks``).

It was a stand-in while the checks were built on another branch; they are merged now, and
the desk tests run against them: the seed story passes every criterion, a paragraph
without cites fails ``paragraphs_cited`` at its path.
"""

import pytest


@pytest.fixture
def checks():
    import stories.checks

    return stories.checks
