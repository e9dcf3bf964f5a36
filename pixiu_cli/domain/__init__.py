"""The domain below the store: the frozen data classes every layer passes around (holdings,
decisions, notes, bars, series, corporate actions, securities, profiles, signals, alerts…),
the stored vocabulary, stock codes and the boards' daily price limits. Nothing here reads a
database or imports another pixiu package; the store builds these types from its rows."""
