"""The quote review's one error type."""

from __future__ import annotations


class QuoteError(ValueError):
    """A quote that cannot be read; the one-line message says why and is shown as is."""
