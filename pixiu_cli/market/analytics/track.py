"""The decision track record: every recorded buy or sell scored from the bars 5 and 20
sessions after it. `return_Nd` is the stock's move from the decision price; `outcome_Nd` is
what the decision earned against doing nothing (a buy gains the move, a sell avoids it);
`vs_stock_Nd` is the outcome against the stock's own move from that day's close, i.e. whether
the price and timing beat simply trading at the close."""

from __future__ import annotations

import numpy as np

from pixiu_cli.home.model import Decision
from pixiu_cli.market.analytics.engine import Frame
from pixiu_cli.market.analytics.model import DecisionScore

HORIZONS = (5, 20)


def score(decision: Decision, frame: Frame, scored_at: str) -> DecisionScore:
    values: dict[str, float | None] = {}
    t0 = int(np.searchsorted(np.asarray(frame.dates), decision.decided_at[:10]))
    sign = 1.0 if decision.side == "buy" else -1.0
    for n in HORIZONS:
        ret = outcome = vs = None
        if frame.dates and decision.decided_at[:10] >= frame.dates[0] and t0 + n < len(frame):
            factor = frame.adj_close[t0] / frame.close[t0]
            later = frame.adj_close[t0 + n]
            ret = float(later / (decision.price * factor) - 1)
            own = float(later / frame.adj_close[t0] - 1)
            outcome, vs = sign * ret, sign * (ret - own)
        values[f"return_{n}d"], values[f"outcome_{n}d"], values[f"vs_stock_{n}d"] = ret, outcome, vs
    return DecisionScore(
        decision.id,
        values["return_5d"],
        values["return_20d"],
        values["outcome_5d"],
        values["outcome_20d"],
        values["vs_stock_5d"],
        values["vs_stock_20d"],
        scored_at,
    )
