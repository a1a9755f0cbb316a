"""The examples in the docstrings run and give what they show."""

import doctest

import transpo_c4
import transpo_c4._native


def test_docstring_examples():
    for module in [transpo_c4, transpo_c4._native]:
        result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
        assert result.failed == 0, f"{module.__name__}: {result}"
    # The native module's examples are found (its classes and functions carry them).
    assert doctest.testmod(transpo_c4._native).attempted > 0
