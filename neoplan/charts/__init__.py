"""Plotly figures drawn from Result only: no model logic here. One module per page family."""

from .base import PALETTE, STYLE, TEMPLATE, capex_figure, figure, node_bom_figure

__all__ = ["PALETTE", "STYLE", "TEMPLATE", "capex_figure", "figure", "node_bom_figure"]
