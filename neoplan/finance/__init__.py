"""The money: the monthly engine (vectorised across cases), debt, tax and depreciation, IRR and NPV, the solvers
over the engine, the lender's view and the financial statements."""
