"""drf-spectacular: document the partner key as an HTTP bearer scheme."""

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class ApiKeyScheme(OpenApiAuthenticationExtension):
    target_class = "syndication.auth.ApiKeyAuthentication"
    name = "partnerKey"

    def get_security_definition(self, auto_schema):
        return {
            "type": "http",
            "scheme": "bearer",
            "description": "A partner key, `Authorization: Bearer hc_<prefix>_<secret>`. Ask the desk for one.",
        }
