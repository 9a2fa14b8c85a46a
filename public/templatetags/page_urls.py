"""``{% url %}`` and ``{% static %}`` as Django's, each answer kept per process.

A public page reverses a dozen or more URLs (the site's header and footer, its feeds, each
cited manifest) and names a few static files; each costs tens of microseconds, as much as
the rest of a small page. The answer depends only on the URL configuration, the script
prefix and the arguments (or, for a static file, on the storage and its settings), so it is
kept, keyed by all of them, and forgotten whenever a setting changes. Loaded after the
built-in tags (``{% load static page_urls %}``), these take their place with the same syntax.
"""

from __future__ import annotations

from django import template
from django.conf import settings
from django.core.signals import setting_changed
from django.dispatch import receiver
from django.template.defaulttags import URLNode
from django.template.defaulttags import url as url_tag
from django.templatetags.static import StaticNode
from django.templatetags.static import static as static_url
from django.urls import get_script_prefix, get_urlconf, reverse

register = template.Library()

LIMIT = 4096  # distinct URLs kept; past it the lot is forgotten (a story page adds a few)
_urls: dict = {}
_static: dict = {}


@receiver(setting_changed)
def _forget(**kwargs):
    _urls.clear()
    _static.clear()


def kept_reverse(view_name: str, args: tuple = ()) -> str:
    """``reverse(view_name, args=args)``, kept like the tags' answers."""
    key = ("reverse", get_urlconf() or settings.ROOT_URLCONF, get_script_prefix(), view_name, tuple(args))
    got = _urls.get(key)
    if got is None:
        got = reverse(view_name, args=args)
        if len(_urls) >= LIMIT:
            _urls.clear()
        _urls[key] = got
    return got


def kept_static(path: str) -> str:
    """``static(path)``, kept like the tag's answers."""
    key = ("static", path)
    got = _static.get(key)
    if got is None:
        got = static_url(path)
        if len(_static) >= LIMIT:
            _static.clear()
        _static[key] = got
    return got


class CachedURLNode(URLNode):
    def render(self, context):
        if self.asvar is not None:
            return super().render(context)
        request = getattr(context, "request", None)
        try:  # as URLNode finds it
            current_app = request.current_app
        except AttributeError:
            current_app = getattr(getattr(request, "resolver_match", None), "namespace", None)
        try:
            key = (
                get_urlconf() or settings.ROOT_URLCONF,
                get_script_prefix(),
                current_app,
                self.view_name.resolve(context),
                tuple(arg.resolve(context) for arg in self.args),
                tuple(sorted((k, v.resolve(context)) for k, v in self.kwargs.items())),
                context.autoescape,
            )
            got = _urls.get(key)
        except TypeError:  # an argument that cannot be a key
            return super().render(context)
        if got is None:
            got = super().render(context)
            if len(_urls) >= LIMIT:
                _urls.clear()
            _urls[key] = got
        return got


class CachedStaticNode(StaticNode):
    def render(self, context):
        if self.varname is not None:
            return super().render(context)
        key = (self.path.resolve(context), context.autoescape)
        got = _static.get(key)
        if got is None:
            got = super().render(context)
            if len(_static) >= LIMIT:
                _static.clear()
            _static[key] = got
        return got


@register.tag
def url(parser, token):
    node = url_tag(parser, token)
    return CachedURLNode(node.view_name, node.args, node.kwargs, node.asvar)


@register.tag
def static(parser, token):
    return CachedStaticNode.handle_token(parser, token)
