from django.urls import path

from . import views

urlpatterns = [
    path("stories/<str:date>/<slug:slug>/", views.story_detail, name="story-detail"),
]
