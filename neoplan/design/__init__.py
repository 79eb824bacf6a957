"""The design stage: everything bought before a dollar is earned — the compute node's bill of materials, the
networks (:mod:`.fabric`), storage, the site and its power, and the size that fits a power envelope (:mod:`.sizing`).
:func:`neoplan.design.sizing.design` wires them into one :class:`~neoplan.design.cluster.Design`."""
