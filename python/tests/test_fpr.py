"""Measured false-positive rates against what the filter reports, with bounds from the sample
size. Fixed seeds: the keys, hence the hashes, hence the answers are the same every run."""

from __future__ import annotations

import math

import numpy as np
import pytest

import bloomkit

QUERIES = 2_000_000


def binomial_bound(p: float, n: int, sigmas: float = 5.0) -> float:
    return sigmas * math.sqrt(p * (1 - p) / n)


def absent_keys(n: int, seed: int) -> np.ndarray:
    # Odd numbers never collide with the even keys that were added.
    return np.random.default_rng(seed).integers(0, 2**62, n, dtype=np.int64) * 2 + 1


def present_keys(n: int, seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 2**62, n, dtype=np.int64) * 2


@pytest.mark.parametrize("cls", [bloomkit.SplitBlockBloom, bloomkit.BlockedBloom, bloomkit.StandardBloom,
                                 bloomkit.CountingBloom], ids=lambda c: c.__name__)
@pytest.mark.parametrize("n,p", [(100_000, 0.01), (200_000, 0.05), (50_000, 0.001)])
def test_measured_fpr_matches_the_reported_one(cls, n, p):
    f = cls(n, p)
    f.add_many(present_keys(n, 1))
    measured = f.may_contain_many(absent_keys(QUERIES, 2)).mean()
    # The filter's own FPR for its bits (exact under a uniform hash) against the sample.
    assert abs(measured - f.estimated_fpr) <= binomial_bound(f.estimated_fpr, QUERIES)
    # And that rate against the design target (the C++ suite bounds this tightly; here 25 %).
    assert f.estimated_fpr <= p * 1.25
    assert f.design_fpr <= p * 1.25


def test_fpr_follows_the_fill_past_capacity():
    n, p = 50_000, 0.01
    f = bloomkit.SplitBlockBloom(n, p)
    f.add_many(present_keys(3 * n, 3))
    assert f.saturated
    measured = f.may_contain_many(absent_keys(QUERIES, 4)).mean()
    assert measured > 5 * p
    assert abs(measured - f.estimated_fpr) <= binomial_bound(f.estimated_fpr, QUERIES)


@pytest.mark.parametrize("cls,kwargs,rate", [
    (bloomkit.BinaryFuse, {"bits": 8}, 2**-8),
    (bloomkit.BinaryFuse, {"bits": 16}, 2**-16),
    (bloomkit.Ribbon, {"bits": 7}, 2**-7),
    (bloomkit.Ribbon, {"bits": 10}, 2**-10),
])
def test_static_filters_reach_their_design_fpr(cls, kwargs, rate):
    f = cls(present_keys(200_000, 5), **kwargs)
    measured = f.may_contain_many(absent_keys(QUERIES, 6)).mean()
    assert f.target_fpr == rate
    assert abs(measured - rate) <= binomial_bound(rate, QUERIES) + rate * 0.02


def test_scalable_stays_under_its_target_as_it_grows():
    p = 0.01
    f = bloomkit.ScalableBloom(1000, p)
    f.add_many(present_keys(200_000, 7))
    assert f.stages > 5
    measured = f.may_contain_many(absent_keys(QUERIES, 8)).mean()
    assert measured <= p + binomial_bound(p, QUERIES)
    assert f.fpr_bound <= p
