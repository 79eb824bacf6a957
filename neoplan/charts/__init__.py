"""Plotly figures drawn from Result only: no model logic here. One module per page family."""

from .base import LAYOUT, PALETTE, STYLE, capex_figure, figure, node_bom_figure

__all__ = ["LAYOUT", "PALETTE", "STYLE", "capex_figure", "figure", "node_bom_figure"]
