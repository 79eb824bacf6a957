"""What the design earns and costs as it runs: operations (failures, availability, goodput), the market's prices,
the contract book and its customers, token serving, operating costs and what the hardware resells for."""
