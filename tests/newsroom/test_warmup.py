"""newsroom.infra.warmup: what a new worker does before its first request, without the database."""

from django.template import engines
from django.urls import get_resolver

from newsroom.infra.warmup import warm


def test_warm_loads_the_urlconf_and_templates_without_the_database(caplog):
    # No django_db mark: any query would raise inside warm(), which logs it as a failure.
    assert warm() >= 0
    assert "warm-up failed" not in caplog.text
    assert get_resolver()._populated
    engine = engines["django"].engine
    cached = [loader for loader in engine.template_loaders if hasattr(loader, "get_template_cache")]
    assert any("public/story_detail.html" in loader.get_template_cache for loader in cached)


def test_warm_never_raises(monkeypatch, caplog):
    def broken():
        raise RuntimeError("no resolver")

    monkeypatch.setattr("django.urls.get_resolver", broken)
    assert warm() >= 0
    assert "warm-up failed" in caplog.text
