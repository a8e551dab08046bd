"""Analytic TCP models of the seeds, as numpy-vectorised functions, so that
simulated results can be plotted against them.

Seed 001 (Nahm, Helmy, Kuo, MobiHoc 2005) §3.2-4:
    `tcp_friendly_window` (Eq. 1), `timeout_factor` (Eq. 4),
    `window_bound` / `loss_bound` (Eqs. 5-8) and `loss_for_window`
    (Eq. 1 solved for p, behind the paper's "W < 1 demands p > 0.19").
Padhye, Firoiu, Towsley, Kurose (SIGCOMM 1998), cited as [1] by seed 001
and [20] by seed 002:
    `padhye_throughput`: the approximate closed form with the window limit,
    which seed 002 prints as its Eq. 3 (there with b = 2), and with
    ``model="full"`` the paper's full model with the window limit (§2.3).
Seed 002 (Östergren, SICS report) §7.1.1:
    `expected_throughput` (Eq. 1).
Seed 004 (Kawadia & Kumar) §4:
    `chain_clamp_throughput`: a chain's throughput under a window clamp.

Every function accepts scalars or numpy arrays (broadcast against each
other) and returns a float for scalar input, an array otherwise.
"""

from __future__ import annotations

from typing import Any, Mapping

import numpy as np

__all__ = [
    "tcp_friendly_window",
    "timeout_factor",
    "window_bound",
    "loss_bound",
    "loss_for_window",
    "padhye_throughput",
    "expected_throughput",
    "chain_clamp_throughput",
]


def _out(x: np.ndarray) -> Any:
    return float(x) if np.ndim(x) == 0 else x


def _check_alpha(alpha: np.ndarray) -> None:
    # Seed 001 Eq. 3: 0 < alpha <= 1.
    if np.any((alpha <= 0) | (alpha > 1)):
        raise ValueError("alpha must be in (0, 1] (seed 001 Eq. 3)")


def _denominator(p: np.ndarray, alpha: np.ndarray, K: np.ndarray) -> np.ndarray:
    # Seed 001 Eq. 1's denominator: sqrt(2p/(3a)) + K min(1, 3 sqrt(3p/(8a))) p (1 + 32 p^2).
    return np.sqrt(2.0 * p / (3.0 * alpha)) + K * _timeout_term(p, alpha)


def _timeout_term(p: np.ndarray, alpha: np.ndarray) -> np.ndarray:
    return np.minimum(1.0, 3.0 * np.sqrt(3.0 * p / (8.0 * alpha))) * p * (1.0 + 32.0 * p * p)


def tcp_friendly_window(p: Any, alpha: Any = 1.0, K: Any = 2.0) -> Any:
    """Average TCP window W (packets) at loss rate ``p``: seed 001 Eq. 1,

        W = 1 / ( sqrt(2p / (3 alpha)) + K min(1, 3 sqrt(3p / (8 alpha))) p (1 + 32 p^2) ).

    It is Padhye et al.'s approximate throughput X times RTT, with the
    timeout T0 = K RTT and the window growth per RTT alpha = 1/b (b packets
    acknowledged per ACK). ``alpha`` is FeW's fractional increment
    (seed 001 Eq. 9; 0 < alpha <= 1), ``K`` >= 0 the timeout factor
    (Eq. 2). TFRC's usual setting is K = 2, alpha = 1 (seed 001 §3.2).
    ``p`` = 0 gives inf.
    """
    p, alpha, K = (np.asarray(v, dtype=float) for v in (p, alpha, K))
    _check_alpha(alpha)
    if np.any(K < 0):
        raise ValueError("K must be >= 0 (seed 001 Eq. 2)")
    with np.errstate(divide="ignore"):
        return _out(1.0 / _denominator(p, alpha, K))


def timeout_factor(W: Any, p: Any, alpha: Any = 1.0) -> Any:
    """The timeout factor K (T0 = K RTT) for which Eq. 1 gives window ``W``
    at loss rate ``p``: seed 001 Eq. 4,

        K = (1/W - sqrt(2p / (3 alpha))) / (min(1, 3 sqrt(3p / (8 alpha))) p (1 + 32 p^2)).

    A negative K means no timeout setting reaches W at that p: W is above
    the K = 0 bound of Eq. 5. Seed 001 Table 2 tabulates K at p = 0.06 and
    0.015 for W = 4, 2, 1.
    """
    W, p, alpha = (np.asarray(v, dtype=float) for v in (W, p, alpha))
    _check_alpha(alpha)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _out((1.0 / W - np.sqrt(2.0 * p / (3.0 * alpha))) / _timeout_term(p, alpha))


def window_bound(p: Any, alpha: Any = 1.0) -> Any:
    """The largest average window at loss rate ``p`` (K = 0 in Eq. 1):
    seed 001 Eq. 5, W <= sqrt(1.5 alpha / p) = sqrt(alpha) W_1; with
    alpha = 1 this is Eq. 7, W <= sqrt(3 / (2p))."""
    p, alpha = (np.asarray(v, dtype=float) for v in (p, alpha))
    _check_alpha(alpha)
    with np.errstate(divide="ignore"):
        return _out(np.sqrt(1.5 * alpha / p))


def loss_bound(W: Any, alpha: Any = 1.0) -> Any:
    """The largest loss rate at which the average window can be ``W`` (K = 0):
    seed 001 Eq. 6, p <= 1.5 alpha / W^2 = alpha p_1; with alpha = 1 this
    is Eq. 8, p <= 1.5 / W^2."""
    W, alpha = (np.asarray(v, dtype=float) for v in (W, alpha))
    _check_alpha(alpha)
    with np.errstate(divide="ignore"):
        return _out(1.5 * alpha / (W * W))


def loss_for_window(W: Any, alpha: Any = 1.0, K: Any = 2.0, *, tol: float = 1e-12) -> Any:
    """The loss rate p at which Eq. 1 gives the average window ``W``.

    Eq. 1 falls strictly with p, so W < w demands p > loss_for_window(w):
    seed 001 §3.2, "when alpha = 1 and K = 2, W < 1 demands p > 0.19 while
    W < 2 demands p > 0.12". Solved by bisection on (0, 1]; a W that Eq. 1
    does not reach even at p = 1 gives nan.
    """
    W, alpha, K = np.broadcast_arrays(*(np.asarray(v, dtype=float) for v in (W, alpha, K)))
    _check_alpha(alpha)
    lo = np.zeros(W.shape)
    hi = np.ones(W.shape)
    reachable = np.asarray(tcp_friendly_window(hi, alpha, K)) <= W
    while np.max(hi - lo, initial=0.0) > tol:
        mid = 0.5 * (lo + hi)
        above = np.asarray(tcp_friendly_window(mid, alpha, K)) > W
        lo = np.where(above, mid, lo)
        hi = np.where(above, hi, mid)
    return _out(np.where(reachable, 0.5 * (lo + hi), np.nan))


def _padhye_q(p: np.ndarray, w: np.ndarray) -> np.ndarray:
    # Padhye et al. §2.2: probability that a loss in a window of w is a
    # timeout, Q(p, w) = min(1, (1-(1-p)^3)(1+(1-p)^3(1-(1-p)^(w-3))) / (1-(1-p)^w)).
    q = 1.0 - p
    with np.errstate(divide="ignore", invalid="ignore"):
        v = (1.0 - q**3) * (1.0 + q**3 * (1.0 - q ** (w - 3.0))) / (1.0 - q**w)
    return np.minimum(1.0, v)


def _padhye_g(p: np.ndarray) -> np.ndarray:
    # Padhye et al. §2.2: the backed-off timeout sequence, 1 + p + 2p^2 + ... + 32p^6.
    return 1.0 + p + 2 * p**2 + 4 * p**3 + 8 * p**4 + 16 * p**5 + 32 * p**6


def padhye_throughput(p: Any, rtt: Any, t0: Any, b: Any = 2.0, wmax: Any = np.inf, mss: Any = None, *,
                      model: str = "approximate") -> Any:
    """TCP Reno's steady-state send rate at loss rate ``p`` (Padhye et al.,
    SIGCOMM 1998): packets per second, or kbit/s if ``mss`` (bytes per
    packet) is given, as hoplab's ``throughput_kbps`` counts payload.

    ``rtt`` and ``t0`` (the first timeout) are in seconds, ``b`` packets are
    acknowledged per ACK (2 with delayed ACKs), ``wmax`` is the largest
    window in packets (the receiver's window or a clamp; inf: none).

    ``model="approximate"`` (default): the closed form with the window limit,

        B(p) = min( wmax / rtt, 1 / (rtt sqrt(2bp/3) + t0 min(1, 3 sqrt(3bp/8)) p (1 + 32p^2)) ),

    which is seed 002's Eq. 3 (printed there with b = 2: sqrt(4p/3) and
    3 sqrt(3p/4)) and, with wmax = inf, seed 001's X.

    ``model="full"``: the paper's full model with the window limit (its
    §2.3): with E[Wu] = (2+b)/(3b) + sqrt(8(1-p)/(3bp) + ((2+b)/(3b))^2),
    Q(p, w) and G(p) of its §2.2,

        if E[Wu] < wmax:
            B = ((1-p)/p + E[Wu] + Q(p, E[Wu])/(1-p))
                / (rtt (b E[Wu]/2 + 1) + Q(p, E[Wu]) G(p) t0 / (1-p))
        else:
            B = ((1-p)/p + wmax + Q(p, wmax)/(1-p))
                / (rtt (b wmax/8 + (1-p)/(p wmax) + 2) + Q(p, wmax) G(p) t0 / (1-p)).

    At p = 0 both give wmax / rtt (inf without a window limit).
    """
    p, rtt, t0, b, wmax = (np.asarray(v, dtype=float) for v in (p, rtt, t0, b, wmax))
    if np.any((p < 0) | (p > 1)):
        raise ValueError("p must be in [0, 1]")
    if model == "approximate":
        with np.errstate(divide="ignore", invalid="ignore"):
            tcp = 1.0 / (rtt * np.sqrt(2.0 * b * p / 3.0)
                         + t0 * np.minimum(1.0, 3.0 * np.sqrt(3.0 * b * p / 8.0)) * p * (1.0 + 32.0 * p * p))
            rate = np.minimum(wmax / rtt, tcp)
    elif model == "full":
        with np.errstate(divide="ignore", invalid="ignore"):
            c = (2.0 + b) / (3.0 * b)
            wu = c + np.sqrt(8.0 * (1.0 - p) / (3.0 * b * p) + c * c)
            g = _padhye_g(p)
            qu = _padhye_q(p, wu)
            unlimited = ((1.0 - p) / p + wu + qu / (1.0 - p)) / (rtt * (b * wu / 2.0 + 1.0) + qu * g * t0 / (1.0 - p))
            qm = _padhye_q(p, wmax)
            limited = ((1.0 - p) / p + wmax + qm / (1.0 - p)) / (
                rtt * (b * wmax / 8.0 + (1.0 - p) / (p * wmax) + 2.0) + qm * g * t0 / (1.0 - p))
            rate = np.where(wu < wmax, unlimited, limited)
            rate = np.where(p == 0, wmax / rtt, rate)
    else:
        raise ValueError(f"model must be 'approximate' or 'full', not {model!r}")
    if mss is not None:
        rate = rate * np.asarray(mss, dtype=float) * 8.0 / 1e3
    return _out(rate)


def expected_throughput(time_at_hops: Any, throughput_at_hops: Any) -> Any:
    """Seed 002 Eq. 1: B_exp = sum_i t_i T_i / sum_i t_i, where t_i is the
    time the shortest path between sender and receiver was i hops and T_i
    the throughput a static ("ZERO"-routed) chain of i hops reaches with the
    same TCP settings.

    Either two mappings {hops: value} (a hop count missing from
    ``throughput_at_hops`` is an error), or two arrays whose last axis runs
    over hop counts (leading axes broadcast: several connections at once).
    The result is in the unit of ``throughput_at_hops``.

    Note that seed 002's t_i counts the *shortest* path: a run's
    ``oracle_paths`` table has it (the true topology's hop counts over
    time, 0 = no path, whose T is 0); the ``paths`` table records the path
    *in use*. `hoplab.papers.seed002.expected.with_expected` applies this to every flow.
    """
    if isinstance(time_at_hops, Mapping):
        if not isinstance(throughput_at_hops, Mapping):
            raise TypeError("give both arguments as {hops: value} mappings, or both as arrays")
        missing = [h for h in time_at_hops if h not in throughput_at_hops]
        if missing:
            raise KeyError(f"no throughput for hop count(s) {sorted(missing)}")
        hops = sorted(time_at_hops)
        t = np.array([float(time_at_hops[h]) for h in hops])
        T = np.array([float(throughput_at_hops[h]) for h in hops])
    else:
        t = np.asarray(time_at_hops, dtype=float)
        T = np.asarray(throughput_at_hops, dtype=float)
    if np.any(t < 0):
        raise ValueError("times must be >= 0")
    t, T = np.broadcast_arrays(t, T)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _out(np.sum(t * T, axis=-1) / np.sum(t, axis=-1))


def chain_clamp_throughput(W: Any, nodes: Any, scale: Any = 1.0) -> Any:
    """Seed 004 §4 (Kawadia & Kumar): a closed migration process models a
    linear chain of ``nodes`` nodes carrying one flow end to end, and its
    throughput "is proportional to W/(W+N-1) where W is the congestion
    window clamp" (N = ``nodes``, so N - 1 is the number of hops; the
    details are in Kawadia's thesis, the paper's [12]).

    Returns ``scale`` * W / (W + N - 1): the fraction of the chain's
    saturation throughput with ``scale`` = 1, or a throughput in the unit
    of ``scale``. The paper gives only the proportionality, so ``scale``
    is the caller's (e.g. fitted to measured means). W > 0 (a clamp of
    0, hoplab's "unclamped", has no value here) and N >= 2.
    """
    W, nodes, scale = (np.asarray(v, dtype=float) for v in (W, nodes, scale))
    if np.any(W <= 0):
        raise ValueError("the window clamp W must be > 0 (seed 004 §4)")
    if np.any(nodes < 2):
        raise ValueError("a chain has at least 2 nodes (seed 004 §4)")
    return _out(scale * W / (W + nodes - 1.0))
