"""The daily brief, its schedule, and pushing it (and alerts) to the investor's channels."""
