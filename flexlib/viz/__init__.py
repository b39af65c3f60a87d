"""Figures and slider panels: one colour, line style and marker per model everywhere."""
