"""What a plan is made of before it is computed: the scenario (schema, files, presets), the dated price book and the
catalogues read from ``data/`` (platforms, categories), and the platform switch."""
