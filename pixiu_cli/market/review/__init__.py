"""The market as a whole on one session: breadth from a snapshot, industry boards, the review."""
