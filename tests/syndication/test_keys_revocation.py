"""A key revoked while a request is reading it: the request may finish with what it read,
but the key is not kept as usable for the next ones (``syndication.keys``)."""

import pytest

pytestmark = pytest.mark.django_db


def test_a_look_up_that_read_a_key_before_its_revocation_committed_does_not_keep_it(
    read_key, monkeypatch, django_capture_on_commit_callbacks
):
    """The request's own answer may use what it read; the next request must see the revocation."""
    from syndication import keys
    from syndication.models import ApiKey

    key = read_key[0]
    usable = ApiKey.objects.usable

    class ReadThenRevoked:
        """The look-up's query: the row is read, then the desk's revocation commits."""

        def __getattr__(self, name):
            return lambda *args, **kwargs: self if name != "first" else self.first()

        def first(self):
            found = usable().select_related("partner").filter(prefix=key.prefix).first()
            with django_capture_on_commit_callbacks(execute=True):
                ApiKey.objects.get(pk=key.pk).revoke()
            return found

    monkeypatch.setattr(ApiKey.objects, "usable", lambda: ReadThenRevoked())
    assert keys.lookup(key.prefix)[0] is not None  # read before the revocation
    monkeypatch.undo()
    assert keys.lookup(key.prefix)[0] is None
    assert keys.usable_key(key.prefix) is None
