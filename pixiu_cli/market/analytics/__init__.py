"""Local analytics on stored bars: backtest profiles, signals, alerts and the decision track
record. numpy is imported here and only here, lazily by the commands that need it."""
