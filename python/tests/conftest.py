"""pytest setup: each test starts with a fresh default graph and no default session.
The tests import the package from PYTHONPATH (the build tree's python/ under ctest)."""
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import tfc.compat.v1 as tf  # noqa: E402


@pytest.fixture(autouse=True)
def fresh_graph():
    tf.reset_default_graph()
    yield
    tf.reset_default_graph()
