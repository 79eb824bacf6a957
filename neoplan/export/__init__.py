"""Exports of a Result (being split by job: see neoplan/export/sheets.py)."""

from .sheets import *  # noqa: F403
