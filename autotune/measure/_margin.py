"""The margin of one configuration over another on the log scale, from every kind of evidence, with an interval
that is valid at small sample sizes and under repeated looks.

Work on log values: noise on I/O is multiplicative, and the log of a ratio is symmetric where the ratio is not.
The confirmation's evidence is a set of log-ratios, each symmetric about the true one:

* **paired rounds** (both measured in the same interleaved round, ``differences``): drift and load common to a
  round cancel. With the same noise law for both configurations the difference of their noises is symmetric even
  when each noise is one-sided (interference only slows runs down);
* **balanced pairs of trials** from elsewhere in the campaign (``block_differences``): the i-th trial of one
  configuration with the i-th of the other, both summarised by the same aggregate of the same number of runs, so
  the same argument holds. Trials left over on the side with more of them are not used: a mean over many trials
  against one or two trials is a comparison of summaries with different skew, which under one-sided noise shows
  gains that are not there (the simulation in ``experiments/evaluation/confirm_eval.py`` and ``tests/measure``).

The estimate is the 20%-trimmed mean of the log-ratios with the Tukey-McLaughlin t interval (``trimmed``):
the difference of two one-sided noises is heavy-tailed (of two exponentials: Laplace), where the trimmed mean is
markedly more efficient than the mean, and under normal noise it loses little (Wilcox 2012, "Introduction to
Robust Estimation and Hypothesis Testing", ch. 4). ``unpaired`` and ``combine`` (a blocked two-sample t and an
inverse-variance combination: Meier 1953, Biometrics 9; Satterthwaite 1946) remain for comparisons where both
sides have many blocks and the noise is two-sided. The simulation in ``experiments/evaluation/confirm_eval.py`` measures the
coverage of the intervals (one-sided and two-sided noise).

Sequential use: the confirmation looks after several rounds and stops when an interval is decisive. To keep the
error rate under repeated looks, each look before the last spends a small fixed error (p < 0.001: Haybittle 1971,
"Repeated assessment of results in clinical trials of cancer treatment", Br J Radiol 44; Peto et al. 1976,
Br J Cancer 34) and the last look the rest; by the union bound every interval of a confirmation covers the truth
together with probability >= 1 - alpha whatever the number of looks (repeated confidence intervals, Jennison &
Turnbull 1989, JRSS B 51). Spending little early keeps nearly all the error for the last look, where a modest
gain is decided; a large gain passes p < 0.001 early anyway.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from statistics import NormalDist

from autotune.measure._aggregate import aggregate

ALPHA = 0.05
INTERIM = 0.001  # the two-sided error each look before the last may spend (Peto's p < 0.001)
TRIM = 0.2  # the share of paired differences trimmed from each end (Wilcox 2012, "Introduction to Robust Estimation")
TRIM_FROM = 5  # trimming starts at five differences, where int(TRIM * n) first trims one (below: Student's t)
_EPS = 1e-12  # a variance floor: identical repeated values (a replayed run) are not infinite evidence


@dataclass(frozen=True)
class Estimate:
    """A log-ratio (positive: the first configuration is better), its variance and degrees of freedom."""

    log: float
    var: float
    df: float

    @property
    def se(self) -> float:
        return math.sqrt(self.var)

    def interval(self, alpha: float = ALPHA) -> tuple[float, float]:
        """The two-sided ``1 - alpha`` t interval on the log-ratio."""
        h = t_quantile(1 - alpha / 2, self.df) * self.se
        return self.log - h, self.log + h


def _better_logs(values: Iterable[float | None], maximize: bool) -> list[float]:
    """Logs of the usable values, signed so that larger is better."""
    return [math.log(v) if maximize else -math.log(v) for v in values if v is not None and v > 0]


def differences(a: Sequence[float | None], b: Sequence[float | None], maximize: bool) -> list[float]:
    """Per-round log-ratios of ``a`` over ``b`` (index r of both measured in round r); rounds where either failed
    are left out."""
    d = []
    for p, q in zip(a, b, strict=False):
        x, y = _better_logs([p], maximize), _better_logs([q], maximize)
        if x and y:
            d.append(x[0] - y[0])
    return d


def block_differences(a: Sequence[Sequence[float | None]], b: Sequence[Sequence[float | None]], maximize: bool,
                      how: str = "median") -> list[float]:
    """Log-ratios of balanced pairs of blocks (a block: one trial's repetitions, run back to back): the i-th block
    of ``a`` with the i-th of ``b`` (in the order given: trial order), each cut to their common number of runs and
    summarised by the campaign's aggregate ``how``. Both sides of a pair get the same summary of the same number of
    runs, so with the same noise law the pair's difference is symmetric about the true log-ratio even when the
    noise is one-sided; blocks left over on the larger side are not used (an unbalanced comparison of skewed
    summaries is biased towards the side with fewer blocks)."""
    xs = [[v for v in blk if v is not None and v > 0] for blk in a]
    ys = [[v for v in blk if v is not None and v > 0] for blk in b]
    out = []
    for x, y in zip([x for x in xs if x], [y for y in ys if y], strict=False):
        k = min(len(x), len(y))
        out.append(_better_logs([aggregate(x[:k], how, maximize)], maximize)[0]
                   - _better_logs([aggregate(y[:k], how, maximize)], maximize)[0])
    return out


def trimmed(d: Sequence[float], trim: float = TRIM, trim_from: int = TRIM_FROM) -> Estimate | None:
    """The ``trim``-trimmed mean of differences symmetric about the true log-ratio, with its Tukey-McLaughlin
    variance (winsorised variance, ``n - 2g - 1`` degrees of freedom: Tukey & McLaughlin 1963, Sankhya A 25;
    Yuen 1974, Biometrika 61). With one-sided noise the paired differences are symmetric but heavy-tailed
    (a difference of exponentials is Laplace), where a trimmed mean is markedly more efficient than the mean;
    below ``trim_from`` differences (``TRIM_FROM`` by default) nothing is trimmed (Student's t). ``None`` below two
    differences."""
    n = len(d)
    if n < 2:
        return None
    s = sorted(d)
    g = int(trim * n) if n >= trim_from else 0
    h = n - 2 * g
    m = sum(s[g:n - g]) / h
    w = [s[g]] * g + s[g:n - g] + [s[n - g - 1]] * g
    mw = sum(w) / n
    sw2 = sum((x - mw) ** 2 for x in w) / (n - 1)
    return Estimate(m, max((n - 1) * sw2 / (h * (h - 1)), _EPS), h - 1)


def paired(a: Sequence[float | None], b: Sequence[float | None], maximize: bool, trim: float = TRIM) -> Estimate | None:
    """``a`` over ``b`` from rounds (``differences``), by ``trimmed``; ``None`` below two complete rounds."""
    return trimmed(differences(a, b, maximize), trim)


def unpaired(a: Sequence[Sequence[float | None]], b: Sequence[Sequence[float | None]], maximize: bool) -> Estimate | None:
    """``a`` over ``b`` from runs not taken in pairs, blocked: each inner sequence is one block of runs taken back
    to back (a trial's repetitions), summarised by its mean log; the variance between blocks (pooled over both
    sides: load and drift between trials included) gives a two-sample t. ``None`` without a block on each side
    or without two blocks on one side."""
    ma = [sum(x) / len(x) for x in (_better_logs(blk, maximize) for blk in a) if x]
    mb = [sum(x) / len(x) for x in (_better_logs(blk, maximize) for blk in b) if x]
    df = len(ma) + len(mb) - 2
    if not ma or not mb or df < 1:
        return None
    ca, cb = sum(ma) / len(ma), sum(mb) / len(mb)
    s2 = (sum((x - ca) ** 2 for x in ma) + sum((x - cb) ** 2 for x in mb)) / df
    return Estimate(ca - cb, max(s2 * (1 / len(ma) + 1 / len(mb)), _EPS), df)


def combine(parts: Iterable[Estimate | None]) -> Estimate | None:
    """Independent estimates of one log-ratio pooled by inverse-variance weights (Meier's variance, Satterthwaite's df)."""
    ps = [p for p in parts if p is not None]
    if not ps:
        return None
    w = [1 / p.var for p in ps]
    tot = sum(w)
    c = [wi / tot for wi in w]
    # weights estimated from the same data understate the variance: Meier's (1953) first-order correction
    var = (1 + 4 * sum(ci * (1 - ci) / p.df for ci, p in zip(c, ps, strict=True))) / tot
    df = (1 / tot) ** 2 / sum(ci ** 4 * p.var ** 2 / p.df for ci, p in zip(c, ps, strict=True))
    return Estimate(sum(ci * p.log for ci, p in zip(c, ps, strict=True)), var, df)


def margin(log_ratio: float, maximize: bool) -> float:
    """A log-ratio as the project's advantage: +x = x*100% more bandwidth, or x*100% less time."""
    return math.exp(log_ratio) - 1 if maximize else 1 - math.exp(-log_ratio)


def spend(final: bool, used: float, alpha: float = ALPHA, interim: float = INTERIM) -> float:
    """The error a look may spend when ``used`` is spent: ``interim`` before the last look, the rest at the last
    (Haybittle 1971, Br J Radiol 44; Peto et al. 1976, Br J Cancer 34: p < 0.001 at interim looks)."""
    left = max(alpha - used, 0.0)
    return left if final else min(interim, left)


def looks(rounds: int, first: int = 3) -> list[int]:
    """The rounds after which a confirmation of at most ``rounds`` looks: ``first``, then about x1.5 each time,
    and always the last."""
    out, n = [], min(first, rounds)
    while n < rounds:
        out.append(n)
        n = max(n + 1, round(n * 1.5))
    return [*out, rounds]


def t_quantile(p: float, df: float) -> float:
    """Student's t quantile (bisection on the CDF; no SciPy in the core)."""
    if df > 1e6:
        return NormalDist().inv_cdf(p)
    if p < 0.5:
        return -t_quantile(1 - p, df)
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        hi *= 2
        if hi > 1e12:
            return math.inf
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if t_cdf(mid, df) < p else (lo, mid)
    return (lo + hi) / 2


def t_cdf(t: float, df: float) -> float:
    """Student's t CDF through the regularised incomplete beta function."""
    x = df / (df + t * t)
    tail = 0.5 * _betainc(df / 2, 0.5, x)
    return 1 - tail if t >= 0 else tail


def _betainc(a: float, b: float, x: float) -> float:
    """Regularised incomplete beta I_x(a, b) (continued fraction, Numerical Recipes 6.4)."""
    if x <= 0:
        return 0.0
    if x >= 1:
        return 1.0
    front = math.exp(math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x))
    if x < (a + 1) / (a + b + 2):
        return front * _betacf(a, b, x) / a
    return 1 - front * _betacf(b, a, 1 - x) / b


def _betacf(a: float, b: float, x: float) -> float:
    tiny = 1e-300
    c, d = 1.0, 1 - (a + b) * x / (a + 1)
    d = 1 / (d if abs(d) > tiny else tiny)
    h = d
    for m in range(1, 300):
        for num in (m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
                    -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1))):
            d = 1 + num * d
            d = 1 / (d if abs(d) > tiny else tiny)
            c = 1 + num / c
            c = c if abs(c) > tiny else tiny
            h *= d * c
        if abs(d * c - 1) < 1e-14:
            break
    return h
