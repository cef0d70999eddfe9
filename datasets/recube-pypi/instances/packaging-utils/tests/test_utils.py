"""Hidden tests of packaging/utils.py (packaging 24.2).

External tests exercise the file the way the rest of packaging uses it: markers compare
extras by canonical name, specifiers compare and hash by canonical version, metadata
validates names. Internal tests call its own functions and exceptions directly.
"""

import pytest

from packaging.markers import Marker
from packaging.specifiers import Specifier
from packaging.tags import Tag
from packaging.utils import (
    InvalidName,
    InvalidSdistFilename,
    InvalidWheelFilename,
    canonicalize_name,
    canonicalize_version,
    is_normalized_name,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import Version


# External: through markers.py, which canonicalises extras.
def test_marker_extra_matches_any_spelling_of_the_name():
    assert Marker('extra == "Foo_Bar"').evaluate({"extra": "foo-bar"})
    assert Marker('extra == "foo.bar"').evaluate({"extra": "FOO__BAR"})


def test_marker_extra_still_tells_different_names_apart():
    assert not Marker('extra == "foo-bar"').evaluate({"extra": "foobar"})


# External: through specifiers.py, which compares and hashes canonical versions.
def test_specifiers_equal_when_versions_differ_only_by_trailing_zeros():
    assert Specifier("==1.0.0") == Specifier("==1.0")
    assert hash(Specifier("==1.0.0")) == hash(Specifier("==1.0"))


def test_specifiers_with_different_versions_stay_different():
    assert Specifier("==1.0.1") != Specifier("==1.0")
    assert Specifier("~=2.0") != Specifier("==2.0")


# Internal: the file's own functions.
def test_canonicalize_name():
    assert canonicalize_name("Django") == "django"
    assert canonicalize_name("Foo.Bar_baz") == "foo-bar-baz"
    assert canonicalize_name("a---b__c..d") == "a-b-c-d"


def test_canonicalize_name_validates_when_asked():
    assert canonicalize_name("_bad_", validate=False) == "-bad-"
    with pytest.raises(InvalidName):
        canonicalize_name("_bad_", validate=True)


def test_is_normalized_name():
    assert is_normalized_name("foo-bar")
    assert not is_normalized_name("Foo-bar")
    assert not is_normalized_name("foo--bar")


def test_canonicalize_version_strips_trailing_zeros_unless_told():
    assert canonicalize_version("1.0.0") == "1"
    assert canonicalize_version("1.0.0", strip_trailing_zero=False) == "1.0.0"
    assert canonicalize_version(Version("2.0rc1")) == "2rc1"
    assert canonicalize_version("not a version") == "not a version"


def test_parse_wheel_filename():
    name, version, build, tags = parse_wheel_filename("Foo_Bar-1.0-1abc-py3-none-any.whl")
    assert (name, version, build) == ("foo-bar", Version("1.0"), (1, "abc"))
    assert tags == frozenset({Tag("py3", "none", "any")})


def test_parse_wheel_filename_refuses_bad_names():
    for bad in ["foo-1.0.tar.gz", "foo-1.0-py3.whl", "foo__bar-1.0-py3-none-any.whl"]:
        with pytest.raises(InvalidWheelFilename):
            parse_wheel_filename(bad)


def test_parse_sdist_filename():
    assert parse_sdist_filename("Foo.Bar-2.1.tar.gz") == ("foo-bar", Version("2.1"))
    assert parse_sdist_filename("foo-1.0.zip") == ("foo", Version("1.0"))
    with pytest.raises(InvalidSdistFilename):
        parse_sdist_filename("foo-1.0.whl")
