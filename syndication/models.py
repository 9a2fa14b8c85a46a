"""Partners, API keys and webhooks (the syndication issue)."""
