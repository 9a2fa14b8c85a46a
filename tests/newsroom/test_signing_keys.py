"""The signing keys: where they come from, their key ids, the published directory, rotation,
and production refusing to start without one."""

import base64
import json
import os
import secrets
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from django.core.exceptions import ImproperlyConfigured

from newsroom.infra.signing import DIRECTORY_TYPE, keyring, messages, thumbprint
from tests.signatures import InvalidSignature, pem_of, seed_of, verify_response, x_of

ROOT = Path(__file__).resolve().parents[2]
DIRECTORY = "/.well-known/http-message-signatures-directory"


@pytest.fixture(autouse=True)
def no_stored_signatures():
    messages._local.clear()
    yield
    messages._local.clear()


def test_the_key_id_is_the_rfc_7638_thumbprint():
    # RFC 8037, appendix A.3: the thumbprint of its example Ed25519 key.
    x = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    key = Ed25519PublicKey.from_public_bytes(base64.urlsafe_b64decode(x + "="))
    assert thumbprint(key) == "kPrK_qmxVWaYVA9wwBF6Iuo3vVzz7TxHCTwXBygrS4k"


def test_the_key_comes_from_the_setting_as_a_seed_or_pem(settings):
    key = Ed25519PrivateKey.generate()
    settings.SIGNING_KEY = seed_of(key)
    assert keyring().current.jwk()["x"] == x_of(key)
    settings.SIGNING_KEY = pem_of(key)
    assert keyring().current.jwk()["x"] == x_of(key)
    assert not keyring().development


def test_the_key_comes_from_a_file(settings, tmp_path):
    key = Ed25519PrivateKey.generate()
    (tmp_path / "signing.pem").write_text(pem_of(key))
    settings.SIGNING_KEY, settings.SIGNING_KEY_FILE = "", str(tmp_path / "signing.pem")
    assert keyring().current.jwk()["x"] == x_of(key)


@pytest.mark.parametrize(
    "bad", ["not a key", "c2hvcnQ", "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----"]
)
def test_a_bad_key_is_refused_naming_the_setting_not_the_key(settings, bad):
    settings.SIGNING_KEY = bad
    with pytest.raises(ImproperlyConfigured, match="SIGNING_KEY") as caught:
        keyring()
    assert bad not in str(caught.value)


def test_an_unreadable_key_file_is_refused(settings, tmp_path):
    settings.SIGNING_KEY, settings.SIGNING_KEY_FILE = "", str(tmp_path / "missing.pem")
    with pytest.raises(ImproperlyConfigured, match="SIGNING_KEY_FILE: cannot read"):
        keyring()


def test_the_development_key_is_stable_and_only_for_development(settings):
    settings.SIGNING_KEY = settings.SIGNING_KEY_FILE = ""
    first = keyring()
    assert first.development
    settings.SIGNING_RETIRED_KEYS = []  # any change reloads the keys
    assert keyring().keyid == first.keyid
    settings.SIGNING_DEVELOPMENT_KEY = False
    with pytest.raises(ImproperlyConfigured, match="No signing key"):
        keyring()


@pytest.mark.django_db
def test_the_directory_lists_every_key_and_is_signed(client, settings, tmp_path):
    current, old_seed, old_pem = (Ed25519PrivateKey.generate() for _ in range(3))
    (tmp_path / "old.pem").write_text(pem_of(old_pem))
    settings.SIGNING_KEY = seed_of(current)
    settings.SIGNING_RETIRED_KEYS = [x_of(old_seed), str(tmp_path / "old.pem")]
    response = client.get(DIRECTORY)
    assert response.status_code == 200
    assert response["Content-Type"] == DIRECTORY_TYPE
    jwks = json.loads(response.content)
    assert [k["x"] for k in jwks["keys"]] == [x_of(current), x_of(old_seed), x_of(old_pem)]
    for jwk in jwks["keys"]:
        assert (jwk["kty"], jwk["crv"], jwk["alg"]) == ("OKP", "Ed25519", "EdDSA")
        assert "d" not in jwk
        assert jwk["kid"] == thumbprint(serialization.load_pem_public_key(_pem_public(jwk["x"])))
    verify_response(response, "http://testserver" + DIRECTORY, jwks)


def _pem_public(x: str) -> bytes:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    key = Ed25519PublicKey.from_public_bytes(base64.urlsafe_b64decode(x + "="))
    return key.public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)


@pytest.mark.django_db
def test_reuse_json_links_the_directory(client):
    terms = client.get("/.well-known/reuse.json").json()
    assert urlsplit(terms["signatures"]["directory"]).path == DIRECTORY


@pytest.mark.django_db
def test_after_rotation_old_copies_still_verify_and_new_ones_use_the_new_key(client, demo, settings):
    old, new = Ed25519PrivateKey.generate(), Ed25519PrivateKey.generate()
    url = urlsplit(demo.url).path + "index.json"
    settings.SIGNING_KEY = seed_of(old)
    saved = client.get(url)

    settings.SIGNING_KEY, settings.SIGNING_RETIRED_KEYS = seed_of(new), [x_of(old)]
    jwks = client.get(DIRECTORY).json()
    [before] = verify_response(saved, "http://testserver" + url, jwks)
    [after] = verify_response(client.get(url), "http://testserver" + url, jwks)
    assert before.parameters["keyid"] != after.parameters["keyid"] == keyring().keyid

    settings.SIGNING_RETIRED_KEYS = []  # a key dropped from the list no longer vouches for old copies
    with pytest.raises(InvalidSignature):
        verify_response(saved, "http://testserver" + url, client.get(DIRECTORY).json())


PROD_ENV = {"DEBUG": "0", "SECRET_KEY": secrets.token_urlsafe(50), "ALLOWED_HOSTS": "example.com"}
SCRUBBED = {"DJANGO_ALLOW_ASYNC_UNSAFE", "DEBUG", "CACHE_URL", "REDIS_URL", "SIGNING_KEY", "SIGNING_KEY_FILE"}


def manage(*args, **env) -> subprocess.CompletedProcess:
    full = {k: v for k, v in os.environ.items() if k not in SCRUBBED} | PROD_ENV | env
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=full, capture_output=True, text=True, timeout=120
    )


@pytest.mark.slow
def test_production_without_a_key_refuses_to_start():
    result = manage("check", "--deploy")
    assert result.returncode != 0
    assert "ImproperlyConfigured: No signing key: set SIGNING_KEY" in result.stderr


@pytest.mark.slow
def test_production_with_a_bad_key_refuses_to_start_and_with_a_good_one_checks_clean():
    assert "SIGNING_KEY: expected a PEM" in manage("check", SIGNING_KEY="nope").stderr
    result = manage("check", "--deploy", "--fail-level", "WARNING", SIGNING_KEY=secrets.token_urlsafe(32))
    assert result.returncode == 0, result.stdout + result.stderr
