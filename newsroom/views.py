from django.http import HttpResponse
from django.shortcuts import get_object_or_404

from .models import Edition, Newsroom


def home(request):
    return HttpResponse("Hanging Context")


def newsroom_detail(request, slug):
    newsroom = get_object_or_404(Newsroom, slug=slug)
    return HttpResponse(newsroom.title)


def edition_detail(request, edition_id):
    edition = get_object_or_404(Edition, id=edition_id)
    return HttpResponse(edition.id)
