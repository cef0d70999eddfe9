"""Hidden tests of attr/_compat.py (attrs 24.2.0).

External tests go through the callers in attrs: converters.py and _make.py read
converter annotations with `_AnnotationExtractor`, _make.py collects a class's own
annotations with `_get_annotations` and guards recursive reprs with `repr_context`, and
`attrs.has` of _funcs.py recognises generic aliases with `get_generic_base`. Internal
tests call the helpers of attr/_compat.py directly.
"""

import typing

import attr
import attrs
from attr import _compat


def to_int(value: str) -> int:
    return int(value)


def untyped(value):
    return value


T = typing.TypeVar("T")


@attrs.define
class Box(typing.Generic[T]):
    item: T


# External: through converters.py, _make.py and _funcs.py.
def test_optional_converter_takes_annotations_of_the_wrapped_converter():
    conv = attr.converters.optional(to_int)
    assert conv.__annotations__ == {"val": typing.Optional[str], "return": typing.Optional[int]}


def test_init_parameter_takes_the_converter_argument_type():
    @attr.s
    class C:
        x = attr.ib(converter=to_int)

    assert C.__init__.__annotations__["x"] is str
    assert C("7").x == 7


def test_auto_attribs_collects_only_the_class_own_annotations():
    @attrs.define
    class Base:
        a: int

    @attrs.define
    class Child(Base):
        b: str = "b"

    assert [f.name for f in attrs.fields(Child)] == ["a", "b"]
    assert Child(1).b == "b"


def test_repr_of_a_self_containing_instance_stops_recursing():
    @attrs.define
    class Node:
        children: list

    n = Node([])
    n.children.append(n)
    assert repr(n) == "Node(children=[...])"


def test_has_recognises_a_generic_alias():
    assert attrs.has(Box[int])
    assert not attrs.has(typing.List[int])


# Internal: the helpers themselves.
def test_extractor_reads_the_first_parameter_type():
    assert _compat._AnnotationExtractor(to_int).get_first_param_type() is str


def test_extractor_reads_the_return_type():
    assert _compat._AnnotationExtractor(to_int).get_return_type() is int


def test_extractor_returns_none_without_annotations():
    ex = _compat._AnnotationExtractor(untyped)
    assert ex.get_first_param_type() is None
    assert ex.get_return_type() is None


def test_extractor_of_a_non_callable_has_no_signature():
    ex = _compat._AnnotationExtractor(42)
    assert ex.sig is None
    assert ex.get_first_param_type() is None
    assert ex.get_return_type() is None


def test_extractor_of_a_function_without_parameters():
    def make() -> str:
        return ""

    ex = _compat._AnnotationExtractor(make)
    assert ex.get_first_param_type() is None
    assert ex.get_return_type() is str


def test_get_generic_base_returns_the_origin_class():
    assert _compat.get_generic_base(Box[int]) is Box
    assert _compat.get_generic_base(Box) is None
    assert _compat.get_generic_base(int) is None


def test_get_annotations_reads_only_the_class_dict():
    class Base:
        a: int

    class Child(Base):
        b: str

    class Plain:
        pass

    assert _compat._get_annotations(Child) == {"b": str}
    assert _compat._get_annotations(Plain) == {}
