"""Forms of the story admin: friendly widgets over the JSON lists, and the version check
that refuses a save when someone else saved the story since it was opened."""

from __future__ import annotations

import datetime as dt
import re

from django import forms
from django.core.exceptions import ValidationError
from django.utils import timezone
from django.utils.text import slugify

from manifests.models import Claim
from newsroom.infra.jsondoc import not_xml_message
from newsroom.models import Edition
from stories.history import compare_versions
from stories.models import Cite, Correction, KeyFact, Paragraph, Story

DECISION_CARD_FIELDS = {
    "useful_for": "Useful for",
    "not_for": "Not for",
    "compare_against": "Compare against",
}


class LinesField(forms.CharField):
    """A list of strings edited as a textarea, one item per line (blank lines dropped)."""

    widget = forms.Textarea(attrs={"rows": 4, "cols": 80})

    def prepare_value(self, value):
        if isinstance(value, (list, tuple)):
            return "\n".join(str(item) for item in value)
        return value

    def to_python(self, value):
        text = super().to_python(value) or ""
        return [line.strip() for line in text.splitlines() if line.strip()]


def refuse_not_xml(value) -> None:
    """A form validator: no character XML 1.0 cannot hold (a control character, U+FFFE or
    U+FFFF), as desk/1 refuses them: a story's text is written into its feeds and sitemaps."""
    text = "\n".join(value) if isinstance(value, (list, tuple)) else value
    if isinstance(text, str) and not text.isprintable() and (message := not_xml_message(text)) is not None:
        raise ValidationError("This text %(message)s: remove it.", code="not_xml", params={"message": message})


class XmlTextForm:
    """A form whose every text field refuses the characters XML 1.0 cannot hold."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for field in self.fields.values():
            if isinstance(field, forms.CharField):
                field.validators.append(refuse_not_xml)


class XmlTextModelForm(XmlTextForm, forms.ModelForm):
    """The form of the story's inlines (sections, paragraphs, key facts, ...)."""


class StoryVersionForm(XmlTextForm, forms.ModelForm):
    """Carries the story version the page was opened at, and refuses the save when the
    stored story has moved on (optimistic concurrency; no lost updates).

    The admin's change view runs inside one transaction, so the row lock taken in
    ``clean`` holds until the save is done: two saves cannot both pass the check.
    """

    opened_version = forms.IntegerField(widget=forms.HiddenInput, required=False)
    conflict: dict | None = None

    def story_for_version(self) -> Story | None:
        raise NotImplementedError

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        story = self.story_for_version()
        if story is not None and story.pk:
            self.fields["opened_version"].initial = story.version

    def clean(self):
        cleaned = super().clean()
        story = self.story_for_version()
        opened = cleaned.get("opened_version")
        if story is None or not story.pk or opened is None:
            return cleaned
        current = Story.objects.select_for_update().only("version").get(pk=story.pk).version
        if current != opened:
            lines, revisions = compare_versions(story.pk, opened, current)
            editors = sorted({str(r.created_by) for v, r in revisions.items() if v > opened and r.created_by})
            self.conflict = {"opened": opened, "current": current, "lines": lines, "by": editors}
            raise ValidationError(
                "Not saved: this story was saved by %(who)s since you opened it (you opened version %(opened)s; "
                "it is now at version %(current)s). Your changes would overwrite theirs. The differences are "
                "shown above the form: open the story again in a new tab and re-apply your edits there.",
                code="version_conflict",
                params={"who": ", ".join(editors) or "someone else", "opened": opened, "current": current},
            )
        return cleaned


class StoryAdminForm(StoryVersionForm):
    unresolved = LinesField(required=False, help_text="Open questions the story cannot settle, one per line.")
    useful_for = LinesField(required=False, label="Useful for", help_text="Decision card: one item per line.")
    not_for = LinesField(required=False, label="Not for", help_text="Decision card: one item per line.")
    compare_against = LinesField(required=False, label="Compare against", help_text="Decision card: one item per line.")

    class Meta:
        model = Story
        fields = [
            "headline",
            "dek",
            "angle",
            "slug",
            "edition",
            "newsroom",
            "beat",
            "audience",
            "trust",
            "unresolved",
            "writer_agent",
            "writer_run_id",
        ]
        widgets = {
            "headline": forms.TextInput(attrs={"class": "desk-wide"}),
            "dek": forms.Textarea(attrs={"rows": 2, "cols": 80}),
            "angle": forms.Textarea(attrs={"rows": 2, "cols": 80}),
        }

    def story_for_version(self):
        return None if self.instance._state.adding else self.instance

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        card = self.instance.decision_card or {}
        for key in DECISION_CARD_FIELDS:
            self.fields[key].initial = card.get(key, [])
        if "slug" in self.fields:
            self.fields["slug"].required = False
            self.fields["slug"].help_text = "The story's address. Blank: made from the headline."
        if "edition" in self.fields:
            self.fields["edition"].required = False
            self.fields["edition"].help_text = "The hour the story is filed under. Blank: the current hour's edition."

    def clean(self):
        cleaned = super().clean()
        beat, newsroom = cleaned.get("beat"), cleaned.get("newsroom")
        if newsroom is None and "newsroom" not in self.fields:
            newsroom = self.instance.newsroom if self.instance.newsroom_id else None  # read-only: the story's own
        if beat is not None and newsroom is not None and beat.newsroom_id != newsroom.pk:
            self.add_error("beat", f"The beat {beat} belongs to another newsroom than {newsroom}.")
        if "slug" in self.fields and not cleaned.get("slug") and "slug" not in self.errors:
            slug = slug_from(cleaned.get("headline") or "")
            if slug:
                cleaned["slug"] = self.instance.slug = slug
            elif cleaned.get("headline"):
                self.add_error("slug", "The headline has no letters or digits to make an address from: type one.")
        if "edition" in self.fields and cleaned.get("edition") is None and not self.errors:
            cleaned["edition"] = self.instance.edition = current_edition()
        return cleaned

    def save(self, commit=True):
        card = dict(self.instance.decision_card or {})
        for key in DECISION_CARD_FIELDS:
            items = self.cleaned_data.get(key) or []
            if items:
                card[key] = items
            else:
                card.pop(key, None)
        # Keep desk/1's key order (useful_for, not_for, compare_against, then any others).
        ordered = {key: card[key] for key in DECISION_CARD_FIELDS if key in card}
        ordered.update({k: v for k, v in card.items() if k not in ordered})
        self.instance.decision_card = ordered
        return super().save(commit)


def slug_from(headline: str) -> str:
    """A story address from its headline: lower-case ASCII words joined by hyphens."""
    words = re.findall(r"[a-z0-9]+", slugify(headline).replace("_", "-"))
    slug = "-".join(words)[:120].strip("-")
    return slug


def current_edition() -> Edition:
    """The edition of the current UTC hour, created when missing."""
    return Edition.objects.get_or_create_for(timezone.now().astimezone(dt.UTC).strftime("%Y-%m-%dT%H"))[0]


class StoryPartForm(StoryVersionForm):
    """A form on one of the story's parts (a section, a cite): the version checked is the story's."""

    def story_for_version(self):
        return self.instance.story if not self.instance._state.adding else self.initial_story()

    def initial_story(self):
        return None


class CiteForm(StoryPartForm):
    class Meta:
        model = Cite
        fields = ["paragraph", "key_fact", "manifest", "position"]
        widgets = {"paragraph": forms.HiddenInput, "key_fact": forms.HiddenInput}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        if "position" in self.fields:
            self.fields["position"].required = False
            self.fields["position"].help_text = "Order among this text's cites: lower first; blank = after the others."
        if self.instance._state.adding:
            # Show whose cite this is while it is being added (the owner comes from the URL).
            owner = self._owner(self.initial.get("paragraph"), self.initial.get("key_fact"))
            if isinstance(owner, Paragraph):
                self.instance.paragraph = owner
            elif isinstance(owner, KeyFact):
                self.instance.key_fact = owner

    def initial_story(self):
        owner = self._owner(
            self.initial.get("paragraph") or self.data.get("paragraph"),
            self.initial.get("key_fact") or self.data.get("key_fact"),
        )
        return owner.section.story if isinstance(owner, Paragraph) else owner.story if owner else None

    @staticmethod
    def _owner(paragraph_id, key_fact_id):
        if paragraph_id:
            return Paragraph.objects.select_related("section__story").filter(pk=paragraph_id).first()
        if key_fact_id:
            return KeyFact.objects.select_related("story").filter(pk=key_fact_id).first()
        return None

    def clean(self):
        cleaned = super().clean()
        owner = cleaned.get("paragraph") or cleaned.get("key_fact")
        if self.instance._state.adding and owner is not None:
            story = owner.story
            if story.draft_of_id is None and story.status != Story.Status.DRAFT:
                raise ValidationError(
                    "This text belongs to a live story, which is never edited in place: open its pending "
                    "changes (“Edit (creates pending changes)” on the story page) and add the cite there."
                )
        if self.instance._state.adding and bool(cleaned.get("paragraph")) == bool(cleaned.get("key_fact")):
            raise ValidationError(
                "A cite belongs to exactly one paragraph or key fact: open 'Add cite' from the story page."
            )
        if cleaned.get("position") is None:
            owner = (
                cleaned.get("paragraph") or cleaned.get("key_fact") or self.instance.paragraph or self.instance.key_fact
            )
            cleaned["position"] = owner.cites.exclude(pk=self.instance.pk).count() if owner else 0
        return cleaned


def claim_label(claim: Claim) -> str:
    text = claim.text if claim.has_text else "(no text yet: a stub until the manifest is imported)"
    return f"{claim.id} — {text}"


class CorrectionForm(XmlTextForm, forms.Form):
    kind = forms.ChoiceField(choices=Correction.Kind.choices)
    text = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 4, "cols": 80}),
        help_text="What was wrong and what is right now. Readers see it on the story; it can never be edited or deleted.",
    )


class ScheduleForm(forms.Form):
    when = forms.DateTimeField(
        label="Publish at (UTC)",
        widget=forms.DateTimeInput(attrs={"type": "datetime-local"}, format="%Y-%m-%dT%H:%M"),
        input_formats=["%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M", "%Y-%m-%dT%H:%M:%S"],
    )

    def clean_when(self):
        when = self.cleaned_data["when"]
        if when <= timezone.now():
            raise ValidationError("Choose a time in the future.")
        return when


class PublishForm(forms.Form):
    override_reason = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 80}),
        help_text="Only when the checks fail and you publish anyway: why. Recorded in the audit log.",
    )
    # The version of the story whose checks the page showed (the template writes it): an
    # override covers that version only.
    reviewed_version = forms.IntegerField(widget=forms.HiddenInput, required=False, min_value=1)


class ReasonForm(forms.Form):
    reason = forms.CharField(required=False, widget=forms.Textarea(attrs={"rows": 3, "cols": 80}))


NO_NOTE = "none"


class PublishChangesForm(forms.Form):
    """Publishing the pending changes of a live story. When they change its text, the
    editor says whether readers get a note: a correction, clarification or update (public,
    permanent), or none (a typo fix)."""

    note_kind = forms.ChoiceField(
        label="Tell readers?",
        choices=[(NO_NOTE, "No note: a typo fix or a change readers need not be told of")]
        + [(value, f"{label}: recorded publicly on the story") for value, label in Correction.Kind.choices],
        widget=forms.RadioSelect,
        required=False,
    )
    note_text = forms.CharField(
        label="Note to readers",
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 80}),
        help_text="What was wrong and what is right now (for a correction), or what changed. Shown on the story; "
        "it can never be edited or deleted.",
    )
    override_reason = PublishForm.base_fields["override_reason"]
    reviewed_version = PublishForm.base_fields["reviewed_version"]

    def __init__(self, *args, ask_note: bool = False, **kwargs):
        super().__init__(*args, **kwargs)
        self.ask_note = ask_note
        if not ask_note:
            del self.fields["note_kind"], self.fields["note_text"]
        else:
            self.fields["note_kind"].required = True
            self.fields["note_kind"].error_messages["required"] = (
                "The text of a live story changes: choose whether readers get a note."
            )

    def clean(self):
        cleaned = super().clean()
        kind, text = cleaned.get("note_kind"), (cleaned.get("note_text") or "").strip()
        if kind and kind != NO_NOTE and not text:
            self.add_error("note_text", "Write the note readers will see.")
        if kind == NO_NOTE and text:
            self.add_error("note_kind", "You wrote a note: choose its kind (correction, clarification or update).")
        return cleaned

    def correction(self) -> dict | None:
        kind = self.cleaned_data.get("note_kind")
        if not kind or kind == NO_NOTE:
            return None
        return {"kind": kind, "text": self.cleaned_data["note_text"].strip()}
