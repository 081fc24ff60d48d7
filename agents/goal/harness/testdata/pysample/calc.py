"""A sample module whose tests pass, fail, error and skip."""


def add(a, b):
    return a + b


def sub(a, b):
    return a + b
