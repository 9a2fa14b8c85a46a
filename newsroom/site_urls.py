from django.urls import path

from . import views

urlpatterns = [
    path("", views.home, name="home"),
    path("n/<slug:slug>/", views.newsroom_detail, name="newsroom-detail"),
    path("editions/<str:edition_id>/", views.edition_detail, name="edition-detail"),
]
