"""Hidden tests of attr/_funcs.py (attrs 24.2.0).

External tests go through the callers in attrs: `attrs.asdict`/`attrs.astuple` of
_next_gen.py (which keep collection types), and VersionInfo of _version_info.py, which
compares through `astuple`. Internal tests call the functions of attr/_funcs.py directly.
"""

import collections
import typing

import pytest

import attr
import attrs
from attr import _funcs
from attr._version_info import VersionInfo
from attr.exceptions import AttrsAttributeNotFoundError, NotAnAttrsClassError


@attrs.define
class Point:
    x: int
    y: int = 0


@attrs.define
class Shape:
    name: str
    points: list = attrs.field(factory=list)
    tags: tuple = ()


# External: the next-generation API and VersionInfo.
def test_attrs_asdict_recurses_and_keeps_collection_types():
    shape = Shape("tri", [Point(1, 2)], ("a",))
    assert attrs.asdict(shape) == {"name": "tri", "points": [{"x": 1, "y": 2}], "tags": ("a",)}


def test_attrs_astuple_recurses():
    assert attrs.astuple(Shape("s", [Point(3)])) == ("s", [(3, 0)], ())


def test_version_info_compares_with_tuples():
    info = VersionInfo(24, 2, 0, "final")
    assert info == (24, 2, 0, "final")
    assert info > (23, 1)
    assert info < (25,)


def test_attrs_evolve_copies_with_changes():
    p = Point(1, 2)
    q = attrs.evolve(p, y=5)
    assert (q.x, q.y) == (1, 5) and p.y == 2


# Internal: the functions themselves.
def test_asdict_filter_and_dict_factory():
    d = _funcs.asdict(
        Point(1, 2),
        filter=lambda a, v: a.name != "y",
        dict_factory=collections.OrderedDict,
    )
    assert d == collections.OrderedDict([("x", 1)])
    assert type(d) is collections.OrderedDict


def test_asdict_value_serializer_sees_every_value():
    seen = []

    def serializer(inst, field, value):
        seen.append(field.name if field else None)
        return value

    _funcs.asdict(Shape("s", [Point(1)]), value_serializer=serializer)
    assert "name" in seen and "x" in seen


def test_asdict_without_retaining_turns_tuples_into_lists():
    assert _funcs.asdict(Shape("s", tags=("a", "b")))["tags"] == ["a", "b"]
    assert _funcs.asdict(Shape("s", tags=("a",)), retain_collection_types=True)["tags"] == ("a",)


def test_astuple_without_recursion():
    inner = Point(1)
    assert _funcs.astuple(Shape("s", [inner]), recurse=False) == ("s", [inner], ())


def test_has_tells_attrs_classes():
    assert _funcs.has(Point)
    assert _funcs.has(Shape)
    assert not _funcs.has(object)
    assert not _funcs.has(int)


def test_evolve_refuses_unknown_fields_and_non_attrs_instances():
    with pytest.raises(TypeError):
        _funcs.evolve(Point(1), z=3)
    with pytest.raises(NotAnAttrsClassError):
        _funcs.evolve(object(), x=1)


def test_assoc_copies_with_changes_and_refuses_unknown_fields():
    q = _funcs.assoc(Point(1, 2), y=9)
    assert (q.x, q.y) == (1, 9)
    with pytest.raises(AttrsAttributeNotFoundError):
        _funcs.assoc(Point(1), z=3)


def test_resolve_types_resolves_string_annotations():
    @attr.s(auto_attribs=True)
    class Later:
        other: "typing.List[int]"

    _funcs.resolve_types(Later, globalns={"typing": typing})
    assert attr.fields(Later).other.type == typing.List[int]
