"""The site-level texts of desk/1, as the reference story has them.

They are the defaults of the site profile (``newsroom.models.SiteProfile``); a deployment
edits them in the admin. ``{site_url}`` is replaced by ``settings.SITE_URL``.
"""

RUN_THESE_MANIFESTS = {
    "title": "Run these Manifests yourself",
    "summary": (
        "Every Manifest cited here can be read in full with your own Synorb Key. "
        "Check the claims before you rely on them."
    ),
    "steps": [
        {
            "n": 1,
            "title": "Get a Synorb Key",
            "text": (
                "Open https://synorb.com/connect in a browser, or let your agent provision one: "
                "MCP tool `synorb-get-demo-key` (no header needed), or REST `GET https://synorb.com/connect` "
                "with `Accept: application/json`. Save the key. The 72 Hour Agent Demo key needs no email. "
                "It lasts 72 hours and can pull up to 25 Manifests. It includes 5 Beacons; 3 of them are "
                "starter Beacons."
            ),
        },
        {
            "n": 2,
            "title": "Read each cited Manifest by id",
            "text": (
                "REST: `GET https://api.synorb.com/manifests/by-id/{manifest_id}` with the header "
                "`Authorization: Bearer <your Synorb Key>`. Ids are strings; do not parse them as numbers. "
                "The reply holds the source, the Signal (claims) and the Brief."
            ),
        },
        {
            "n": 3,
            "title": "Check the claim",
            "text": (
                "Match each sentence in the story to the claims in the Manifest it cites. "
                "The claim ids in the ledger point to them."
            ),
        },
    ],
    "mcp_url": "https://mcp.synorb.com/mcp",
    "connect_url": "https://synorb.com/connect",
    "request": {
        "method": "GET",
        "url_template": "https://api.synorb.com/manifests/by-id/{manifest_id}",
        "headers": {"Authorization": "Bearer <SYNORB_KEY>"},
    },
}

# Shell templates for run_these_manifests.commands: {url} is request.url_template with
# the first id filled in; {ids} the space-separated ids; {url_var} the template with $id.
COMMAND_ONE = 'curl -s -H "Authorization: Bearer $SYNORB_KEY" {url}'
COMMAND_ALL = 'for id in {ids}; do\n  curl -s -H "Authorization: Bearer $SYNORB_KEY" "{url_var}"\ndone'

SPONSOR = {
    "label": "From Synorb",
    "title": "Ask what Synorb covers",
    "text": (
        'The MCP tool synorb-stream-search answers questions like "do you have this publisher?" '
        "without using any Manifest allowance."
    ),
    "cta": {"label": "Connect and ask", "url": "https://synorb.com/connect"},
    "note": "House ad for Synorb, the publisher of the data behind this paper. Not a news item.",
}

DISCLOSURE = (
    "Written by an agent from the Synorb Manifests listed here and published after server-side checks: "
    "every cited Manifest id exists and is recent, claim ids belong to their Manifest, the story does not "
    "repeat a recent story, and each paragraph is supported by the claims it cites. "
    "Run the Manifests yourself to verify."
)

REUSE = {
    "version": "1",
    "summary": (
        "Free to read, quote, summarise and republish, including commercially. Credit Hanging Context and "
        "link to the story. Keep the cited Manifest ids when you republish claims. Do not imply that Synorb "
        "endorses you or your product."
    ),
    "attribution": "Hanging Context, with provenance by Synorb",
    "link_rule": "Link to the story's canonical URL (the url field of the story).",
    "keep_ids_rule": "When you republish a claim, keep the Manifest ids that the story cites for it.",
    "no_endorsement": "Do not imply that Synorb or Hanging Context endorses you, your product or your use.",
    "license_url": "{site_url}/terms/reuse/",
    "machine_url": "{site_url}/.well-known/reuse.json",
}

PUBLISHING_PRINCIPLES = (
    "Every story is written from Synorb Manifests, each a source with the claims it makes, and every "
    "paragraph and key fact cites the claims it rests on. A story is published only when it passes the "
    "server-side checks described in our verification policy, or when an editor overrides a failing check "
    "with a reason; the story then says so, and its public record of the checks shows the reason.\n\n"
    "We label what a story is (reported, analysis) and say who or what wrote it. Claims that a company makes "
    "about itself are marked as self-reported. Questions a story could not settle are listed as unresolved."
)

CORRECTIONS_POLICY = (
    "When a published story is wrong, we correct it in place and say so: the correction, its kind and its "
    "time appear at the top of the story, in every format of it (the page, index.json, index.md, the API and "
    "the feeds), and on the list of all corrections. We do not remove a correction once it is published, and "
    "we do not change a published story without the change passing the same checks as the first version."
)
