"""Charts drawn from Result only, as plotly figures (:mod:`.base`: the house style, the mode bar, hover text in the
app's formats, user text as plain text): no model logic here. One module per page family."""

from .base import PALETTE, STYLE, TEMPLATE, capex_figure, figure, mode_bar, node_bom_figure

__all__ = ["PALETTE", "STYLE", "TEMPLATE", "capex_figure", "figure", "mode_bar", "node_bom_figure"]
