"""Evals, the two kinds `pixiu eval` runs. Context evals (`context_*.py`): does the
`[上下文信息]` block hold the facts the model needs for a question? No model is called.
Answer evals (`answer_*.py`, `pixiu eval --live`): questions through the real agent loop
against a model, the replies graded against ground truth computed from each case's data set."""
