"""Shared fixtures: every kind built the same way, the CLI, fixed seeds."""

from __future__ import annotations

import os
import pathlib
import shutil

import numpy as np
import pytest

import bloomkit

ROOT = pathlib.Path(__file__).resolve().parents[2]

#: (class, how to make one for n keys) for every kind; static kinds take the keys.
INCREMENTAL = [
    bloomkit.SplitBlockBloom,
    bloomkit.BlockedBloom,
    bloomkit.StandardBloom,
    bloomkit.CountingBloom,
    bloomkit.ScalableBloom,
]
STATIC = [bloomkit.BinaryFuse, bloomkit.Ribbon]
ALL_KINDS = INCREMENTAL + STATIC


def build(cls, keys, capacity=None, fpr=0.01):
    """A filter of `cls` holding `keys` (any batch input)."""
    if cls in STATIC:
        return cls(keys)
    n = capacity if capacity is not None else max(1, len(keys))
    f = cls(n, fpr)
    f.add_many(keys)
    return f


@pytest.fixture(scope="session")
def cli() -> str:
    """The bloomkit CLI (BLOOMKIT_CLI or build/release/bloomkit). Missing is a failure, not a skip."""
    path = os.environ.get("BLOOMKIT_CLI") or str(ROOT / "build" / "release" / "bloomkit")
    if not (os.path.isfile(path) and os.access(path, os.X_OK)):
        found = shutil.which("bloomkit")
        if found is None:
            pytest.fail(f"the bloomkit CLI is needed for the cross-language tests: {path} is missing "
                        "(cmake --build build/release --target bloomkit_cli, or set BLOOMKIT_CLI)")
        path = found
    return path


@pytest.fixture(scope="session")
def shared() -> pathlib.Path:
    """../shared beside the repository (fixtures), or BLOOMKIT_SHARED."""
    path = pathlib.Path(os.environ.get("BLOOMKIT_SHARED", ROOT.parent / "shared"))
    if not (path / "fixtures" / "parquet").is_dir():
        pytest.fail(f"the shared fixtures are needed: {path}/fixtures/parquet is missing (set BLOOMKIT_SHARED)")
    return path


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20261201)
