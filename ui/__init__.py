"""Streamlit helpers shared by app.py and pages/: state, widgets, formats. No model arithmetic here."""
