"""The JVM path of bloomkit.spark: bloomkit's jar (jvm/, Java) in a Spark session.

bloomkit.spark.build and semi_join_filter run in the executors' JVMs when the jar can be
loaded: no row leaves the JVM for a Python worker. The jar ships inside this package
(``bloomkit/jars/bloomkit-jvm.jar``, copied there by ``./bloomkit.sh`` before the package is
built; ``BLOOMKIT_JVM_JAR`` names another). :func:`ensure` puts it on a running session's
classpath itself: ``SparkContext.addJar`` for the executors, and the driver's class loader
(the ``MutableURLClassLoader`` that spark-submit, and so PySpark, runs the driver in) for the
driver. A session started with ``spark.jars`` naming the jar needs neither. When neither works
(no jar, a loader that cannot take it) :func:`ensure` returns False and bloomkit.spark takes
the Python path, which gives the same bytes.

The JVM and Python paths size and hash identically: the capacity comes from the same KMV
sketch (computed in the JVM, estimated here by _engines), the block count from this package's
own sizing, and the JVM writes the file bytes the C++ library writes.
"""

from __future__ import annotations

import os
import threading

__all__ = ["JAR_NAME", "jar_path", "ensure", "available"]

JAR_NAME = "bloomkit-jvm.jar"
_ENTRY = "bloomkit.spark.BloomkitSpark"

_lock = threading.Lock()
_loaded: dict = {}  # (application id, start time) of a SparkContext -> bool


def jar_path() -> str | None:
    """The jar this package uses: ``$BLOOMKIT_JVM_JAR``, else the one shipped in
    ``bloomkit/jars/``; None when neither exists."""
    env = os.environ.get("BLOOMKIT_JVM_JAR")
    if env:
        return env if os.path.isfile(env) else None
    shipped = os.path.join(os.path.dirname(os.path.abspath(__file__)), "jars", JAR_NAME)
    return shipped if os.path.isfile(shipped) else None


def _class_visible(jvm) -> bool:
    try:
        loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()
        jvm.java.lang.Class.forName(_ENTRY, True, loader)
        return True
    except Exception:
        return False


def ensure(spark) -> bool:
    """Makes bloomkit's JVM classes usable in ``spark`` (a SparkSession) on the driver and the
    executors, once per SparkContext. True when they are; False (nothing changed but an
    addJar) when the jar is missing or the driver's class loader cannot take it."""
    sc = spark.sparkContext
    # Not id(sc._jsc): a stopped context's handle is freed and a new one can get its id, and
    # the new context's executors have not been given the jar (addJar is per context).
    key = (sc.applicationId, sc.startTime)
    with _lock:
        if key in _loaded:
            return _loaded[key]
        ok = _load(spark)
        _loaded[key] = ok
        return ok


def _load(spark) -> bool:
    jvm = spark._jvm
    jar = jar_path()
    if _class_visible(jvm):
        # spark.jars (or --jars) put it there, or an earlier context of this same driver JVM
        # did (its class loader outlives the context). Only the first ships it to the
        # executors: a new context's executors need addJar again.
        named = spark.sparkContext.getConf().get("spark.jars", "")
        if jar is not None and "bloomkit" not in named:
            spark.sparkContext._jsc.addJar(jar)
        return True
    if jar is None:
        return False
    try:
        url = jvm.java.io.File(jar).toURI().toURL()
        loader = jvm.java.lang.Thread.currentThread().getContextClassLoader()
        if loader.getClass().getName() != "org.apache.spark.util.MutableURLClassLoader":
            return False
        loader.addURL(url)
        if not _class_visible(jvm):
            return False
        spark.sparkContext._jsc.addJar(jar)
        return True
    except Exception:
        return False


def available(spark) -> bool:
    """Whether the JVM path is used for ``spark``: :func:`ensure`, unless the environment sets
    ``BLOOMKIT_SPARK_ENGINE=python``."""
    if os.environ.get("BLOOMKIT_SPARK_ENGINE", "").lower() == "python":
        return False
    return ensure(spark)


def entry(spark):
    """The py4j handle of bloomkit.spark.BloomkitSpark (after ensure)."""
    return getattr(spark._jvm.bloomkit.spark, "BloomkitSpark")


def functions(spark):
    """The py4j handle of bloomkit.spark.BloomkitFunctions (after ensure)."""
    return getattr(spark._jvm.bloomkit.spark, "BloomkitFunctions")
