"""The editing desk's pages saved through the gate: a story's (or one of its parts') form
and its inlines written inside one ``save_story``, so that the page's save is one edit
(one version, one revision, one audit row), refused when the story moved on."""

from __future__ import annotations

from stories.models import Story

from .verbs import save_story


def save_forms(*, story: Story, user, form, formsets, expected_version=None, details: dict | None = None) -> Story:
    """Write a validated admin form (the story's, or a part's) and its inline formsets as
    one edit of ``story``."""

    def write():
        form.instance.save()
        form.save_m2m()
        for formset in formsets:
            # Inlines with a position are saved in their displayed order (positions renumbered).
            if "position" in formset.form.base_fields:
                save_ordered_formset(formset)
            else:
                formset.save()

    return save_story(story=story, user=user, expected_version=expected_version, write=write, details=details)


def delete_part(*, part, user) -> Story:
    """Remove one part of a story (a section, a cite...) as an edit of its story."""
    return save_story(story=part.story, user=user, write=part.delete, details={"deleted": part._meta.model_name})


def save_ordered_formset(formset) -> None:
    """Save an inline formset whose rows have a ``position``: rows are ordered by the
    position typed (blank: after the others), ties by their order on the page, then
    numbered 0, 1, 2... So an editor can leave positions alone, or type 1.5-style
    insertions as "1" and still get a clean order."""
    formset.save(commit=False)
    for obj in formset.deleted_objects:
        obj.delete()
    kept = []
    for index, form in enumerate(formset.forms):
        if form.instance.pk is None and not form.has_changed():
            continue  # a blank extra row
        if formset.can_delete and formset._should_delete_form(form):
            continue
        position = form.cleaned_data.get("position")
        kept.append((position is None, position or 0, index, form))
    for rank, (*_, form) in enumerate(sorted(kept, key=lambda row: row[:3])):
        if form.instance.pk is None:
            formset.save_new(form, commit=False)
        form.instance.position = rank
        form.instance.save()
