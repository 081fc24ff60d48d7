import shapes


def test_area():
    assert shapes.area(2, 3) == 6
