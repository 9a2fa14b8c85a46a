from django.http import HttpResponse
from django.shortcuts import get_object_or_404

from .models import Manifest


def manifest_detail(request, manifest_id):
    manifest = get_object_or_404(Manifest, id=manifest_id)
    return HttpResponse(manifest.title)
