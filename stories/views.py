from django.http import HttpResponse
from django.shortcuts import get_object_or_404

from .models import Story


def story_detail(request, date, slug):
    story = get_object_or_404(Story.objects.published(), edition_date=date, slug=slug)
    return HttpResponse(story.headline)
