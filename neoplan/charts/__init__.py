"""Charts drawn from Result only, as Vega-Lite specifications (:mod:`.spec`): no model logic here. One module per
page family."""

from .base import PALETTE, capex_figure, node_bom_figure
from .spec import Spec

__all__ = ["PALETTE", "Spec", "capex_figure", "node_bom_figure"]
