"""Helpers of the stories' tests: the desk's people and forms, and the checks' rubrics."""

import copy

from django.contrib.auth.models import Group

from stories import desk
from stories.checks import run_checks
from tests.factories import UserFactory

# --------------------------------------------------------------------------- the desk


def change_url(story) -> str:
    """The admin change page of ``story``."""
    return f"/admin/stories/story/{story.pk}/change/"


def client_for(user):
    """A test client logged in as ``user``."""
    from django.test import Client

    client = Client()
    client.force_login(user)
    return client


def member_of(group: str, username: str):
    """A staff user in ``group`` (Editor, Writer)."""
    user = UserFactory(username=username, is_staff=True)
    user.groups.add(Group.objects.get(name=group))
    return user


def form_data(response) -> dict:
    """The POST data a browser would send back for an admin change form as rendered,
    including every inline formset and its management form."""
    data = {}

    def add(form):
        for name in form.fields:
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


# --------------------------------------------------------------------------- the checks


def rederive(doc: dict) -> dict:
    """The document with its derived fields recomputed from the database, as the CMS would
    export it: so a planted fault touches only the criterion it is meant for."""
    return desk.render_document(desk.validate(copy.deepcopy(doc)))


def rubric_of(doc: dict, **kwargs) -> dict:
    return run_checks(desk.validate(doc), **kwargs)


def criterion(rubric: dict, name: str) -> dict:
    return next(c for c in rubric["criteria"] if c["name"] == name)


def failing(rubric: dict) -> list[str]:
    return [c["name"] for c in rubric["criteria"] if not c["passed"]]


def errors(rubric: dict, name: str) -> list[dict]:
    return [f for f in criterion(rubric, name)["findings"] if f["severity"] == "error"]


def para(doc: dict, section: int, paragraph: int) -> dict:
    return doc["sections"][section]["paragraphs"][paragraph]
