import pytest

import calc


@pytest.fixture
def table():
    raise RuntimeError("the table fixture cannot load table.csv")


def test_add():
    assert calc.add(1, 2) == 3


def test_sub():
    result = calc.sub(5, 3)
    assert result == 2


def test_lookup(table):
    assert table["a"] == 1


@pytest.mark.skip(reason="mul is not written yet")
def test_mul():
    pass
