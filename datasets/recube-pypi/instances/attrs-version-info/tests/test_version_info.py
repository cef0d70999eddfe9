"""Hidden tests of attr/_version_info.py (attrs 24.2.0).

External tests go through the caller in attrs: the module `__getattr__` of
attr/__init__.py (also behind `attrs.__version_info__`) builds `__version_info__` with
`VersionInfo._from_version_string` from the installed distribution's metadata, which
the tests replace with a fixed version. Internal tests use `VersionInfo` directly.
"""

import importlib.metadata

import pytest

import attr
import attrs
from attr._version_info import VersionInfo


@pytest.fixture
def metadata_version(monkeypatch):
    def set_version(version):
        monkeypatch.setattr(importlib.metadata, "metadata", lambda name: {"version": version})

    return set_version


# External: through attr.__version_info__ and attrs.__version_info__.
def test_attr_version_info_parses_the_distribution_version(metadata_version):
    metadata_version("24.2.0")
    info = attr.__version_info__
    assert (info.year, info.minor, info.micro, info.releaselevel) == (24, 2, 0, "final")


def test_attrs_version_info_compares_with_tuples(metadata_version):
    metadata_version("24.2.0")
    assert attrs.__version_info__ >= (24, 1)
    assert attrs.__version_info__ < (25,)
    assert attrs.__version_info__ == (24, 2)


def test_version_info_keeps_a_dev_release_level(metadata_version):
    metadata_version("25.1.0.dev0")
    info = attr.__version_info__
    assert info.releaselevel == "dev0"
    assert info < (25, 1, 0, "final")


def test_version_info_is_a_frozen_version_object(metadata_version):
    metadata_version("24.2.0")
    info = attr.__version_info__
    assert isinstance(info, VersionInfo)
    with pytest.raises(attr.exceptions.FrozenInstanceError):
        info.year = 1


# Internal: VersionInfo itself.
def test_from_version_string_adds_final_to_three_parts():
    assert VersionInfo._from_version_string("19.2.0") == VersionInfo(19, 2, 0, "final")


def test_from_version_string_reads_four_parts():
    info = VersionInfo._from_version_string("21.3.1.post1")
    assert (info.year, info.minor, info.micro, info.releaselevel) == (21, 3, 1, "post1")


def test_equality_with_tuples_of_one_to_four_items():
    vi = VersionInfo(19, 2, 0, "final")
    assert vi == (19,)
    assert vi == (19, 2)
    assert vi == (19, 2, 0, "final")
    assert not vi == (19, 2, 1)


def test_ordering_against_tuples_follows_the_docstring():
    assert VersionInfo(19, 1, 0, "final") <= (19, 2)
    assert VersionInfo(19, 1, 0, "final") < (19, 1, 1)
    vi = VersionInfo(19, 2, 0, "final")
    assert not vi < (19, 1, 1)
    assert not vi < (19,)
    assert vi > (19, 1)


def test_ordering_between_version_infos():
    assert VersionInfo(19, 1, 0, "final") < VersionInfo(19, 2, 0, "final")
    assert VersionInfo(20, 1, 0, "dev0") < VersionInfo(20, 1, 0, "final")
    assert VersionInfo(20, 1, 0, "final") == VersionInfo(20, 1, 0, "final")


def test_comparing_with_a_non_tuple_is_not_supported():
    vi = VersionInfo(19, 2, 0, "final")
    assert vi != "19.2.0"
    assert vi.__eq__([19, 2]) is NotImplemented
    with pytest.raises(TypeError):
        vi < "19.2.0"


def test_comparing_with_an_empty_or_too_long_tuple_is_not_supported():
    vi = VersionInfo(19, 2, 0, "final")
    assert vi.__eq__(()) is NotImplemented
    assert vi.__lt__((19, 2, 0, "final", 1)) is NotImplemented
    with pytest.raises(TypeError):
        vi < (19, 2, 0, "final", 1)
