"""neoplan: capacity planning for GPU clouds, from bill of materials to IRR.

>>> import neoplan
>>> result = neoplan.evaluate(neoplan.load_scenario("optimized"))
>>> result.node_capex_usd
256400.0
"""

from .model import Result, evaluate
from .pricebook import PriceBook, default_price_book
from .scenario import Scenario, ScenarioError, load_scenario, parse_scenario, preset_names, save_scenario
from .search import SearchResult, search

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
