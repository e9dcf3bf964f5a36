"""The conversation: the loop, the context and its selection, the model client, tokens, cache accounting, the offline server and the evals."""
