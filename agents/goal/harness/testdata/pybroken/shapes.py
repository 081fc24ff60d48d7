"""A sample module with a syntax error: its tests cannot be collected."""


def area(w, h)
    return w * h
