"""Answer-level evals: run questions through the real agent loop against a model and grade
the replies against ground truth computed from each case's data set (`pixiu eval --live`)."""
