"""README's Spark and Dask examples (with the sharded one, which continues the Spark one) run
as scripts, as a user runs them: no PYSPARK_PYTHON set for them, the venv not activated
(python/tests/readme_examples.py has the rules)."""

from __future__ import annotations

import pathlib
import sys

import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tests"))
import readme_examples  # noqa: E402  (python/tests' runner, shared with the python step)

ENGINES = [e for e in readme_examples.examples() if e.engine is not None]


def test_the_engine_examples_are_found():
    assert sorted(e.engine for e in ENGINES) == ["dask", "spark"]
    spark = next(e for e in ENGINES if e.engine == "spark")
    assert "build_sharded" in spark.code and 'master("local[2]")' in spark.code


@pytest.mark.parametrize("example", ENGINES, ids=lambda e: f"{e.engine}-README.md:{e.line}")
def test_readme_engine_example_runs_as_a_script(example, tmp_path):
    readme_examples.run(example, tmp_path, timeout=600)
