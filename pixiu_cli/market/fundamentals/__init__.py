"""A company's fundamentals: valuation, report periods, dividends, forecasts; their sources, sync, store and views."""
