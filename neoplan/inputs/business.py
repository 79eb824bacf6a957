"""Scenario sections for how the cluster runs and earns: running costs, financing, pricing and the contract book,
the timeline, operations (failures, performance, readiness) and customers."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from ..errors import ScenarioError as ScenarioError  # re-exported: the one input-error type
from .fields import _Section
from .pricebook import BASE_BOOK_DATE, assumed, assumed_count, default_rentals


class Opex(_Section):
    """Running costs other than power and colocation."""

    staff_fte_per_1000_gpus: float = Field(
        assumed("opex.staff_fte_per_1000_gpus"),
        ge=0,
        le=100,
        description="Operations staff per 1,000 GPUs [FTE].",
    )
    staff_loaded_cost_usd: float = Field(
        assumed("opex.staff_loaded_cost_usd"),
        ge=0,
        le=5_000_000,
        description="Fully loaded cost of one FTE per year [USD].",
    )
    support_rate: float = Field(
        assumed("opex.support_rate"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Hardware support after warranty, per year [fraction of hardware capex].",
    )
    remote_hands_usd_per_hour: float = Field(
        assumed("opex.remote_hands_usd_per_hour"),
        ge=0,
        le=10_000,
        description="Colocation remote-hands labour per hour, billed for each hardware repair [USD/hour].",
    )
    insurance_rate: float = Field(
        assumed("opex.insurance_rate"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Insurance per year [fraction of capex].",
    )
    ai_enterprise: bool = Field(
        False, description="Pay NVIDIA AI Enterprise per GPU per year (the article advises against)."
    )
    transit_usd_per_month: float = Field(
        assumed("opex.transit_usd_per_month"),
        ge=0,
        le=10_000_000,
        description="Internet transit and cross-connects [USD/month].",
    )
    ufm_subscription: bool = Field(
        False,
        description="Pay UFM yearly per endpoint instead of the up-front licence (when the subnet manager is UFM).",
    )
    sga_rate: float = Field(
        assumed("opex.sga_rate"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Sales, general and administrative costs [fraction of revenue].",
    )
    opensm_engineering_fte: float = Field(
        assumed("opex.opensm_engineering_fte"),
        ge=0,
        le=10,
        description="Engineering time an OpenSM subnet manager needs instead of a UFM licence (REST wrapper, fabric "
        "tooling, upgrades) [FTE]; paid at the staff cost, as software opex.",
    )
    escalation_per_year: float = Field(
        assumed("opex.escalation_per_year"),
        ge=0,
        le=0.3,
        json_schema_extra={"unit": "fraction"},
        description="Yearly rise of every opex line but SG&A, in steps by project year: year 1 (months 0–11) at "
        "the scenario's prices, each later year × (1 + this) [fraction per year]; nominal, like the hurdle rate.",
    )


class Financing(_Section):
    """How the capex is paid for."""

    debt_share: float = Field(
        0.6, ge=0, le=1, json_schema_extra={"unit": "fraction"}, description="Share of capex funded by debt [fraction]."
    )
    interest_rate: float = Field(
        assumed("financing.interest_rate"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Nominal annual interest rate on the debt, compounding monthly (rate ÷ 12 a month), before the "
        "credit spread [fraction].",
    )
    credit_spread: float = Field(
        assumed("financing.credit_spread"),
        ge=0,
        le=0.3,
        json_schema_extra={"unit": "fraction"},
        description="Credit spread the borrower pays on top of the interest rate: the all-in rate is interest "
        "rate + spread, nominal a year, compounding monthly [fraction].",
    )
    term_months: int = Field(
        assumed_count("financing.term_months"),
        ge=1,
        le=360,
        description="Debt term from the first draw to maturity [months].",
    )
    grace_months: int = Field(6, ge=0, le=120, description="Interest-only months before repayment starts [months].")
    amortization: Literal["annuity", "straight_line", "sculpted"] = Field(
        "annuity",
        description="Repayment profile: annuity (level service), straight line (level principal) or sculpted to "
        "the base case's CFADS at the target DSCR; the schedule is fixed at financial close.",
    )
    sizing: Literal["capex_share", "contracted_revenue"] = Field(
        "capex_share",
        description="How the loan is sized at financial close: capex_share (debt share × capex) or "
        "contracted_revenue (at most the take-or-pay reserved revenue of the first contracts, less its share of "
        "opex, discounted at the loan rate ÷ target DSCR, as delayed-draw loans against customer contracts are).",
    )
    dsra_months: int = Field(
        assumed_count("financing.dsra_months"),
        ge=0,
        le=24,
        description="Debt service reserve: this many months of the largest scheduled debt service, funded by "
        "equity at financial close (the first draw), held in cash without interest and released when the loan is "
        "repaid [months].",
    )
    target_dscr: float = Field(
        assumed("financing.target_dscr"),
        ge=1,
        le=10,
        description="Debt-service cover a sculpted loan is sized at: service = CFADS ÷ this, the loan no larger "
        "than that service repays by maturity [ratio].",
    )
    covenant_dscr: float = Field(
        assumed("financing.covenant_dscr"),
        ge=1,
        le=10,
        description="Minimum DSCR the loan covenant allows in any year of operation; below it the loan is in "
        "breach [ratio].",
    )
    upfront_fee_rate: float = Field(
        assumed("financing.upfront_fee_rate"),
        ge=0,
        le=0.2,
        json_schema_extra={"unit": "fraction"},
        description="Arrangement fee on the debt [fraction of principal].",
    )
    capitalize_idc: bool = Field(
        True,
        description="Add interest during construction to the loan instead of paying it (for tax it is capitalised "
        "into the asset either way and depreciated with it).",
    )
    hurdle_rate: float = Field(
        assumed("financing.hurdle_rate"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Discount rate for NPV and TCO capital recovery (WACC) [fraction per year].",
    )
    tax_rate: float = Field(
        assumed("financing.tax_rate"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Corporate income tax rate [fraction].",
    )
    tax_period_months: int = Field(
        assumed_count("financing.tax_period_months"),
        ge=1,
        le=12,
        description="Tax assessment period: 12 = tax years (project years from the purchase order; each year's "
        "net taxable income is taxed, losses netted within the year and carried forward, the tax paid as it "
        "accrues, so a later loss in the year gives back tax paid earlier in it); 1 = each month taxed on its own, "
        "losses carried forward [months].",
    )
    tax_depreciation: Literal["straight_line", "macrs_5"] = Field(
        "straight_line",
        description="Tax depreciation of the hardware (and capitalised IDC), apart from the book's straight line "
        "over the useful life: straight_line over the tax life, or macrs_5 (US 5-year property, half-year "
        "convention, IRS Pub 946 Table A-1: 20, 32, 19.2, 11.52, 11.52, 5.76 % in the 6 tax years from go-live).",
    )
    tax_life_months: int | None = Field(
        None,
        ge=12,
        le=360,
        description="Tax life of straight-line tax depreciation [months]; empty = the useful life.",
    )
    depreciation_life_months: int | None = Field(
        None,
        ge=12,
        le=360,
        description="Book depreciation life of the hardware, straight line from go-live [months]; empty = the useful "
        "life (timeline.useful_life_months, when the cluster is shut down or sold). An accounting choice apart from "
        "the operating life (CoreWeave 6 years, Nebius 4, analysts argue for less): a shorter life lowers book profit "
        "in the early years, not the cash flows; tax depreciation follows tax_depreciation and tax_life_months.",
    )

    @model_validator(mode="after")
    def _tax_period_is_a_year_or_a_month(self) -> Financing:
        if self.tax_period_months not in (1, 12):
            raise ValueError(
                "financing.tax_period_months must be 12 (tax years) or 1 (each month on its own), "
                f"got {self.tax_period_months}"
            )
        return self

    @model_validator(mode="after")
    def _grace_within_term(self) -> Financing:
        if self.grace_months >= self.term_months:
            raise ValueError(
                f"financing.grace_months must be < financing.term_months ({self.term_months}), got {self.grace_months}"
            )
        return self


class TokenPrices(_Section):
    """Token list prices, per million tokens; empty = the workload's reference price from data/token_prices.csv."""

    input: float | None = Field(
        None,
        ge=0,
        le=1000,
        description="Price of a million input (prompt) tokens at go-live [USD]; empty = the median list price of the "
        "workload's model in data/token_prices.csv.",
    )
    output: float | None = Field(
        None,
        ge=0,
        le=1000,
        description="Price of a million output (generated) tokens at go-live [USD]; empty = the median list price of "
        "the workload's model in data/token_prices.csv.",
    )


class Pricing(_Section):
    """What customers pay."""

    usd_per_gpu_hour: float = Field(
        default_rentals(BASE_BOOK_DATE)["h100-sxm"].usd_per_gpu_hour,
        ge=0,
        le=100,
        description="On-demand price of a GPU-hour at go-live [USD/GPU-hour]; default the H100 on-demand price of "
        "the default book's date, 2024-10 (the on-demand row of data/markets/2024-10/rental_contracts.csv).",
    )
    utilization: float = Field(
        assumed("pricing.utilization"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Share of all sellable GPU-hours customers use at steady state, reserved capacity included "
        "[fraction]. On demand sells what exceeds the reserved share; reserved capacity is paid for whether used or "
        "not, so billed hours never fall below the reserved share.",
    )
    reserved_share: float = Field(
        assumed("pricing.reserved_share"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Share of sellable GPUs under take-or-pay contracts, paid for from go-live whether used or "
        "not; each renewal re-prices to the then-market price [fraction].",
    )
    reserved_price_multiple: float | None = Field(
        None,
        ge=0,
        le=5,
        description="Reserved price as a multiple of the headline price [ratio]; empty = the platform's contract "
        "price for the reserved term ÷ its on-demand price (data/rental_contracts.csv: 1- and 3-year rows, a term "
        "between them interpolated geometrically).",
    )
    reserved_usd_per_gpu_hour: float | None = Field(
        None,
        ge=0,
        le=100,
        description="Pinned price of the first reserved contracts [USD/GPU-hour]; renewals re-price to the market "
        "(multiple × headline × the price path to that date); empty = multiple × headline.",
    )
    reserved_term_months: int = Field(
        assumed_count("pricing.reserved_term_months"),
        ge=1,
        le=120,
        description="Length of reserved contracts before renewal at the then-market price: the headline price "
        "along the price path to that date × the reserved multiple; 12 and 36 months take the 1- and 3-year "
        "contract prices [months].",
    )
    on_demand_price_multiple: float = Field(
        1.0, ge=0, le=5, description="On-demand price as a multiple of the headline price [ratio]."
    )
    price_decline_per_year: float | None = Field(
        None,
        ge=0,
        le=0.95,
        json_schema_extra={"unit": "fraction"},
        description="Flat yearly fall of on-demand and renewal prices [fraction]; empty = the platform "
        "generation's curve by year of age (data/price_curves.csv), the age at go-live taken from the price "
        "book's date plus the go-live month.",
    )
    ramp_months: int = Field(
        assumed_count("pricing.ramp_months"),
        ge=0,
        le=36,
        description="Months after go-live to reach steady utilization [months].",
    )
    sell: Literal["gpu_hours", "tokens", "mix"] = Field(
        "gpu_hours",
        description="What the cluster sells: gpu_hours (rented GPUs), tokens (served through an API, priced per "
        "million tokens) or mix (token_share of the GPU-hours served as tokens, the rest rented); both go through "
        "the same contract book and utilization.",
    )
    token_share: float = Field(
        0.5,
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Share of the sellable GPU-hours served as tokens when sell is mix [fraction].",
    )
    workload: str = Field(
        "llama70b-chat",
        max_length=64,
        description="What is served: a key of data/workloads.csv (llama70b-chat, llama405b-long, llama8b-summarize, "
        "deepseek-r1-reasoning, gpt-oss-120b, …): the model, its precision and the request's input/output tokens.",
    )
    serving_scenario: Literal["offline", "server", "interactive"] = Field(
        "interactive",
        description="Latency the throughput is measured at (data/inference_throughput.csv): interactive (MLPerf's "
        "tighter p99 limits, 25-70 tokens/s per user: the chat speed API list prices are sold at), server (looser "
        "limits, Llama 70B at 5-8 tokens/s per user) or offline (batch, no bound); a platform without an interactive "
        "result takes its server rate × a sibling platform's interactive ÷ server ratio "
        "(data/inference_derivations.csv).",
    )
    serving_load_factor: float = Field(
        assumed("pricing.serving_load_factor"),
        gt=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Tokens served on average as a share of the published benchmark rate at the serving latency "
        "[fraction]: a fleet sized for its busiest hour serves less the rest of the day and keeps headroom for "
        "bursts; tokens only, before utilization and the contract book. "
        f"{assumed('pricing.serving_load_factor'):g} from DeepSeek's published day of serving (2025-03).",
    )
    usd_per_million_tokens: TokenPrices = Field(
        default_factory=TokenPrices,
        description="Token prices per million input and output tokens at go-live [USD]; a request of the workload's "
        "shape pays input × input price + output × output price.",
    )
    token_price_decline_per_year: float | None = Field(
        None,
        ge=0,
        le=0.95,
        json_schema_extra={"unit": "fraction"},
        description="Yearly fall of token prices [fraction]; empty = the same-model trend in "
        "data/token_price_trends.csv (Llama 70B class: 45 % a year; DeepSeek-R1: 4 %).",
    )
    sla_credit_share: float = Field(
        assumed("pricing.sla_credit_share"),
        ge=0,
        le=0.5,
        json_schema_extra={"unit": "fraction"},
        description="Revenue given back as SLA credits [fraction]; used when operations.sla_credits is "
        "fixed_share (the default derives credits from the failure model).",
    )
    receivable_days: float = Field(
        assumed("pricing.receivable_days"),
        ge=0,
        le=180,
        description="Days from the end of the month revenue is earned to the customer's payment: working capital "
        "tied up in receivables, collected at the horizon at the latest; tax follows revenue as earned [days].",
    )


class Timeline(_Section):
    """From purchase order to end of life; month 0 = purchase order."""

    delivery_lead_months: int = Field(
        assumed_count("timeline.delivery_lead_months"),
        ge=0,
        le=36,
        description="Purchase order to delivery at the OEM's dock [months].",
    )
    integration_burn_in_weeks: float = Field(
        assumed("timeline.integration_burn_in_weeks"),
        ge=0,
        le=26,
        description="OEM integration and burn-in before shipping [weeks].",
    )
    site_install_weeks: float = Field(
        assumed("timeline.site_install_weeks"),
        ge=0,
        le=26,
        description="Installation and cabling at the colocation site [weeks].",
    )
    onsite_burn_in_days: float = Field(
        assumed("timeline.onsite_burn_in_days"),
        ge=0,
        le=60,
        description="On-site burn-in before customers get access [days].",
    )
    deposit_share: float = Field(
        assumed("timeline.deposit_share"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Share of capex paid at purchase order; the rest at delivery [fraction].",
    )
    capex_timing: Literal["end_of_month", "mid_month"] = Field(
        "end_of_month",
        description="When in its month a capex payment is made: end_of_month (with every other flow) or mid_month "
        "(half a month earlier, with the debt drawn for it: NPV, IRR and MIRR count it so; the accounts keep it in "
        "its month).",
    )
    horizon_months: int = Field(72, ge=12, le=240, description="Analysis horizon from month 0 [months].")
    useful_life_months: int = Field(
        assumed_count("timeline.useful_life_months"),
        ge=12,
        le=180,
        description="Operating life of the hardware from go-live [months]: its end of service (see end of life: "
        "shut down and sold, or refreshed) when the horizon runs past it; also its book depreciation life unless "
        "financing.depreciation_life_months is set.",
    )
    residual_value_share: float | None = Field(
        None,
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Resale value of the hardware when it leaves service (at the end of its useful life, or at "
        "the horizon if that comes first) [fraction of capex]; empty = the platform's resale curve by age at sale "
        "(data/residual_values.csv: linear between 36, 48, 60 and 72 months, flat beyond either end).",
    )
    end_of_life: Literal["shutdown", "refresh"] = Field(
        "shutdown",
        description="What happens at the end of the useful life when the horizon runs past it: shutdown (revenue "
        "and opex stop, the hardware is sold at the residual value) or refresh (the hardware is sold and a new "
        "cluster of the same design, bought beforehand, goes live the same day and earns a new cluster's price).",
    )
    refresh_capex_multiple: float = Field(
        assumed("timeline.refresh_capex_multiple"),
        ge=0,
        le=5,
        description="Capex of each refresh cluster as a multiple of the designed capex at the price book's prices "
        "[ratio]; its insurance and hardware support follow it. Funded by equity.",
    )


class Operations(_Section):
    """Running the cluster: failures, recovery, delivered performance and the readiness checklist.

    Checklist fields are True when the item is in place; each gap has a priced effect
    (:mod:`neoplan.economics.operations`).
    """

    failure_preset: Literal["article", "llama3"] = Field(
        "article",
        description="Failure rate: article (one job-interrupting failure per 7 days per 512 H100) or llama3 "
        "(Meta: 419 interruptions in 54 days on 16,384 H100).",
    )
    mtbf_multiple: float = Field(
        1.0, ge=0.05, le=20, description="Mean time between failures as a multiple of the preset's [ratio]."
    )
    checkpoint_interval_minutes: float = Field(
        assumed("operations.checkpoint_interval_minutes"),
        ge=1,
        le=1440,
        description="Interval between training checkpoints [minutes]; half of it is lost per interruption.",
    )
    job_share: float = Field(
        assumed("operations.job_share"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Share of the cluster's GPUs one interrupted job spans [fraction].",
    )
    performance_elasticity: float = Field(
        assumed("operations.performance_elasticity"),
        ge=0,
        le=3,
        description="Price change per unit change of delivered performance the customer cannot see at signature "
        "(fabric, rank placement, storage) [ratio]; 1 = customers pay the same per unit of work, 0 = the headline "
        "price whatever the cluster delivers. Reliability moves the market tier instead (customers section).",
    )
    early_life_hazard_multiple: float = Field(
        assumed("operations.early_life_hazard_multiple"),
        ge=1,
        le=1000,
        description="Failure rate of new hardware at power-on as a multiple of the burned-in rate [ratio]; it decays "
        "with the early-life time constant, and burn-in ages the hardware before customers see it.",
    )
    four_nic_refusal_share: float = Field(
        assumed("operations.four_nic_refusal_share"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Share of customers who refuse servers with 4 back-end NICs instead of 8 [fraction]; a lost "
        "segment slows filling (utilization), it does not cut the price.",
    )
    sla_credits: Literal["failure_model", "fixed_share"] = Field(
        "failure_model",
        description="SLA credits from the failure model's unavailability, or the fixed pricing.sla_credit_share.",
    )
    sla_credit_multiple: float = Field(
        assumed("operations.sla_credit_multiple"),
        ge=0,
        le=100,
        description="Credit per unavailable GPU-hour, in GPU-hours of revenue [ratio] (failure_model credits).",
    )
    virtual_machines: bool = Field(False, description="Tenants get virtual machines (then NCCL_TOPO_FILE matters).")
    scheduler: Literal["slurm", "kubernetes", "both", "none"] = Field(
        "slurm", description="Scheduler offered: 70 % of customers want SLURM, 20 % Kubernetes, 10 % their own."
    )
    drivers: bool = Field(True, description="cuda-drivers, fabricmanager and cuda-toolkit installed.")
    ofed: bool = Field(True, description="MLNX_OFED (RDMA stack) installed.")
    gpudirect_rdma: bool = Field(
        True, description="GPUDirect RDMA on (nvidia-peermem and HPC-X): 391 instead of ~80 Gbit/s per NIC."
    )
    shared_storage: bool = Field(True, description="Shared /home/$USER and /data mounted (autofs).")
    pkey_isolation: bool = Field(True, description="Tenants isolated on the back end by InfiniBand pKeys.")
    monitoring: bool = Field(True, description="DCGM and IPMI exporters → Prometheus → Grafana, promtail for dmesg.")
    sdc_checks: bool = Field(True, description="Silent-data-corruption checks (dcgmi diag -r 4 catches ~95 %).")
    nccl_hang_detection: bool = Field(
        True, description="Hang detector (job under 150 W for 4 min) instead of the 30–35 min NCCL watchdog."
    )
    slurm_topology_conf: bool = Field(True, description="SLURM topology.conf for rank placement (else −20–30 %).")
    nccl_topo_file: bool = Field(True, description="NCCL_TOPO_FILE inside VMs (else ~50 % bandwidth).")


class Customers(_Section):
    """What customers do about the cluster's record: the market tier it earns, churn at renewal and the acceptance
    test (:mod:`neoplan.economics.customers`). Tiers are positioned by first-year goodput against the same cluster run
    the reference way (silver = the reference way, the index price)."""

    tier_gap: float = Field(
        assumed("customers.tier_gap"),
        ge=0,
        le=0.5,
        json_schema_extra={"unit": "fraction"},
        description="First-year goodput gap between adjacent market tiers (bronze, silver, gold), relative to the "
        "reference way of running [fraction]; 0 = any shortfall is bronze and any gain gold.",
    )
    churn_gold_per_year: float = Field(
        assumed("customers.churn_gold_per_year"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Reserved customers lost per year at renewal by a gold-tier operator [fraction].",
    )
    churn_silver_per_year: float = Field(
        assumed("customers.churn_silver_per_year"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Reserved customers lost per year at renewal by a silver-tier operator [fraction].",
    )
    churn_bronze_per_year: float = Field(
        assumed("customers.churn_bronze_per_year"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Reserved customers lost per year at renewal by a bronze-tier operator [fraction].",
    )
    premium_gold: float = Field(
        assumed("customers.premium_gold"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="On-demand (list) price premium of a gold-tier operator over the index [fraction]; reserved "
        "contracts sell at the same nominal price whatever the tier.",
    )
    discount_bronze: float = Field(
        assumed("customers.discount_bronze"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="On-demand (list) price discount of a bronze-tier operator under the index [fraction].",
    )
    idle_months: float = Field(
        assumed("customers.idle_months"),
        ge=0,
        le=24,
        description="Months a churned customer's capacity sits unsold before a new contract [months].",
    )
    reacquisition_months: float = Field(
        assumed("customers.reacquisition_months"),
        ge=0,
        le=24,
        description="Cost of winning a replacement customer, in months of the churned customer's revenue [months].",
    )
    acceptance_test_days: float = Field(
        assumed("customers.acceptance_test_days"),
        ge=0,
        le=60,
        description="Length of the customer's acceptance test at go-live, at full scale [days]; 0 = no test.",
    )
    acceptance_pass_probability: float = Field(
        assumed("customers.acceptance_pass_probability"),
        ge=0,
        le=0.999,
        json_schema_extra={"unit": "fraction"},
        description="Chance a burned-in cluster at its steady failure rate passes the acceptance test: the test "
        "allows that quantile of its interruptions [fraction].",
    )
    acceptance_retest_days: float = Field(
        assumed("customers.acceptance_retest_days"),
        ge=0,
        le=90,
        description="Delay of go-live revenue when the acceptance test fails: find and replace the failing parts, "
        "test again [days].",
    )
    acceptance_failure_credit: float = Field(
        assumed("customers.acceptance_failure_credit"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Credit owed when the acceptance test fails [fraction of one month's revenue].",
    )

    @model_validator(mode="after")
    def _ordered(self) -> Customers:
        if not self.churn_gold_per_year <= self.churn_silver_per_year <= self.churn_bronze_per_year:
            raise ValueError(
                "customers: churn must not fall from gold to bronze (churn_gold_per_year ≤ churn_silver_per_year ≤ "
                f"churn_bronze_per_year), got {self.churn_gold_per_year:g}, {self.churn_silver_per_year:g}, "
                f"{self.churn_bronze_per_year:g}"
            )
        return self
