"""The admin site of the newsroom: carries the site's name, lets the desk's roles in, and
answers a refused action with an admin page that says why.

- A member of the Writer or Editor group may log in to the admin without "Staff status":
  membership is the role (removing the user from the groups takes the admin away; an
  inactive user is refused as ever).
- ``PermissionDenied`` raised inside an admin view is shown on the admin's own page
  (``admin/forbidden.html``, status 403), with the reason, not as a bare "403 Forbidden".
"""

from __future__ import annotations

from functools import wraps

from django.conf import settings
from django.contrib import admin
from django.contrib.admin.forms import AdminAuthenticationForm
from django.core.exceptions import PermissionDenied
from django.template.response import TemplateResponse
from django.utils.translation import gettext_lazy as _

DESK_GROUPS = ("Writer", "Editor")
SITE_NAME_DEFAULT = "Hanging Context"


def site_name() -> str:
    return getattr(settings, "SITE_NAME", SITE_NAME_DEFAULT)


def may_use_admin(user) -> bool:
    """Staff, or a member of the desk's groups; active either way. Cached on the user."""
    if not user.is_active:
        return False
    if user.is_staff:
        return True
    if not user.is_authenticated:
        return False
    cached = getattr(user, "_desk_member", None)
    if cached is None:
        cached = user.groups.filter(name__in=DESK_GROUPS).exists()
        user._desk_member = cached
    return cached


class DeskAuthenticationForm(AdminAuthenticationForm):
    """The admin's login form, accepting the desk's groups as well as staff."""

    def confirm_login_allowed(self, user):
        if not user.is_active:
            raise self.get_invalid_login_error()
        if not may_use_admin(user):
            raise self.get_invalid_login_error()


def refusal_reason(exc: PermissionDenied) -> str:
    text = str(exc).strip()
    return text or "Your role does not allow this action."


class NewsroomAdminSite(admin.AdminSite):
    login_form = DeskAuthenticationForm
    index_template = "admin/desk_index.html"

    @property
    def site_header(self):
        return f"{site_name()} desk"

    @property
    def site_title(self):
        return f"{site_name()} desk"

    index_title = _("The desk")

    def has_permission(self, request):
        return may_use_admin(request.user)

    def admin_view(self, view, cacheable=False):
        @wraps(view)
        def refusing(request, *args, **kwargs):
            try:
                return view(request, *args, **kwargs)
            except PermissionDenied as exc:
                return self.refused(request, refusal_reason(exc))

        return super().admin_view(refusing, cacheable)

    def refused(self, request, reason: str) -> TemplateResponse:
        """The admin's page for a refused action: status 403, with the reason."""
        response = TemplateResponse(
            request,
            "admin/forbidden.html",
            {**self.each_context(request), "title": "Not allowed", "reason": reason},
            status=403,
        )
        return response.render()


class LabelledInline:
    """Inline rows whose fields each carry an accessible name ("Key fact 2: text"): a
    tabular inline shows its labels once, in the table's head, which assistive technology
    does not tie to each row's inputs and checkboxes."""

    def get_formset(self, request, obj=None, **kwargs):
        formset = super().get_formset(request, obj, **kwargs)
        noun = str(self.verbose_name)

        class Labelled(formset):
            def add_fields(self, form, index):
                super().add_fields(form, index)
                row = "new" if index is None else index + 1
                for name, field in form.fields.items():
                    label = "delete" if name == "DELETE" else str(field.label or name)
                    name_attrs = {"aria-label": f"{noun.capitalize()} {row}: {label}"}
                    field.widget.attrs = {**field.widget.attrs, **name_attrs}
                    inner = getattr(field.widget, "widget", None)  # a related-field wrapper's select
                    if inner is not None:
                        inner.attrs = {**inner.attrs, **name_attrs}

        Labelled.__name__ = formset.__name__
        return Labelled
