"""Market data: price sources, unadjusted bars, corporate actions and adjustment on read,
the trading calendar, holdings valuation and charts. Tests never touch the network."""
