"""hoplab.models against the numbers the papers state, and limits."""

from __future__ import annotations

import math

import numpy as np
import pytest

from hoplab import models as m


def test_seed001_s32_window_needs_high_loss():
    # Seed 001 §3.2: "when alpha = 1 and K = 2, W < 1 demands p > 0.19
    # while W < 2 demands p > 0.12 under Eq. (1)".
    p1, p2 = m.loss_for_window([1.0, 2.0], alpha=1.0, K=2.0)
    assert round(p1, 2) == 0.19
    assert round(p2, 2) == 0.12
    assert m.tcp_friendly_window(p1) == pytest.approx(1.0, rel=1e-9)
    assert m.tcp_friendly_window(p2 + 0.001) < 2.0 < m.tcp_friendly_window(p2 - 0.001)


# Seed 001 Table 2 (Eq. 4): K at p = 0.06 and 0.015 for W = 4, 2, 1, as printed.
TABLE2_K = [(0.06, 4, 1.7), (0.06, 2, 10), (0.06, 1, 26.6), (0.015, 4, 44), (0.015, 2, 118), (0.015, 1, 265)]


@pytest.mark.parametrize("p, W, K", TABLE2_K)
def test_seed001_table2_timeout_factor(p, W, K):
    got = m.timeout_factor(W, p, alpha=1.0)
    # The table prints 1-3 significant figures; K = 10 is 9.96.
    assert got == pytest.approx(K, rel=0.025)
    # Eq. 4 inverts Eq. 1.
    assert m.tcp_friendly_window(p, 1.0, got) == pytest.approx(W, rel=1e-9)


def test_seed001_table2_k0_row_and_column():
    # K = 0 column: p = 0.06 gives W = 5, p = 0.015 gives W = 10 (Eq. 7).
    assert m.window_bound([0.06, 0.015]) == pytest.approx([5.0, 10.0])
    # K = 0 row (Eq. 8): W < 2 needs p > 0.375 as printed. The W < 4 cell
    # prints 0.167, which is 1.5/3^2 (W < 3); Eq. 8 gives 1.5/4^2 = 0.094.
    assert m.loss_bound(2.0) == pytest.approx(0.375)
    assert m.loss_bound(3.0) == pytest.approx(0.167, abs=5e-4)
    assert m.loss_bound(4.0) == pytest.approx(0.09375)


def test_eq5_to_8_are_the_k0_case_of_eq1():
    p = np.array([0.001, 0.01, 0.1])
    for alpha in (1.0, 0.1, 0.01):
        assert m.tcp_friendly_window(p, alpha, 0.0) == pytest.approx(m.window_bound(p, alpha))
        # Eq. 5: the bound scales as sqrt(alpha) W_1.
        assert m.window_bound(p, alpha) == pytest.approx(math.sqrt(alpha) * m.window_bound(p, 1.0))
        W = m.window_bound(p, alpha)
        assert m.loss_bound(W, alpha) == pytest.approx(p)
        assert m.timeout_factor(W, p, alpha) == pytest.approx(0.0, abs=1e-9)
    # K >= 0 keeps W at or below the bound; a larger K lowers W.
    assert np.all(m.tcp_friendly_window(p, 1.0, 2.0) < m.window_bound(p))
    assert np.all(m.tcp_friendly_window(p, 1.0, 50.0) < m.tcp_friendly_window(p, 1.0, 2.0))
    assert np.all(m.timeout_factor(2 * m.window_bound(p), p) < 0)


def test_seed001_s52_alpha_shifts_window():
    # Seed 001 §5.2: alpha = 0.01, 0.04, 0.1 mean W = 0.1, 0.2, ~0.3 W_1 at the same p (K = 0).
    p = 0.02
    for alpha, frac in ((0.01, 0.1), (0.04, 0.2), (0.1, 0.316)):
        assert m.tcp_friendly_window(p, alpha, 0.0) / m.tcp_friendly_window(p, 1.0, 0.0) == pytest.approx(frac, rel=1e-3)


def test_window_limits():
    assert m.tcp_friendly_window(0.0) == math.inf
    p = np.logspace(-6, -1, 6)
    W = m.tcp_friendly_window(p)
    assert np.all(np.diff(W) < 0)
    # At low loss the timeout term vanishes: W -> sqrt(3 / (2p)) (the Mathis law).
    assert m.tcp_friendly_window(1e-8) == pytest.approx(math.sqrt(1.5e8), rel=1e-3)


def test_alpha_and_k_validated():
    with pytest.raises(ValueError, match="alpha"):
        m.tcp_friendly_window(0.1, alpha=0.0)
    with pytest.raises(ValueError, match="alpha"):
        m.window_bound(0.1, alpha=1.5)
    with pytest.raises(ValueError, match="K"):
        m.tcp_friendly_window(0.1, K=-1)


def test_vectorised_shapes():
    p = np.linspace(0.01, 0.1, 5)[:, None]
    alpha = np.array([1.0, 0.1, 0.01])[None, :]
    assert m.tcp_friendly_window(p, alpha).shape == (5, 3)
    assert m.loss_for_window(np.array([[1.0, 2.0], [4.0, 8.0]])).shape == (2, 2)
    assert isinstance(m.tcp_friendly_window(0.05), float)
    assert math.isnan(m.loss_for_window(0.01, K=2.0))  # W = 0.01 is below Eq. 1 even at p = 1


def test_seed001_x_is_padhye_approximate():
    # Seed 001 §3.2: W = X RTT with T0 = K RTT and alpha = 1/b.
    p, rtt = np.array([0.001, 0.01, 0.1]), 0.2
    for b in (1.0, 2.0):
        X = m.padhye_throughput(p, rtt, 2 * rtt, b=b)
        assert X * rtt == pytest.approx(m.tcp_friendly_window(p, 1.0 / b, 2.0))


def test_seed002_eq3_is_b2():
    # Seed 002 Eq. 3 is written with sqrt(4p/3) and 3 sqrt(3p/4): b = 2.
    p, rtt, t0, wmax = 0.02, 0.15, 1.0, 32
    eq3 = min(wmax / rtt, 1 / (rtt * math.sqrt(4 * p / 3) + t0 * min(1, 3 * math.sqrt(3 * p / 4)) * p * (1 + 32 * p**2)))
    assert m.padhye_throughput(p, rtt, t0, 2, wmax) == pytest.approx(eq3)
    # mss turns packets/s into kbit/s.
    assert m.padhye_throughput(p, rtt, t0, 2, wmax, mss=1460) == pytest.approx(eq3 * 1460 * 8 / 1e3)


def test_seed002_window_limit_at_no_loss():
    # Seed 002 §7.2: with p ~ 0 "the formula ... is given by Wmax/RTT".
    for model in ("approximate", "full"):
        assert m.padhye_throughput(0.0, 0.1, 1.0, 2, 8, model=model) == pytest.approx(80.0)
        assert m.padhye_throughput(1e-9, 0.1, 1.0, 2, 8, model=model) == pytest.approx(80.0, rel=1e-3)
    assert m.padhye_throughput(0.0, 0.1, 1.0) == math.inf


def test_padhye_full_model_limits():
    p = np.logspace(-5, -0.5, 12)
    full = m.padhye_throughput(p, 0.1, 1.0, 2, model="full")
    approx = m.padhye_throughput(p, 0.1, 1.0, 2)
    assert np.all(np.diff(full) < 0)
    # At low loss both tend to the triple-duplicate law sqrt(3/(2bp))/RTT.
    assert full[0] == pytest.approx(approx[0], rel=0.01)
    assert full[0] == pytest.approx(math.sqrt(3 / (4 * p[0])) / 0.1, rel=0.01)
    # The window limit never lets it exceed wmax / rtt, and binds at low loss.
    lim = m.padhye_throughput(p, 0.1, 1.0, 2, 10, model="full")
    assert np.all(lim <= 100.0 + 1e-9)
    assert np.all(lim <= full + 1e-9)
    assert lim[0] == pytest.approx(100.0, rel=0.01)
    with pytest.raises(ValueError, match="model"):
        m.padhye_throughput(0.1, 0.1, 1.0, model="exact")


def test_seed002_expected_throughput():
    # Eq. 1 in seed 002's worked example (§7.3): with T1 = 2 T2 = 3 T3 and
    # t3 = t - t1 - t2, B1 - B2 = T2 ((4 t1 + t2) / (3 t) - 1/3) (its
    # "~ T2 (32/t - 1/3)"; the middle line's "2t_3/3" stands for 2t/3).
    T2 = 300.0
    T = {1: 2 * T2, 2: T2, 3: 2 * T2 / 3}
    t = {1: 10.0, 2: 30.0, 3: 60.0}
    total = sum(t.values())
    b1 = m.expected_throughput(t, T)
    assert b1 - T2 == pytest.approx(T2 * ((4 * t[1] + t[2]) / (3 * total) - 1 / 3))
    # One path length all the time: the static throughput itself.
    assert m.expected_throughput({4: 120.0}, {4: 370.0, 5: 300.0}) == pytest.approx(370.0)
    # Arrays: last axis over hop counts, several connections at once.
    got = m.expected_throughput(np.array([[1.0, 0.0], [1.0, 1.0]]), np.array([600.0, 300.0]))
    assert got == pytest.approx([600.0, 450.0])
    with pytest.raises(KeyError):
        m.expected_throughput({7: 1.0}, {1: 1.0})


def test_seed004_chain_clamp_model():
    # Seed 004 §4: throughput of an N-node chain proportional to W/(W+N-1).
    # A 1-hop chain (N = 2) at W = 1 carries half its saturation rate; a
    # 4-hop chain (N = 5) at W = 4 as well, at W = 12 three quarters.
    assert m.chain_clamp_throughput(1, 2) == pytest.approx(0.5)
    assert m.chain_clamp_throughput([4, 12], 5) == pytest.approx([0.5, 0.75])
    assert m.chain_clamp_throughput(4, 5, scale=800.0) == pytest.approx(400.0)
    # "the throughput quickly saturates as W is increased beyond a small
    # multiple of N": within 10 % of saturation at W = 9 (N - 1) and above.
    w = np.arange(1, 200)
    t = m.chain_clamp_throughput(w, 7)
    assert np.all(np.diff(t) > 0) and np.all(t < 1)
    assert t[w == 54][0] == pytest.approx(0.9)
    with pytest.raises(ValueError, match="W must be > 0"):
        m.chain_clamp_throughput(0, 3)
    with pytest.raises(ValueError, match="at least 2 nodes"):
        m.chain_clamp_throughput(2, 1)
