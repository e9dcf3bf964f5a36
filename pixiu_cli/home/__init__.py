"""The investor's home as a whole: its data set as one document (import, export, merge), the config file and the demo."""
