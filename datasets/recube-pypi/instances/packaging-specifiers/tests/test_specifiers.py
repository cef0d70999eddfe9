"""Hidden tests of packaging/specifiers.py (packaging 24.2).

External tests go through markers, which compare versions with a Specifier; through
requirements, which hold their version constraints as a SpecifierSet; through the
tokenizer, whose version-specifier rule is built from Specifier's regular expressions; and
through metadata, which parses Requires-Python as a SpecifierSet. Internal tests call
Specifier and SpecifierSet directly.
"""

import pytest

from packaging.markers import Marker
from packaging.metadata import Metadata
from packaging.requirements import InvalidRequirement, Requirement
from packaging.specifiers import InvalidSpecifier, Specifier, SpecifierSet
from packaging.version import Version


# External: through markers.py, requirements.py, _tokenizer.py and metadata.py.
def test_marker_compares_python_version_as_a_version():
    marker = Marker('python_version >= "3.10"')
    assert marker.evaluate({"python_version": "3.10"})
    assert marker.evaluate({"python_version": "3.11"})
    assert not marker.evaluate({"python_version": "3.9"})


def test_marker_compatible_release_operator():
    marker = Marker('python_full_version ~= "3.8.1"')
    assert marker.evaluate({"python_full_version": "3.8.7"})
    assert not marker.evaluate({"python_full_version": "3.9.0"})


def test_requirement_specifier_is_a_specifier_set():
    req = Requirement("name[extra]>=1.0,!=1.3.*,<2")
    assert isinstance(req.specifier, SpecifierSet)
    assert str(req.specifier) == "!=1.3.*,<2,>=1.0"
    assert req.specifier.contains("1.2")
    assert not req.specifier.contains("1.3.4")
    assert str(req) == "name[extra]!=1.3.*,<2,>=1.0"


def test_requirement_refuses_a_malformed_version_specifier():
    with pytest.raises(InvalidRequirement):
        Requirement("name>=1.0.*")
    with pytest.raises(InvalidRequirement):
        Requirement("name~=1")


def test_metadata_parses_requires_python():
    metadata = Metadata.from_raw({"metadata_version": "2.1", "name": "pkg", "version": "1.0", "requires_python": ">=3.8, <4"})
    assert metadata.requires_python == SpecifierSet(">=3.8,<4")
    assert Version("3.12") in metadata.requires_python


# Internal: Specifier and SpecifierSet, directly.
def test_specifier_parts_and_normal_form():
    spec = Specifier(" >= 1.0 ")
    assert spec.operator == ">="
    assert spec.version == "1.0"
    assert str(spec) == ">=1.0"
    assert repr(spec) == "<Specifier('>=1.0')>"
    with pytest.raises(InvalidSpecifier):
        Specifier("=>1.0")


def test_specifier_prefix_match_and_arbitrary_equality():
    assert Specifier("==1.4.*").contains("1.4.5")
    assert not Specifier("==1.4.*").contains("1.5")
    assert Specifier("!=1.4.*").contains("1.5")
    assert Specifier("===1.0").contains("1.0")
    assert not Specifier("===1.0").contains("1.0.0")


def test_specifier_excludes_prereleases_unless_allowed():
    assert not Specifier(">=1.0").contains("2.0a1")
    assert Specifier(">=1.0").contains("2.0a1", prereleases=True)
    assert Specifier(">=1.0a1").prereleases is True
    assert Specifier(">=1.0").prereleases is False


def test_exclusive_ordered_comparison_skips_prereleases_and_local_versions():
    assert not Specifier(">1.7").contains("1.7+local")
    assert Specifier(">1.7").contains("1.7.1")
    assert not Specifier("<1.7").contains("1.7.0rc1", prereleases=True)
    assert not Specifier(">1.7").contains("1.7.post1")


def test_specifier_set_joins_and_combines():
    combined = SpecifierSet(">=1.0") & "<2"
    assert combined == SpecifierSet("<2,>=1.0")
    assert len(combined) == 2
    assert sorted(str(s) for s in combined) == ["<2", ">=1.0"]
    assert SpecifierSet("").contains("5.0")
    assert str(SpecifierSet("<2, >=1.0")) == "<2,>=1.0"


def test_filter_keeps_order_and_falls_back_to_prereleases():
    specs = SpecifierSet(">=1.0")
    assert list(specs.filter(["0.9", "1.2", "1.0", "2.0b1"])) == ["1.2", "1.0"]
    assert list(Specifier(">=1.0").filter(["1.5a1", "0.1"])) == ["1.5a1"]
    assert list(SpecifierSet(">=1.0", prereleases=True).filter(["2.0b1", "1.1"])) == ["2.0b1", "1.1"]


def test_specifier_hash_and_equality_ignore_spelling():
    assert Specifier("==1.0") == "==1.0.0"
    assert Specifier("~=2.2") != Specifier("~=2.2.0")
    assert len({SpecifierSet(">=1,<2"), SpecifierSet("<2,>=1")}) == 1
