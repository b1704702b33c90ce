"""Fixtures for the extension's pytest suite (postgres/tests).

The server is the throwaway cluster postgres/run_tests.sh starts (PGHOST is
its socket folder, PGPORT, PGUSER); BLOOMKIT_CLI names the `bloomkit` binary
built from the same tree. Each test gets a fresh database with the extension,
dropped afterwards.
"""
import os
import pathlib
import subprocess
import uuid

import psycopg
import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def cli() -> str:
    path = os.environ.get("BLOOMKIT_CLI", str(ROOT / "build" / "release" / "bloomkit"))
    assert os.access(path, os.X_OK), f"the bloomkit CLI is not built at {path} (set BLOOMKIT_CLI)"
    return path


@pytest.fixture()
def db():
    """A connection to a new database holding the extension (autocommit)."""
    name = "bk_" + uuid.uuid4().hex[:12]
    with psycopg.connect(dbname="postgres", autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    try:
        with psycopg.connect(dbname=name, autocommit=True) as conn:
            conn.execute("CREATE EXTENSION bloomkit")
            yield conn
    finally:
        with psycopg.connect(dbname="postgres", autocommit=True) as admin:
            admin.execute(f'DROP DATABASE "{name}" WITH (FORCE)')


def run_cli(cli: str, *args: str, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([cli, *args], input=stdin, capture_output=True, check=False)
