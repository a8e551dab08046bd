"""hoplab.stats against numbers from a second implementation (R, SPSS, agricolae, statsmodels'
and R packages' published outputs), never against hoplab's own output. Each block names where
its data and reference numbers come from; the tolerance matches the digits printed there.

Sources: "agricolae tutorial" (F. de Mendiburu, version 1.3-7, the agricolae package vignette on
CRAN); elkronos/anovakit articles/welch.md (R output of oneway.test, t.test, shapiro.test on
PlantGrowth); statsmodels statsmodels/stats/tests/{test_oneway,test_robust_compare,test_anova}.py
(R onewaytests, car and base R results); UCLA ATS SPSS textbook examples (Kirk, chapter 5)."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from scipy import stats as sps

from hoplab import _resources
from hoplab import stats as st
from hoplab.stats import StatsInputError


def tidy(groups: dict, value: str = "y", group: str = "g") -> pd.DataFrame:
    return pd.DataFrame(
        [(label, v) for label, values in groups.items() for v in values], columns=[group, value]
    )


# R datasets::PlantGrowth (Dobson 1983, "An Introduction to Statistical Modelling", Table 7.1).
PLANT = tidy(
    {
        "ctrl": [4.17, 5.58, 5.18, 6.11, 4.50, 4.61, 5.17, 4.53, 5.33, 5.14],
        "trt1": [4.81, 4.17, 4.41, 3.59, 5.87, 3.83, 6.03, 4.89, 4.32, 4.69],
        "trt2": [6.31, 5.12, 5.54, 5.50, 5.37, 5.29, 4.92, 6.15, 5.80, 5.26],
    },
    "weight",
    "group",
)

# statsmodels statsmodels/stats/tests/test_oneway.py, TestOnewayScale (y0, y1, y2) and
# test_robust_compare.py (the same "df3"); R reference values quoted there.
SM = tidy(
    {
        "y0": [452, 874, 554, 447, 356, 754, 558, 574, 664, 682, 547, 435, 245],
        "y1": [546, 547, 774, 465, 459, 665, 467, 365, 589, 534, 456, 651, 654, 665, 546, 537],
        "y2": [785, 458, 886, 536, 669, 857, 821, 772, 732, 689, 654, 597, 830, 827],
    }
)

# agricolae::sweetpotato (International Potato Center, yield by virus, 3 plots each).
SWEETPOTATO = tidy(
    {
        "cc": [28.5, 21.7, 23.0],
        "fc": [14.9, 10.6, 13.1],
        "ff": [41.8, 39.2, 28.0],
        "oo": [38.2, 40.4, 32.1],
    },
    "yield",
    "virus",
)


# --- one-way tests ---------------------------------------------------------------------------


def test_anova_and_welch_match_r_on_plantgrowth():
    # R 4.x oneway.test(weight ~ group, PlantGrowth, var.equal = TRUE / FALSE), as printed in
    # elkronos/anovakit articles/welch.md: F = 4.8461 on (2, 27), p = 0.01591; Welch
    # F = 5.180972 on (2, 17.12842), p = 0.01739282.
    r = st.oneway(PLANT, "weight", "group")
    assert (r["anova_df1"], r["anova_df2"]) == (2, 27)
    assert r["anova_F"] == pytest.approx(4.8461, abs=5e-5)
    assert r["anova_p"] == pytest.approx(0.01591, abs=5e-6)
    assert r["welch_F"] == pytest.approx(5.180972, abs=5e-7)
    assert r["welch_df2"] == pytest.approx(17.12842, abs=5e-6)
    assert r["welch_p"] == pytest.approx(0.01739282, abs=5e-9)


def test_shapiro_matches_r_on_plantgrowth():
    # R shapiro.test per group (elkronos/anovakit articles/welch.md):
    # ctrl W = 0.9566815 p = 0.7474734; trt1 0.9304107 0.4519440; trt2 0.9410052 0.5642519.
    sw = st.oneway(PLANT, "weight", "group")["shapiro"]
    assert list(sw.index) == ["ctrl", "trt1", "trt2"]
    assert list(sw["n"]) == [10, 10, 10]
    np.testing.assert_allclose(sw["W"], [0.9566815, 0.9304107, 0.9410052], atol=5e-7)
    np.testing.assert_allclose(sw["p"], [0.7474734, 0.4519440, 0.5642519], atol=5e-7)


def test_oneway_matches_r_reference_values_from_statsmodels_tests():
    # statsmodels test_robust_compare.py: R oneway.test(var.equal=TRUE): F 7.47403193349076,
    # df (2, 40), p 0.00174643304119871; oneway.test(var.equal=FALSE): F 8.02355212103924,
    # df (2, 24.272320628139), p 0.00211423625518082; onewaytests::bf.test (Brown-Forsythe
    # test of means, SPSS's): F 7.10900606421182, df (2, 31.4207256105052),
    # p 0.00283841965791224. test_oneway.py: onewaytests::homog.test (Levene, centre = mean,
    # SPSS's): 1.07894485177512, df (2, 40), p 0.349641166869223.
    r = st.oneway(SM, "y", "g")
    assert r["anova_F"] == pytest.approx(7.47403193349076, rel=1e-12)
    assert (r["anova_df1"], r["anova_df2"]) == (2, 40)
    assert r["anova_p"] == pytest.approx(0.00174643304119871, rel=1e-10)
    assert r["welch_F"] == pytest.approx(8.02355212103924, rel=1e-12)
    assert r["welch_df2"] == pytest.approx(24.272320628139, rel=1e-12)
    assert r["welch_p"] == pytest.approx(0.00211423625518082, rel=1e-10)
    assert r["bf_F"] == pytest.approx(7.10900606421182, rel=1e-12)
    assert r["bf_df2"] == pytest.approx(31.4207256105052, rel=1e-12)
    assert r["bf_p"] == pytest.approx(0.00283841965791224, rel=1e-10)
    assert r["levene_W"] == pytest.approx(1.07894485177512, rel=1e-12)
    assert r["levene_p"] == pytest.approx(0.349641166869223, rel=1e-10)


def test_anova_matches_agricolae_sweetpotato():
    # agricolae tutorial (F. de Mendiburu, version 1.3-7, 2023-10-22, §4.8): anova(model):
    # F value 17.345 (waller.test Fc = 17.345), Pr(>F) 0.00073, on (3, 8).
    r = st.oneway(SWEETPOTATO, "yield", "virus")
    assert (r["anova_df1"], r["anova_df2"]) == (3, 8)
    assert r["anova_F"] == pytest.approx(17.345, abs=5e-4)
    assert r["anova_p"] == pytest.approx(0.00073, abs=5e-6)


# --- descriptives ----------------------------------------------------------------------------


def test_describe_matches_r_group_intervals():
    # elkronos/anovakit articles/welch.md, $emmeans (each group's own sd, t interval):
    # ctrl 5.032 sd 0.5830914 se 0.1843897 CI 4.614882..5.449118; trt1 4.661 0.7936757
    # 0.2509823 4.093239..5.228761; trt2 5.526 0.4425733 0.1399540 5.209402..5.842598;
    # conf_level = 0.90: ctrl 4.693993..5.370007, trt1 4.200921..5.121079.
    d = st.describe(PLANT, "weight", "group")
    assert list(d.columns) == ["group", "n", "mean", "std", "sem", "ci_low", "ci_high"]
    assert list(d["group"]) == ["ctrl", "trt1", "trt2"] and list(d["n"]) == [10, 10, 10]
    np.testing.assert_allclose(d["mean"], [5.032, 4.661, 5.526], atol=1e-12)
    np.testing.assert_allclose(d["std"], [0.5830914, 0.7936757, 0.4425733], atol=5e-8)
    np.testing.assert_allclose(d["sem"], [0.1843897, 0.2509823, 0.1399540], atol=5e-8)
    np.testing.assert_allclose(d["ci_low"], [4.614882, 4.093239, 5.209402], atol=5e-7)
    np.testing.assert_allclose(d["ci_high"], [5.449118, 5.228761, 5.842598], atol=5e-7)
    d90 = st.describe(PLANT, "weight", ["group"], confidence=0.90)
    np.testing.assert_allclose(d90["ci_low"][:2], [4.693993, 4.200921], atol=5e-7)
    np.testing.assert_allclose(d90["ci_high"][:2], [5.370007, 5.121079], atol=5e-7)


# Kirk, "Experimental Design", Table 5.2-1, as run in SPSS by UCLA ATS ("SPSS Textbook Examples,
# Experimental Design by Roger Kirk, Chapter 5", www.ats.ucla.edu/stat/spss/examples/kirk/
# kirkspss5.htm): MEANS Report 3.0000/1.5119, 3.5000/.9258,
# 4.2500/1.0351, 6.2500/2.1213 (n = 8 each); ONEWAY F = 7.497, df 3/28, Sig. .001,
# Within Groups Mean Square 2.179.
KIRK = tidy(
    {
        1: [4, 6, 3, 3, 1, 3, 2, 2],
        2: [4, 5, 4, 3, 2, 3, 4, 3],
        3: [5, 6, 5, 4, 3, 4, 3, 4],
        4: [3, 5, 6, 5, 6, 7, 8, 10],
    },
    "y",
    "a",
)


def test_describe_and_anova_match_spss_on_kirk():
    d = st.describe(KIRK, "y", "a")
    np.testing.assert_allclose(d["mean"], [3.0, 3.5, 4.25, 6.25], atol=5e-5)
    np.testing.assert_allclose(d["std"], [1.5119, 0.9258, 1.0351, 2.1213], atol=5e-5)
    r = st.oneway(KIRK, "y", "a")
    assert r["anova_F"] == pytest.approx(7.497, abs=5e-4)
    assert (r["anova_df1"], r["anova_df2"]) == (3, 28)
    assert round(r["anova_p"], 3) == 0.001


# --- post-hoc tests --------------------------------------------------------------------------


def test_scheffe_matches_agricolae_sweetpotato():
    # agricolae tutorial §4.9, scheffe.test(model, "virus", group=FALSE): pvalue
    # cc-fc 0.0978, cc-ff 0.0855, cc-oo 0.0706, fc-ff 0.0023, fc-oo 0.0020, ff-oo 0.9991.
    p = st.scheffe(SWEETPOTATO, "yield", "virus")
    assert list(p.index) == ["cc", "fc", "ff", "oo"] and list(p.columns) == list(p.index)
    expected = {("cc", "fc"): 0.0978, ("cc", "ff"): 0.0855, ("cc", "oo"): 0.0706,
                ("fc", "ff"): 0.0023, ("fc", "oo"): 0.0020, ("ff", "oo"): 0.9991}
    for (a, b), want in expected.items():
        assert p.loc[a, b] == pytest.approx(want, abs=5e-5)
        assert p.loc[b, a] == p.loc[a, b]
    assert np.all(np.diag(p) == 1)


def test_dunnett_t3_with_two_groups_is_the_welch_t_test_on_rounded_df():
    # With k = 2 there is one comparison, and the studentized maximum modulus of one variate
    # is |t|: T3 is Welch's two-sided t test with its df rounded (PMCMRplus convention).
    # R t.test(weight ~ group, ctrl vs trt1, var.equal = FALSE) (elkronos/anovakit
    # articles/welch.md): t = 1.19126, df = 16.52359, p = 0.2503825.
    two = PLANT[PLANT["group"] != "trt2"]
    p = st.dunnett_t3(two, "weight", "group").loc["ctrl", "trt1"]
    assert p == pytest.approx(2 * sps.t.sf(1.19126, 17), abs=1e-5)
    # the rounding moves it off R's unrounded Welch p, but only in the third digit
    assert p == pytest.approx(0.2503825, abs=2e-3)


def test_dunnett_t3_tends_to_sidak_over_independent_normals_for_large_samples():
    # For large df the studentized maximum modulus of m variates is the maximum of m
    # independent |N(0,1)|, whose tail is exactly 1 - (1 - 2 Phi(-|t|))^m (Dunnett 1980).
    rng = np.random.default_rng(4)
    n = 4000
    groups = {"a": rng.normal(0.0, 1.0, n), "b": rng.normal(0.06, 2.0, n), "c": rng.normal(0.1, 3.0, n)}
    p = st.dunnett_t3(tidy(groups), "y", "g")
    m = 3
    for a, b in [("a", "b"), ("a", "c"), ("b", "c")]:
        x, y = groups[a], groups[b]
        t = (x.mean() - y.mean()) / math.sqrt(x.var(ddof=1) / n + y.var(ddof=1) / n)
        want = 1 - (1 - 2 * sps.norm.sf(abs(t))) ** m
        assert p.loc[a, b] == pytest.approx(want, abs=2e-3)


# --- homogeneous subsets ---------------------------------------------------------------------


def test_homogeneous_subsets_match_agricolae_scheffe_groups():
    # agricolae tutorial §4.9, scheffe.test(group=TRUE): Minimum Significant Difference 14,
    # groups oo "a", ff "a", cc "ab", fc "b"  ->  subsets {fc, cc} and {cc, ff, oo}.
    assert st.homogeneous_subsets(SWEETPOTATO, "yield", "virus") == [["fc", "cc"], ["cc", "ff", "oo"]]
    assert st.best_subset(SWEETPOTATO, "yield", "virus") == ["oo", "ff", "cc"]
    assert st.best_subset(SWEETPOTATO, "yield", "virus", higher_is_better=False) == ["fc", "cc"]


def test_homogeneous_subsets_with_equal_n_agree_with_pairwise_scheffe():
    # With equal group sizes SPSS's subsets are the maximal runs of ordered means whose extreme
    # pair is not significant by the pairwise Scheffé test (scikit-posthocs, a separate
    # implementation). Kirk's data (n = 8 each): 1 vs 4 and 2 vs 4 differ, 3 vs 4 does not.
    p = st.scheffe(KIRK, "y", "a")
    assert p.loc[1, 4] < 0.05 and p.loc[2, 4] < 0.05 and p.loc[3, 4] > 0.05 and p.loc[1, 3] > 0.05
    assert st.homogeneous_subsets(KIRK, "y", "a") == [[1, 2, 3], [3, 4]]
    assert st.best_subset(KIRK, "y", "a") == [4, 3]


def test_homogeneous_subsets_use_the_harmonic_mean_of_unequal_group_sizes():
    # SPSS (ONEWAY POSTHOC subcommand): "the harmonic mean of the group sizes is used as the
    # sample size in the calculation for homogeneity subsets". Here a is small (n = 3) and b, c
    # large (n = 30): the pairwise Scheffé test (its own n) finds b and c different, but with
    # the harmonic mean n_h = 3 / (1/3 + 2/30) = 7.5 the range b..c is not significant.
    rng = np.random.default_rng(7)
    z = lambda n: (lambda v: (v - v.mean()) / v.std(ddof=1))(rng.normal(size=n))  # noqa: E731
    data = {"a": -0.1 + z(3), "b": 0.0 + z(30), "c": 0.9 + z(30)}
    df = tidy(data)
    assert st.scheffe(df, "y", "g").loc["b", "c"] < 0.05
    assert st.homogeneous_subsets(df, "y", "g") == [["a", "b", "c"]]


def test_seed004_best_subset_is_ordered_best_first():
    # Seed 004 Table 4 lists the best subset best mean first, e.g. throughput 1hop {7, 3}.
    df = tidy({0: [1.0, 1.1, 0.9], 1: [5.0, 5.1, 4.9], 3: [4.9, 5.0, 4.8]}, "throughput", "treatment")
    assert st.best_subset(df, "throughput", "treatment") == [1, 3]
    assert st.best_subset(df, "throughput", "treatment", higher_is_better=False) == [0]


# --- factorial ANOVA -------------------------------------------------------------------------

# statsmodels statsmodels/stats/tests/test_anova.py: kidney data (Days by Duration x Weight,
# 10 per cell), response log(Days + 1), first three rows dropped (unbalanced); R car::Anova.
KIDNEY_DAYS = {
    (1, 1): [0, 2, 1, 3, 0, 2, 0, 5, 6, 8],
    (1, 2): [2, 4, 7, 12, 15, 4, 3, 1, 5, 20],
    (1, 3): [15, 10, 8, 5, 25, 16, 7, 30, 3, 27],
    (2, 1): [0, 1, 1, 0, 4, 2, 7, 4, 0, 3],
    (2, 2): [5, 3, 2, 0, 1, 1, 3, 6, 7, 9],
    (2, 3): [10, 8, 12, 3, 7, 15, 4, 9, 6, 1],
}


def kidney() -> pd.DataFrame:
    rows = [(d, w, math.log(days + 1)) for (d, w), v in KIDNEY_DAYS.items() for days in v]
    return pd.DataFrame(rows, columns=["Duration", "Weight", "logdays"]).drop([0, 1, 2])


def test_factorial_anova_type2_matches_r_car():
    # R car::Anova(type = "II"): sum_sq 3.067066, 13.27205, 0.1905093, 27.60181; df 1, 2, 2, 51;
    # F 5.667033, 12.26141, 0.1760025; Pr(>F) 0.02106078, 4.487909e-05, 0.8391231.
    t = st.factorial_anova(kidney(), "logdays", ["Duration", "Weight"])
    assert list(t.index) == ["Duration", "Weight", "Duration:Weight", "Residual"]
    np.testing.assert_allclose(t["sum_sq"], [3.067066, 13.27205, 0.1905093, 27.60181], rtol=1e-6)
    np.testing.assert_array_equal(t["df"], [1, 2, 2, 51])
    np.testing.assert_allclose(t["F"][:3], [5.667033, 12.26141, 0.1760025], rtol=1e-6)
    np.testing.assert_allclose(t["PR(>F)"][:3], [0.02106078, 4.487909e-05, 0.8391231], rtol=1e-6)


def test_factorial_anova_type3_matches_r_car_with_sum_contrasts():
    # R car::Anova(type = "III") with contr.sum: sum_sq 151.4065 (intercept), 2.904723,
    # 13.45718, 0.1905093, 27.60181; F 279.7545, 5.367071, 12.43245, 0.1760025;
    # Pr(>F) 2.379855e-22, 0.02457384, 3.999431e-05, 0.8391231.
    t = st.factorial_anova(kidney(), "logdays", ["Duration", "Weight"], typ="III")
    assert list(t.index) == ["Intercept", "Duration", "Weight", "Duration:Weight", "Residual"]
    np.testing.assert_allclose(t["sum_sq"], [151.4065, 2.904723, 13.45718, 0.1905093, 27.60181], rtol=1e-6)
    np.testing.assert_allclose(t["F"][:4], [279.7545, 5.367071, 12.43245, 0.1760025], rtol=1e-6)
    np.testing.assert_allclose(
        t["PR(>F)"][:4], [2.379855e-22, 0.02457384, 3.999431e-05, 0.8391231], rtol=1e-6
    )


def test_factorial_anova_takes_dotted_scenario_field_names():
    df = kidney().rename(columns={"Duration": "tcp.max_cwnd", "Weight": "topology.nodes"})
    t = st.factorial_anova(df, "logdays", ["tcp.max_cwnd", "topology.nodes"], typ=2)
    assert list(t.index) == ["tcp.max_cwnd", "topology.nodes", "tcp.max_cwnd:topology.nodes", "Residual"]
    assert t.loc["tcp.max_cwnd", "F"] == pytest.approx(5.667033, rel=1e-6)


# --- seed 004 Table 5 from its Table 2 -------------------------------------------------------


def test_percent_change_reproduces_seed004_table5_from_table2():
    # Kawadia & Kumar 2005 Table 5 = percent change of the Table 2 means w.r.t. treatment 1.
    # Table 5 was computed from unrounded means, so compare at the rounding of Table 2
    # (two decimals of throughput: up to ~1.5 % relative on 0.5 Mbit/s).
    t2 = _resources.data_frame("seed004_table2.csv", "hoplab.papers.seed004").set_index(["metric", "treatment"])
    thr = t2.loc["throughput_mbps"]
    rtt = t2.loc["rtt_mean_ms"]
    pct_thr = {plot: st.percent_change(thr[plot], 1) for plot in ["1hop", "3hop", "6hop", "3by2"]}
    pct_rtt = {plot: st.percent_change(rtt[plot], 1) for plot in ["1hop", "2hop"]}
    assert pct_thr["1hop"][0] == pytest.approx(23.7, abs=0.05)     # Table 5: 23.7
    assert pct_thr["3hop"][2] == pytest.approx(-6.21, abs=0.005)   # Table 5: -6.21
    assert pct_thr["1hop"][7] == pytest.approx(39.3, abs=0.05)     # Table 5: 39.3
    assert pct_thr["6hop"][0] == pytest.approx(-8.62, abs=0.005)   # Table 5: -8.62
    assert pct_thr["3by2"][7] == pytest.approx(21.2, abs=0.05)     # Table 5: 21.2
    assert (pct_thr["1hop"][1], pct_rtt["2hop"][1]) == (0.0, 0.0)  # the reference row is 0
    assert pct_rtt["1hop"][0] == pytest.approx(701, abs=0.5)       # Table 5: 701
    assert pct_rtt["1hop"][2] == pytest.approx(5.81, abs=0.005)    # Table 5: 5.81
    assert pct_rtt["2hop"][0] == pytest.approx(4.29e3, abs=5)      # Table 5: 4.29e+03


def test_percent_change_refuses_a_missing_or_zero_reference():
    with pytest.raises(StatsInputError, match="reference_label: 9"):
        st.percent_change(pd.Series([1.0, 2.0], index=[0, 1]), 9)
    with pytest.raises(StatsInputError, match="mean of 0 is 0"):
        st.percent_change(pd.Series([0.0, 2.0], index=[0, 1]), 0)


# --- degenerate input ------------------------------------------------------------------------

ALL_GROUP_FUNCTIONS = [st.oneway, st.scheffe, st.dunnett_t3, st.homogeneous_subsets, st.best_subset]


@pytest.mark.parametrize("fn", ALL_GROUP_FUNCTIONS)
def test_missing_values_are_dropped(fn):
    # A failed run has NaN metrics (lab.load); it is left out, not turned into a NaN result.
    with_nan = pd.concat(
        [SWEETPOTATO, pd.DataFrame({"virus": ["cc", "ff", None], "yield": [np.nan, np.nan, 99.0]})]
    )
    a, b = fn(with_nan, "yield", "virus"), fn(SWEETPOTATO, "yield", "virus")
    if isinstance(a, pd.DataFrame):
        pd.testing.assert_frame_equal(a, b)
    elif isinstance(a, dict):
        assert a["anova_F"] == pytest.approx(17.345, abs=5e-4) and a["welch_F"] == b["welch_F"]
    else:
        assert a == b


@pytest.mark.parametrize("fn", ALL_GROUP_FUNCTIONS)
def test_degenerate_input_is_refused_naming_the_column_or_group(fn):
    with pytest.raises(StatsInputError, match=r"virus: needs at least 2 groups .* found 1 \('cc'\)"):
        fn(SWEETPOTATO[SWEETPOTATO["virus"] == "cc"], "yield", "virus")
    one_value = SWEETPOTATO.drop(index=[3, 4])  # fc keeps one plot
    with pytest.raises(StatsInputError, match=r"virus='fc': needs at least 2 values of yield, has 1"):
        fn(one_value, "yield", "virus")
    level = {"cc": 1.0, "fc": 2.0, "ff": 3.0, "oo": 4.0}
    flat = SWEETPOTATO.assign(**{"yield": SWEETPOTATO["virus"].map(level)})
    with pytest.raises(StatsInputError, match="yield: zero variance within every virus group"):
        fn(flat, "yield", "virus")
    with pytest.raises(StatsInputError, match="yeild: no such column"):
        fn(SWEETPOTATO, "yeild", "virus")
    with pytest.raises(StatsInputError, match="yield: column is not numeric"):
        fn(SWEETPOTATO.astype({"yield": str}), "yield", "virus")
    assert issubclass(StatsInputError, ValueError)


def test_zero_variance_in_one_group_leaves_welch_undefined_but_anova_defined():
    df = tidy({"a": [1.0, 1.0, 1.0], "b": [2.0, 3.0, 4.0], "c": [5.0, 6.0, 8.0]})
    r = st.oneway(df, "y", "g")
    assert math.isnan(r["welch_F"]) and math.isnan(r["welch_p"])
    assert r["anova_F"] > 0 and math.isfinite(r["bf_p"])
    assert math.isnan(r["shapiro"].loc["a", "W"])


def test_describe_keeps_single_value_cells_and_refuses_bad_arguments():
    d = st.describe(tidy({"a": [1.0], "b": [2.0, np.nan, 4.0]}), "y", "g")
    assert list(d["n"]) == [1, 2]
    assert math.isnan(d.loc[0, "std"]) and math.isnan(d.loc[0, "ci_low"])
    with pytest.raises(StatsInputError, match="confidence"):
        st.describe(PLANT, "weight", "group", confidence=95)
    with pytest.raises(StatsInputError, match="plot: no such column"):
        st.describe(PLANT, "weight", ["group", "plot"])


def test_other_arguments_are_checked():
    with pytest.raises(StatsInputError, match="method: 'tukey' is not supported"):
        st.homogeneous_subsets(SWEETPOTATO, "yield", "virus", method="tukey")
    with pytest.raises(StatsInputError, match="alpha"):
        st.homogeneous_subsets(SWEETPOTATO, "yield", "virus", alpha=5)
    with pytest.raises(StatsInputError, match="typ"):
        st.factorial_anova(kidney(), "logdays", ["Duration"], typ=4)
    with pytest.raises(StatsInputError, match="Weight: needs at least 2 levels"):
        st.factorial_anova(kidney()[lambda d: d["Weight"] == 1], "logdays", ["Duration", "Weight"])
