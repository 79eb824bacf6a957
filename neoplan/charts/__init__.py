"""Charts drawn from Result only, as Vega-Lite specifications (:mod:`.spec`): no model logic here. One module per
page family."""

from .base import PALETTE, STYLE, TEMPLATE, capex_figure, figure, node_bom_figure
from .spec import Spec

__all__ = ["PALETTE", "STYLE", "TEMPLATE", "Spec", "capex_figure", "figure", "node_bom_figure"]
