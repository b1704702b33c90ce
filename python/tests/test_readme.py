"""The README's Python examples run as written (python/tests/readme_examples.py); the Spark
and Dask ones in the engines step (python/tests_engines/test_readme_engines.py)."""

from __future__ import annotations

import pytest

import readme_examples

PLAIN = [e for e in readme_examples.examples() if e.engine is None]


def test_every_python_block_is_run_somewhere():
    found = readme_examples.examples()
    assert {e.engine for e in found} == {None, "spark", "dask"}, [e.line for e in found]
    assert len(PLAIN) >= 2


@pytest.mark.parametrize("example", PLAIN, ids=lambda e: f"README.md:{e.line}")
def test_readme_python_example_runs(example, tmp_path):
    readme_examples.run(example, tmp_path, timeout=300)
    assert list(tmp_path.glob("*.bkf")) or list(tmp_path.glob("*.bin")), "the example saves a file"
