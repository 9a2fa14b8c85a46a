"""drf-spectacular: the partner key documented as an HTTP bearer scheme, and the schema's view."""

from django.conf import settings
from django.utils import translation
from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.views import SpectacularAPIView
from rest_framework.response import Response


class ApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = "syndication.auth.ApiKeyAuthentication"
    name = "partnerKey"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A partner key, `Authorization: Bearer hc_<prefix>_<secret>`. Ask the desk for one.",
        }


class SchemaView(SpectacularAPIView):
    """The OpenAPI document (``/api/schema/``), public and unauthenticated: generated once a
    process for each API version and language, since it changes only with the code.
    Generating it walks every view and serializer (tens of milliseconds), which any
    anonymous client could otherwise ask for as often as it liked. A language the site has
    no translations for is the default language's document."""

    def _get_schema_response(self, request):
        version = self.api_version or request.version or self._get_version_parameter(request)
        language = translation.get_language()
        if not translation.check_for_language(language):
            language = settings.LANGUAGE_CODE
        key = (version, language, self.serve_public)
        data = _SCHEMAS.get(key)
        if data is None:
            generator = self.generator_class(urlconf=self.urlconf, api_version=version, patterns=self.patterns)
            data = _SCHEMAS[key] = generator.get_schema(request=request, public=self.serve_public)
        return Response(
            data=data, headers={"Content-Disposition": f'inline; filename="{self._get_filename(request, version)}"'}
        )


_SCHEMAS: dict[tuple, dict] = {}
