"""``{% source_change_notice story %}``: the desk's flag for a cited source changed since
the story was published (``stories.actions.sources``)."""

from django import template

from stories.actions.sources import source_change_notice as notice_for

register = template.Library()


@register.inclusion_tag("admin/stories/story/source_changed.html")
def source_change_notice(story):
    notice = notice_for(story)
    if notice is None:
        return {"notice": None}
    details = notice["entry"].details or {}
    return {
        "notice": notice,
        "claim_id": details.get("claim_id", ""),
        "manifest_id": details.get("manifest_id", ""),
        "fields": ", ".join(details.get("changes", {})),
    }
