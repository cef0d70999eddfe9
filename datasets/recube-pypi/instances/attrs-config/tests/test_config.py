"""Hidden tests of attr/_config.py (attrs 24.2.0).

External tests go through the callers in attrs: `attr.validators.set_disabled`,
`get_disabled` and `disabled`, which switch validators off and on through
`set_run_validators` and read the switch through `get_run_validators`. Internal tests
call the two functions of attr/_config.py directly.
"""

import pytest

import attr
import attrs
from attr import _config


@pytest.fixture(autouse=True)
def _restore_the_switch():
    yield
    _config._run_validators = True


@attrs.define
class Positive:
    x: int = attrs.field(validator=attrs.validators.instance_of(int))


# External: through attr.validators.
def test_set_disabled_skips_validators_on_init():
    attrs.validators.set_disabled(True)
    assert Positive("not an int").x == "not an int"


def test_set_disabled_false_runs_validators_again():
    attrs.validators.set_disabled(True)
    attrs.validators.set_disabled(False)
    with pytest.raises(TypeError):
        Positive("not an int")


def test_get_disabled_reports_the_switch():
    assert attrs.validators.get_disabled() is False
    attrs.validators.set_disabled(True)
    assert attrs.validators.get_disabled() is True


def test_disabled_context_manager_switches_off_then_on():
    with attrs.validators.disabled():
        assert Positive("x").x == "x"
        assert attrs.validators.get_disabled() is True
    assert attrs.validators.get_disabled() is False
    with pytest.raises(TypeError):
        Positive("x")


def test_set_disabled_skips_validate_and_assignment_checks():
    p = Positive(1)
    attrs.validators.set_disabled(True)
    p.x = "no check on assignment"
    attr.validate(p)
    assert p.x == "no check on assignment"


# Internal: set_run_validators and get_run_validators.
def test_get_run_validators_is_true_by_default():
    assert _config.get_run_validators() is True


def test_set_run_validators_false_is_read_back():
    _config.set_run_validators(False)
    assert _config.get_run_validators() is False
    _config.set_run_validators(True)
    assert _config.get_run_validators() is True


def test_set_run_validators_updates_the_module_flag():
    _config.set_run_validators(False)
    assert _config._run_validators is False


def test_set_run_validators_refuses_an_int():
    with pytest.raises(TypeError, match="'run' must be bool."):
        _config.set_run_validators(1)


def test_set_run_validators_refuses_none_and_keeps_the_setting():
    with pytest.raises(TypeError):
        _config.set_run_validators(None)
    assert _config.get_run_validators() is True


def test_set_run_validators_false_skips_validators_on_init():
    _config.set_run_validators(False)
    assert Positive("unchecked").x == "unchecked"


def test_get_run_validators_reads_the_module_flag():
    _config._run_validators = False
    assert _config.get_run_validators() is False
