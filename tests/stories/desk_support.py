"""Fixtures and helpers of the desk (story admin and actions) tests."""

import pytest
from django.contrib.auth.models import Group

from stories import actions
from tests.factories import UserFactory
from tests.stories.checks_stand_in import checks  # noqa: F401  (a fixture, re-exported)


def member_of(group: str, username: str):
    user = UserFactory(username=username, is_staff=True)
    user.groups.add(Group.objects.get(name=group))
    return user


@pytest.fixture
def editor(db):
    return member_of("Editor", "edna")


@pytest.fixture
def writer(db):
    return member_of("Writer", "walt")


@pytest.fixture
def draft(demo):
    """The seed story, taken down to a draft (it passes every check)."""
    return actions.unpublish_story(story=demo, reason="back to the desk for the tests")


@pytest.fixture
def uncited_draft(draft):
    """The draft with its second section's first paragraph stripped of its cites."""
    paragraph = draft.sections.all()[1].paragraphs.all()[0]
    paragraph.cites.all().delete()
    return draft


def form_data(response) -> dict:
    """The POST data a browser would send back for an admin change form as rendered,
    including every inline formset and its management form."""
    data = {}

    def add(form):
        for name, field in form.fields.items():
            bound = form[name]
            value = bound.value()
            if value is None or value is False:
                continue
            if value is True:
                value = "on"
            if isinstance(value, (list, tuple)):
                value = [str(v) for v in value]
            data[bound.html_name] = value

    add(response.context["adminform"].form)
    for inline in response.context["inline_admin_formsets"]:
        formset = inline.formset
        add(formset.management_form)
        # Send only the forms that exist (no blank extras), as a browser whose user left them empty would.
        data[f"{formset.prefix}-TOTAL_FORMS"] = str(len(formset.initial_forms))
        for form in formset.initial_forms:
            add(form)
    return data
