"""Figures and slider panels: one colour, line style and marker per model everywhere."""
from . import theme

theme.use()   # every figure's resolution and font sizes (flexlib/viz/theme.py)
