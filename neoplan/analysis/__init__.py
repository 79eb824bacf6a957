"""Questions asked of a plan: stress tests (tornado, grids, Monte Carlo), the design search, the article's
recommendations tested (advice) and the alerts a lender would stop at."""
