"""Hidden tests of attr/_cmp.py (attrs 24.2.0).

External tests use `cmp_using` as attr/__init__.py exports it and as attrs' fields take
it: the class it makes, passed as a field's ``eq``, ``order`` or ``cmp``, decides how
instances of an attrs class compare. Internal tests call `cmp_using` directly and use the
class it returns.
"""

import pytest

import attr
import attrs
from attr import _cmp


def close(a, b):
    return abs(a - b) < 0.01


def lower_eq(a, b):
    return a.lower() == b.lower()


def lower_lt(a, b):
    return a.lower() < b.lower()


# External: as field eq/order/cmp arguments.
def test_field_eq_uses_the_custom_equality():
    @attrs.define
    class Reading:
        value: float = attrs.field(eq=attr.cmp_using(eq=close))

    assert Reading(1.0) == Reading(1.001)
    assert Reading(1.0) != Reading(1.5)


def test_field_order_uses_the_custom_ordering():
    @attrs.define(order=True)
    class Name:
        text: str = attrs.field(order=attr.cmp_using(eq=lower_eq, lt=lower_lt))

    assert Name("apple") < Name("Banana")
    assert Name("Cherry") > Name("banana")
    assert sorted([Name("b"), Name("C"), Name("a")]) == [Name("a"), Name("b"), Name("C")]


def test_field_cmp_sets_equality_and_ordering():
    @attr.s(order=True)
    class Name:
        text = attr.ib(cmp=attr.cmp_using(eq=lower_eq, lt=lower_lt))

    assert Name("ABC") == Name("abc")
    assert Name("abc") <= Name("ABD")


def test_field_eq_with_values_of_different_types_is_unequal():
    @attrs.define
    class Reading:
        value: float = attrs.field(eq=attrs.cmp_using(eq=close))

    assert Reading(1) != Reading(1.0)


def test_field_eq_without_same_type_requirement():
    @attrs.define
    class Reading:
        value: float = attrs.field(eq=attr.cmp_using(eq=close, require_same_type=False))

    assert Reading(1) == Reading(1.001)


# Internal: cmp_using and the class it makes.
def test_class_name_defaults_to_comparable():
    assert _cmp.cmp_using(eq=close).__name__ == "Comparable"
    assert _cmp.cmp_using(eq=close, class_name="Close").__name__ == "Close"


def test_instances_hold_the_value_in_a_slot():
    C = _cmp.cmp_using(eq=close)
    c = C(3)
    assert c.value == 3
    assert C.__slots__ == ["value"]
    with pytest.raises(AttributeError):
        c.other = 1


def test_eq_and_lt_complete_the_ordering():
    C = _cmp.cmp_using(eq=lower_eq, lt=lower_lt)
    assert C("a") < C("B")
    assert C("a") <= C("A")
    assert C("c") > C("B")
    assert C("c") >= C("C")


def test_ordering_without_eq_is_refused():
    with pytest.raises(ValueError, match="eq must be define is order"):
        _cmp.cmp_using(lt=lower_lt)


def test_all_four_orderings_need_no_eq():
    C = _cmp.cmp_using(
        lt=lambda a, b: a < b,
        le=lambda a, b: a <= b,
        gt=lambda a, b: a > b,
        ge=lambda a, b: a >= b,
    )
    assert C(1) < C(2) and C(2) <= C(2) and C(3) > C(2) and C(3) >= C(3)
    assert "__eq__" not in C.__dict__


def test_operators_are_named_and_documented():
    C = _cmp.cmp_using(eq=close, lt=lambda a, b: a < b)
    assert C.__lt__.__name__ == "__lt__"
    assert C.__lt__.__doc__ == "Return a < b.  Computed by attrs."
    assert C.__eq__.__doc__ == "Return a == b.  Computed by attrs."


def test_same_type_requirement_returns_not_implemented():
    C = _cmp.cmp_using(eq=close)
    assert C(1).__eq__(C(1.0)) is NotImplemented
    D = _cmp.cmp_using(eq=close, require_same_type=False)
    assert D(1).__eq__(D(1.0)) is True


def test_not_implemented_from_the_function_is_passed_on():
    C = _cmp.cmp_using(eq=lambda a, b: NotImplemented)
    assert C(1).__eq__(C(1)) is NotImplemented
