"""Output serializers for the simple resources, and the shapes the OpenAPI schema documents
for the document-valued ones (desk/1, ninjs, the rubric), which are built by their own
modules and passed through as dicts."""

from rest_framework import serializers


class ErrorDetailSerializer(serializers.Serializer):
    code = serializers.CharField(
        help_text="Machine-readable: not_authenticated, authentication_failed, permission_denied, not_found, throttled, invalid, bad_parameter, parse_error…"
    )
    message = serializers.CharField()
    path = serializers.CharField(required=False, help_text="For an invalid document: the JSON path of the problem.")
    parameter = serializers.CharField(required=False, help_text="For a bad query parameter: its name.")
    retry_after = serializers.IntegerField(required=False, help_text="For 429: seconds to wait.")


class ErrorSerializer(serializers.Serializer):
    error = ErrorDetailSerializer()


class StoryDocumentSerializer(serializers.Serializer):
    """A story as hangingcontext.desk/1 JSON (see docs/desk-1.md); only the main fields are
    listed here, the document carries every field of the format."""

    schema = serializers.CharField()
    type = serializers.CharField()
    id = serializers.CharField()
    slug = serializers.CharField()
    edition = serializers.CharField()
    url = serializers.URLField()
    newsroom = serializers.CharField()
    beat = serializers.CharField(allow_null=True)
    headline = serializers.CharField()
    dek = serializers.CharField()
    published_at = serializers.DateTimeField(allow_null=True)
    key_facts = serializers.ListField(child=serializers.DictField())
    sections = serializers.ListField(child=serializers.DictField())
    corrections = serializers.ListField(child=serializers.DictField())
    cited_manifest_ids = serializers.ListField(child=serializers.CharField())


class StoryListItemSerializer(serializers.Serializer):
    """One story of a list page: its desk/1 document plus the API's bookkeeping."""

    id = serializers.CharField()
    version = serializers.IntegerField()
    updated_at = serializers.DateTimeField()
    story = StoryDocumentSerializer()


class NinjsSerializer(serializers.Serializer):
    """IPTC ninjs 3.1 (https://www.iptc.org/std/ninjs/); main fields listed."""

    uri = serializers.URLField()
    standard = serializers.DictField(help_text="name ninjs, version 3.1 and the schema's URI.")
    type = serializers.CharField()
    version = serializers.CharField()
    firstCreated = serializers.DateTimeField(required=False)
    versionCreated = serializers.DateTimeField(required=False)
    slugline = serializers.CharField()
    headlines = serializers.ListField(child=serializers.DictField())
    bodies = serializers.ListField(child=serializers.DictField())
    renditions = serializers.ListField(child=serializers.DictField())
    associations = serializers.ListField(child=serializers.DictField(), required=False)
    genres = serializers.ListField(child=serializers.DictField(), required=False)
    rightsInfo = serializers.DictField(required=False)
    edNote = serializers.CharField(required=False, help_text="The corrections this version carries.")
    digitalSourceType = serializers.DictField(
        required=False, help_text="IPTC digital source type of the writer: an agent or a person."
    )
    infoSources = serializers.ListField(
        child=serializers.DictField(), required=False, help_text="The manifests the story cites."
    )
    trustIndicators = serializers.ListField(
        child=serializers.DictField(),
        required=False,
        help_text="The disclosure and checks record, corrections, reuse policy and the newsroom's policy pages.",
    )


class BeatSerializer(serializers.Serializer):
    slug = serializers.CharField()
    title = serializers.CharField()


class NewsroomSerializer(serializers.Serializer):
    slug = serializers.CharField()
    title = serializers.CharField()
    url = serializers.URLField()
    published_stories = serializers.IntegerField()
    updated_at = serializers.DateTimeField(
        allow_null=True, help_text="The latest change to one of its published stories."
    )
    beats = BeatSerializer(many=True)


class EditionSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="The UTC hour, YYYY-MM-DDTHH.")
    starts_at = serializers.DateTimeField()
    url = serializers.URLField()
    published_stories = serializers.IntegerField()
    updated_at = serializers.DateTimeField(allow_null=True)


class ClaimSerializer(serializers.Serializer):
    claim_id = serializers.CharField()
    text = serializers.CharField()
    self_reported = serializers.BooleanField()


class ManifestSerializer(serializers.Serializer):
    manifest_id = serializers.CharField()
    title = serializers.CharField()
    source_name = serializers.CharField()
    source_url = serializers.URLField()
    published_date = serializers.DateField()
    updated_at = serializers.DateTimeField()
    claims = ClaimSerializer(many=True)
    pending_claim_ids = serializers.ListField(
        child=serializers.CharField(), help_text="Claims cited by a story but whose text the desk has not fetched yet."
    )


class CorrectionSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    story_id = serializers.CharField()
    story_url = serializers.URLField()
    headline = serializers.CharField()
    corrected_at = serializers.DateTimeField()
    kind = serializers.ChoiceField(choices=["correction", "clarification", "update"])
    text = serializers.CharField()


class FindingSerializer(serializers.Serializer):
    severity = serializers.CharField()
    path = serializers.CharField(required=False)
    message = serializers.CharField()


class CriterionSerializer(serializers.Serializer):
    name = serializers.CharField()
    passed = serializers.BooleanField()
    score = serializers.FloatField()
    findings = FindingSerializer(many=True)


class RubricSerializer(serializers.Serializer):
    """The rubric of docs/checks.md."""

    passed = serializers.BooleanField()
    score = serializers.FloatField()
    criteria = CriterionSerializer(many=True)


class SubmissionSerializer(serializers.Serializer):
    id = serializers.CharField(help_text="The stored story's id.")
    status = serializers.ChoiceField(choices=["draft", "published"])
    version = serializers.IntegerField()
    rubric = RubricSerializer()
    failed_criteria = serializers.ListField(
        child=serializers.CharField(), help_text="The names of the rubric's failing criteria (empty when it passed)."
    )


class ConflictStorySerializer(serializers.Serializer):
    id = serializers.CharField()
    edition = serializers.CharField()
    slug = serializers.CharField()
    url = serializers.URLField(help_text="The story's page (a 404 while it is not published).")


class ConflictDetailSerializer(ErrorDetailSerializer):
    story = ConflictStorySerializer(
        required=False,
        help_text="The story the submission would have replaced, when it is published or the partner's own "
        "(otherwise left out, and `path` names the field that is taken: `id` or `slug`).",
    )


class ConflictSerializer(serializers.Serializer):
    """409: the submission names a story that is not the partner's own draft."""

    error = ConflictDetailSerializer()


class ManifestImportSerializer(serializers.Serializer):
    created = serializers.IntegerField()
    updated = serializers.IntegerField()
    unchanged = serializers.IntegerField()
