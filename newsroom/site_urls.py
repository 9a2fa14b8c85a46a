from django.urls import path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("n/<slug:slug>/", views.newsroom_detail, name="newsroom-detail"),
    path("editions/<str:edition_id>/", views.edition_detail, name="edition-detail"),
    path(".well-known/reuse.json", views.reuse_json, name="reuse-json"),
    path("terms/reuse/", views.reuse_terms, name="reuse-terms"),
    path("robots.txt", views.robots_txt, name="robots-txt"),
]
