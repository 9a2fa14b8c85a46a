"""The site's own signature reader (``verify_story``'s): hostile or broken headers give a
named failure, never a crash; a good signature from ``messages`` reads back."""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from newsroom.infra.signing import keyring, response_headers, sign_request
from newsroom.infra.signing.verify import VerificationFailed, verify

URI = "https://news.example.com/stories/2026-10-16/a/index.json"
sf_text = st.text(
    alphabet=st.sampled_from(list('sig1=(),;:"@-_ target-urireqkeyid?1 0123456789abcdef+/\\')), max_size=80
)


def _keys():
    ring = keyring()
    return {k.kid: k.key for k in ring.public_keys()}


def _signed(body=b'{"id": "81"}'):
    headers = response_headers(target_uri=URI, content_type="application/json", body=body, cacheable=False)
    return {k.lower(): v for k, v in headers.items()} | {"content-type": "application/json"}


def test_a_response_signature_reads_back():
    result = verify(headers=_signed(), body=b'{"id": "81"}', target_uri=URI, keys=_keys())
    assert result.keyid == keyring().keyid and result.created is not None


def test_a_request_signature_reads_back_only_for_its_method():
    body = b"{}"
    headers = sign_request(method="POST", target_uri=URI, content_type="application/json", body=body)
    headers = {k.lower(): v for k, v in headers.items()} | {"content-type": "application/json"}
    verify(headers=headers, body=body, target_uri=URI, keys=_keys(), method="POST")
    with pytest.raises(VerificationFailed, match="bad signature"):
        verify(headers=headers, body=body, target_uri=URI, keys=_keys(), method="PUT")


def test_a_response_signature_is_not_a_request_signature():
    with pytest.raises(VerificationFailed, match="does not cover"):
        verify(headers=_signed(), body=b'{"id": "81"}', target_uri=URI, keys=_keys(), method="GET")


@settings(max_examples=150, deadline=None)
@given(signature_input=sf_text, signature=sf_text, digest=sf_text)
def test_hostile_headers_fail_with_a_reason(signature_input, signature, digest):
    headers = _signed() | {"signature-input": signature_input, "signature": signature, "content-digest": digest}
    with pytest.raises(VerificationFailed):
        verify(headers=headers, body=b'{"id": "81"}', target_uri=URI, keys=_keys())


@pytest.mark.parametrize("signature", ["sig1=?", "sig1=?x", "sig1=:YQ==:;a=?", "sig1=?2"])
def test_a_boolean_without_its_digit_fails_with_a_reason(signature):
    headers = _signed() | {"signature": signature}
    with pytest.raises(VerificationFailed, match="bad boolean"):
        verify(headers=headers, body=b'{"id": "81"}', target_uri=URI, keys=_keys())


# Damage: text holding a character no Signature-Input may hold outside a string ("{" and the
# like are neither a key, a token, a number, base64 nor a delimiter), and no quote or
# backslash, so that inside a string it changes that string (a component, the keyid or a
# signed parameter) instead of ending it. Spaces or a further ", name=value" alone are no damage.
_quiet = st.text(alphabet=st.characters(exclude_characters='"\\'), max_size=10)
damage = st.tuples(_quiet, st.sampled_from("{}<>[]"), _quiet).map("".join)


@settings(max_examples=100, deadline=None)
@given(st.integers(min_value=0, max_value=400), damage)
def test_a_damaged_signature_input_fails_with_a_reason(cut, junk):
    headers = _signed()
    value = headers["signature-input"]
    headers["signature-input"] = value[:cut] + junk + value[cut:]
    with pytest.raises(VerificationFailed) as failure:
        verify(headers=headers, body=b'{"id": "81"}', target_uri=URI, keys=_keys())
    assert str(failure.value).strip(), "a failure names its reason"
