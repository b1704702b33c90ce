"""Real clusters on this machine for the engine tests, loopback only.

spark: a Spark ``local-cluster[2,1,1024]`` master (two executor JVMs with
one core and 1024 MiB each, their own Python workers), the driver bound to
127.0.0.1. dask_client: a distributed.LocalCluster with two worker
processes (not threads), one thread each, behind nannies (which restart a
killed worker). Both are started once per test module that imports them.

The tests fail, never skip, when pyspark or distributed is missing: the
engines step must not pass without its engines.
"""

from __future__ import annotations

import os
import signal
import sys
import time

import psutil
import pytest


def _spark_session():
    os.environ["SPARK_LOCAL_IP"] = "127.0.0.1"
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    return (
        SparkSession.builder.master("local-cluster[2,1,1024]")
        .appName("bloomkit-engines-tests")
        .config("spark.driver.bindAddress", "127.0.0.1")
        .config("spark.driver.host", "127.0.0.1")
        .config("spark.ui.enabled", "false")
        .config("spark.executor.memory", "512m")
        .config("spark.driver.memory", "1g")
        .config("spark.sql.shuffle.partitions", "4")
        .config("spark.executorEnv.PYSPARK_PYTHON", sys.executable)
        .config("spark.executorEnv.SPARK_LOCAL_IP", "127.0.0.1")
        # A task lost with a killed executor is retried; bad input fails the same way
        # every attempt, so 3 attempts (not the default 4) keep the failure tests short.
        .config("spark.task.maxFailures", "3")
        .config("spark.sql.execution.arrow.maxRecordsPerBatch", "4096")
        .getOrCreate()
    )


@pytest.fixture(scope="module")
def spark():
    session = _spark_session()
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def spark_executor_pids(session) -> list[int]:
    """PIDs of the executor JVMs (children of the driver's JVM)."""
    driver = psutil.Process(session.sparkContext._gateway.proc.pid)
    pids = []
    for p in driver.children(recursive=True):
        try:
            if "CoarseGrainedExecutorBackend" in " ".join(p.cmdline()):
                pids.append(p.pid)
        except psutil.NoSuchProcess:
            pass
    return pids


def kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


@pytest.fixture(scope="module")
def dask_client():
    from distributed import Client, LocalCluster

    cluster = LocalCluster(
        n_workers=2,
        threads_per_worker=1,
        processes=True,
        host="127.0.0.1",
        dashboard_address=None,
        memory_limit="1GiB",
    )
    client = Client(cluster)
    yield client
    client.close()
    cluster.close()


def dask_worker_pids(client) -> list[int]:
    """PIDs of the worker processes (not their nannies)."""
    return list(client.run(os.getpid).values())


def wait_until(predicate, timeout: float, what: str, interval: float = 0.05):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")
