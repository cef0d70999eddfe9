"""Hidden tests of packaging/version.py (packaging 24.2).

External tests use versions as specifiers.py and utils.py do: containment, filtering and
ordering of pre-releases, canonical forms. Internal tests check the Version object, its
parts and its ordering key directly.
"""

import pytest

from packaging.specifiers import SpecifierSet
from packaging.utils import canonicalize_version
from packaging.version import InvalidVersion, Version, _cmpkey, parse


# External: specifiers.py compares Version objects.
def test_specifier_set_contains_orders_versions():
    spec = SpecifierSet(">=1.0,<2.0")
    assert "1.5" in spec
    assert "2.0" not in spec
    assert "0.9.9" not in spec


def test_specifier_filter_skips_prereleases_unless_asked():
    spec = SpecifierSet(">=1.0")
    assert list(spec.filter(["1.0", "1.1a1", "1.2"])) == ["1.0", "1.2"]
    assert list(spec.filter(["1.0", "1.1a1"], prereleases=True)) == ["1.0", "1.1a1"]


def test_compatible_release_uses_the_release_segment():
    spec = SpecifierSet("~=1.4.2")
    assert "1.4.9" in spec
    assert "1.5.0" not in spec


def test_canonicalize_version_reads_versions():
    assert canonicalize_version("1.0.0.post0") == "1.post0"
    assert canonicalize_version("v1.2") == "1.2"


# Internal: the Version object.
def test_parse_normalises_the_spelling():
    assert str(Version("1.0-ALPHA.1")) == "1.0a1"
    assert str(Version("v2.0.0-rev3")) == "2.0.0.post3"
    assert str(parse("1!2.3.dev4+Local.Build")) == "1!2.3.dev4+local.build"


def test_parts_of_a_version():
    v = Version("1!2.3.4rc5.post6.dev7+abc.8")
    assert (v.epoch, v.release, v.pre, v.post, v.dev) == (1, (2, 3, 4), ("rc", 5), 6, 7)
    assert v.local == "abc.8"
    assert v.public == "1!2.3.4rc5.post6.dev7"
    assert v.base_version == "1!2.3.4"
    assert (v.major, v.minor, v.micro) == (2, 3, 4)


def test_flags():
    assert Version("1.0a1").is_prerelease
    assert Version("1.0.dev1").is_devrelease
    assert Version("1.0.post1").is_postrelease
    assert not Version("1.0").is_prerelease


def test_ordering_follows_pep_440():
    ordered = ["1.0.dev1", "1.0a1", "1.0b2", "1.0rc1", "1.0", "1.0.post1", "1.0.1", "1!0.1"]
    assert sorted(ordered, key=Version) == ordered
    assert Version("1.0") == Version("1.0.0")
    assert hash(Version("1.0")) == hash(Version("1.0.0"))


def test_local_versions_sort_after_their_public_version():
    assert Version("1.0") < Version("1.0+local")
    assert Version("1.0+abc.5") < Version("1.0+abc.10")


def test_invalid_versions_are_refused():
    for bad in ["", "1.0.0-", "french toast", "1.0+"]:
        with pytest.raises(InvalidVersion):
            Version(bad)


def test_cmpkey_drops_trailing_zeros_and_orders_dev_before_pre():
    assert _cmpkey(0, (1, 0, 0), None, None, None, None) == _cmpkey(0, (1,), None, None, None, None)
    assert _cmpkey(0, (1,), None, None, 1, None) < _cmpkey(0, (1,), ("a", 1), None, None, None)
