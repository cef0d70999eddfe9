"""Hidden tests of packaging/requirements.py (packaging 24.2).

External tests go through metadata, which parses every Requires-Dist entry into a
Requirement and reports a bad one as invalid metadata. Internal tests call Requirement
directly.
"""

import pytest

from packaging.markers import Marker
from packaging.metadata import ExceptionGroup, InvalidMetadata, Metadata
from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import SpecifierSet


def raw(*requires_dist):
    return {"metadata_version": "2.1", "name": "pkg", "version": "1.0", "requires_dist": list(requires_dist)}


# External: through metadata.py.
def test_metadata_from_raw_parses_requires_dist_into_requirements():
    metadata = Metadata.from_raw(raw("Foo[Bar,baz] >= 1.0, < 2", 'qux; python_version < "3.9"'))
    first, second = metadata.requires_dist
    assert isinstance(first, Requirement)
    assert (first.name, first.extras, first.specifier) == ("Foo", {"Bar", "baz"}, SpecifierSet(">=1.0,<2"))
    assert second.name == "qux"
    assert str(second.marker) == 'python_version < "3.9"'


def test_metadata_from_email_parses_requires_dist_headers():
    text = (
        "Metadata-Version: 2.1\n"
        "Name: pkg\n"
        "Version: 1.0\n"
        "Requires-Dist: attrs>=20\n"
        "Requires-Dist: click (>=7.0)\n"
        "\n"
    )
    metadata = Metadata.from_email(text)
    assert [str(req) for req in metadata.requires_dist] == ["attrs>=20", "click>=7.0"]


def test_metadata_with_a_direct_url_requirement():
    metadata = Metadata.from_raw(raw("pkg @ https://example.org/pkg-1.0.tar.gz"))
    (req,) = metadata.requires_dist
    assert req.url == "https://example.org/pkg-1.0.tar.gz"
    assert req.specifier == SpecifierSet()


def test_metadata_reports_an_invalid_requirement():
    with pytest.raises(ExceptionGroup) as excinfo:
        Metadata.from_raw(raw("good>=1", "bad>=>1"))
    (error,) = excinfo.value.exceptions
    assert isinstance(error, InvalidMetadata)
    assert error.field == "requires-dist"
    assert isinstance(error.__cause__, InvalidRequirement)


def test_metadata_without_validation_fails_on_access():
    metadata = Metadata.from_raw(raw("bad["), validate=False)
    with pytest.raises(InvalidMetadata) as excinfo:
        metadata.requires_dist
    assert isinstance(excinfo.value.__cause__, InvalidRequirement)


# Internal: Requirement, directly.
def test_requirement_parts():
    req = Requirement('Name.Sub[one,two]>=1.0,!=1.5; os_name == "posix"')
    assert req.name == "Name.Sub"
    assert req.extras == {"one", "two"}
    assert req.specifier == SpecifierSet(">=1.0,!=1.5")
    assert req.url is None
    assert req.marker == Marker('os_name == "posix"')


def test_requirement_without_optional_parts():
    req = Requirement("simple")
    assert req.extras == set()
    assert str(req.specifier) == ""
    assert req.url is None
    assert req.marker is None
    assert str(req) == "simple"


def test_requirement_string_form_sorts_extras_and_drops_spaces():
    req = Requirement("pkg [ z , a ] ( >= 2.0 , < 3 )")
    assert str(req) == "pkg[a,z]<3,>=2.0"
    assert repr(req) == "<Requirement('pkg[a,z]<3,>=2.0')>"


def test_requirement_string_form_with_url_and_marker():
    req = Requirement('pkg[x] @ https://example.org/p.whl ; sys_platform == "linux"')
    assert req.url == "https://example.org/p.whl"
    assert str(req) == 'pkg[x]@ https://example.org/p.whl ; sys_platform == "linux"'


def test_requirement_equality_and_hash_use_the_canonical_name():
    first = Requirement("Foo_Bar>=1")
    second = Requirement("foo-bar >= 1")
    assert first == second
    assert hash(first) == hash(second)
    assert first != Requirement("foo-bar>=2")
    assert first != Requirement("foo-bar[x]>=1")
    assert first != "Foo_Bar>=1"


def test_requirement_marker_extra_is_normalised():
    req = Requirement('pkg; extra == "Test_Suite"')
    assert str(req) == 'pkg; extra == "test-suite"'


def test_invalid_requirements_raise():
    for text in ["", "pkg>=", "pkg[", "pkg; os_name", "-pkg", "pkg @ "]:
        with pytest.raises(InvalidRequirement):
            Requirement(text)
