"""The JVM path in a second Spark session of the same driver: the driver's class loader still
holds bloomkit's classes from the first, but the new session's executors were never given the
jar. bloomkit._jvm must ship it again, or every task fails to deserialize its closure (the
engines CI run of 2026-12-04 failed exactly so, when test_spark_jvm.py followed test_spark.py)."""

from __future__ import annotations

import numpy as np

import bloomkit
import bloomkit.spark as bks
from bloomkit import _jvm

from engines_fixtures import _spark_session


def _build_both(session):
    df = session.createDataFrame([(int(v),) for v in np.arange(-500, 1500, 3)], "b bigint").repartition(3)
    jvm_built = bks.build(df, "b", fpr=0.01, capacity=1000, engine="jvm")
    python_built = bks.build(df, "b", fpr=0.01, capacity=1000, engine="python")
    return jvm_built.to_bytes(), python_built.to_bytes()


def test_second_session_gets_the_jar_again():
    first = _spark_session()
    first.sparkContext.setLogLevel("ERROR")
    try:
        assert _jvm.ensure(first)
        a, b = _build_both(first)
        assert a == b
    finally:
        first.stop()
    second = _spark_session()
    second.sparkContext.setLogLevel("ERROR")
    try:
        assert _jvm.ensure(second)
        a, b = _build_both(second)
        assert a == b
        f = bloomkit.from_bytes(a)
        assert all(int(v) in f for v in np.arange(-500, 1500, 3))
    finally:
        second.stop()
