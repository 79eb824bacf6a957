"""neoplan: capacity planning for GPU clouds, from bill of materials to IRR.

>>> import neoplan
>>> result = neoplan.evaluate(neoplan.load_scenario("optimized"))
>>> result.node_capex_usd
256400.0
"""

from .analysis.search import SearchResult, search
from .errors import ScenarioError
from .inputs.loading import load_scenario, parse_scenario, save_scenario
from .inputs.presets import preset_names
from .inputs.pricebook import PriceBook, default_price_book
from .inputs.scenario import Scenario
from .model import Result, evaluate

__all__ = [
    "PriceBook",
    "Result",
    "Scenario",
    "ScenarioError",
    "SearchResult",
    "default_price_book",
    "evaluate",
    "load_scenario",
    "parse_scenario",
    "preset_names",
    "save_scenario",
    "search",
]
__version__ = "0.1.0"
