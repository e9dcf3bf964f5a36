"""pixiu: a terminal assistant for Chinese A-share investors, built around context engineering."""

__version__ = "0.1.0"
