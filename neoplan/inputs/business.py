"""Scenario sections for how the cluster runs and earns: running costs, financing, the timeline, operations
(failures, performance, readiness) and customers; what it sells (pricing and the contract book) is in
:mod:`neoplan.inputs.sales`, re-exported here."""

from __future__ import annotations

import itertools
from typing import Literal

from pydantic import Field, model_validator

from ..errors import ScenarioError as ScenarioError  # re-exported: the one input-error type
from .fields import _Section
from .loans import Phase, Tranche
from .pricebook import assumed, assumed_count
from .sales import Contract as Contract  # what is sold (re-exported)
from .sales import Pricing as Pricing
from .sales import TokenPrices as TokenPrices


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
    sizing: Literal["dscr", "capex_share", "contracted_revenue"] = Field(
        "dscr",
        description="How the senior loan is sized at financial close: dscr (sculpted to target_dscr on the "
        "contracted cash flow, every take-or-pay contract's term, as far as the forecast cash flow carries it, "
        "capped at max_debt_share of capex; its repayment follows that cash flow whatever amortization says), "
        "capex_share (debt share × capex) or contracted_revenue (at most the contracted cash flow discounted at the "
        "loan rate ÷ target DSCR, repaid by amortization).",
    )
    max_debt_share: float = Field(
        assumed("financing.max_debt_share"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Largest share of capex a loan sized on its contracts (sizing dscr) lends [fraction].",
    )
    lockup_dscr: float = Field(
        assumed("financing.lockup_dscr"),
        ge=0,
        le=10,
        description="Distribution lock-up: a quarterly test of the trailing 12 months' DSCR below this holds the "
        "cash left after debt service and the reserve in the project (it pays later debt service first) until two "
        "tests in a row pass; a covenant breach locks up too [ratio].",
    )
    cash_sweep_share: float = Field(
        assumed("financing.cash_sweep_share"),
        ge=0,
        le=1,
        json_schema_extra={"unit": "fraction"},
        description="Share of each month's cash left after debt service and the reserve that prepays the senior "
        "loan (shortening it), locked up or not; after a covenant breach all of it, and the cash held, until a "
        "test passes the covenant again [fraction].",
    )
    tranches: list[Tranche] = Field(
        default_factory=list,
        max_length=6,
        description="The loans, most senior first (term_loan, delayed_draw, vendor, mezzanine), each a share of "
        "capex (the first may be sized by sizing) with its own rate, term and repayment; empty = one senior loan "
        "of the fields above.",
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
    def _tranches_fit(self) -> Financing:
        for i, tranche in enumerate(self.tranches[1:], start=2):
            if tranche.share is None:
                raise ValueError(
                    f"financing.tranches: only the first tranche may leave share empty (sized by financing.sizing); "
                    f"tranche {i} ({tranche.name!r}) needs one"
                )
        shares = sum(t.share or 0.0 for t in self.tranches)
        if shares > 1.0 + 1e-9:
            raise ValueError(f"financing.tranches: shares of capex must add up to at most 1, got {shares:g}")
        names = [t.name for t in self.tranches]
        if len(set(names)) < len(names):
            raise ValueError(f"financing.tranches: names must differ, got {', '.join(names)}")
        return self

    @model_validator(mode="after")
    def _grace_within_term(self) -> Financing:
        if self.grace_months >= self.term_months:
            raise ValueError(
                f"financing.grace_months must be < financing.term_months ({self.term_months}), got {self.grace_months}"
            )
        return self


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
    phases: list[Phase] = Field(
        default_factory=list,
        max_length=12,
        description="A phased build: each phase a share of the cluster delivered delay_months after the first "
        "phase's delivery (the first at 0), its capex, draws, power, staff, opex and revenue following it; empty = "
        "the whole cluster at once.",
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

    @model_validator(mode="after")
    def _phases_add_up(self) -> Timeline:
        if not self.phases:
            return self
        total = sum(p.share for p in self.phases)
        if abs(total - 1.0) > 1e-9:
            raise ValueError(f"timeline.phases: shares must add up to 1, got {total:g}")
        delays = [p.delay_months for p in self.phases]
        if delays[0] != 0 or any(b < a for a, b in itertools.pairwise(delays)):
            raise ValueError(
                "timeline.phases: the first phase's delay_months must be 0 and the others must not fall, got "
                + ", ".join(f"{d:g}" for d in delays)
            )
        return self


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
