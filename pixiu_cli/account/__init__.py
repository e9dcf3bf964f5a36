"""The investor's account: fills, broker statements, the ledger, cash, valuation and the reports and explanations of its figures."""
