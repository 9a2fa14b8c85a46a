"""The disk cache's directory: made private (0700), an existing one tightened when it is
ours, refused with an error naming it when it belongs to someone else or cannot be made."""

import os
import stat

import pytest
from django.core.exceptions import ImproperlyConfigured

from newsroom.infra.cache import LocalDiskCache


def make(directory):
    cache = LocalDiskCache(str(directory), {})
    cache.set("k", "v")
    return cache


def test_a_new_cache_directory_is_private(tmp_path):
    directory = tmp_path / "cache"
    cache = make(directory)
    assert stat.S_IMODE(os.stat(directory).st_mode) == 0o700
    assert cache.get("k") == "v"
    cache.close()


def test_an_existing_world_readable_directory_of_ours_is_tightened(tmp_path):
    directory = tmp_path / "cache"
    directory.mkdir(mode=0o777)
    os.chmod(directory, 0o777)
    make(directory).close()
    assert stat.S_IMODE(os.stat(directory).st_mode) == 0o700


@pytest.mark.skipif(os.geteuid() != 0, reason="making a directory of another user needs root")
def test_a_directory_another_user_made_is_refused(tmp_path):
    directory = tmp_path / "planted"
    directory.mkdir(mode=0o777)
    os.chown(directory, 65534, 65534)
    with pytest.raises(ImproperlyConfigured, match="belongs to another user"):
        LocalDiskCache(str(directory), {})
    assert os.listdir(directory) == []  # nothing of ours written into it


def test_a_directory_that_cannot_be_made_is_a_clear_error(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    with pytest.raises(ImproperlyConfigured, match="cannot be made"):
        LocalDiskCache(str(blocker / "cache"), {})
    with pytest.raises(ImproperlyConfigured, match="cannot be made: File exists"):
        LocalDiskCache(str(blocker), {})


def test_the_default_cache_directory_is_outside_the_served_folders():
    from django.conf import settings

    location = os.path.realpath(settings.CACHES["default"]["LOCATION"])
    for served in (settings.STATIC_ROOT, getattr(settings, "MEDIA_ROOT", ""), str(settings.BASE_DIR)):
        if served:
            assert not location.startswith(os.path.realpath(str(served)) + os.sep)
