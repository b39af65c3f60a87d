"""Resolution and font sizes of every figure, in one place (the saved files and the notebooks).

Every figure flexlib draws takes its sizes from here: :data:`RC` (Matplotlib's settings, applied
by :func:`use` when :mod:`flexlib.viz` is imported and again by a notebook's set-up cell after
``%matplotlib inline``) and the named sizes :data:`SMALL` … :data:`TITLE` for the texts a
figure sizes itself (legends, notes, panel titles).  No size is below :data:`MIN_FONT_PT` points
at the figure's own size, and a figure is written at :data:`DPI` dots per inch, so an 8-pt
label is about 17 pixels high in the PNG.
"""
from __future__ import annotations

import matplotlib as mpl

__all__ = ["DPI", "MIN_FONT_PT", "SMALL", "MEDIUM", "LARGE", "TITLE", "RC", "use"]

DPI = 150                 # dots per inch of the PNG files and of the notebooks' inline images
MIN_FONT_PT = 8.0         # the smallest text any figure may have, in points at the figure's size

SMALL = 8.0               # legends, notes under a figure, labels beside points
MEDIUM = 9.0              # tick labels, titles of small panels
LARGE = 10.0              # axis labels, panel titles
TITLE = 11.0              # a figure's title (suptitle)

RC = {
    "figure.dpi": DPI,
    "savefig.dpi": DPI,
    "font.size": LARGE,
    "axes.titlesize": LARGE,
    "axes.labelsize": LARGE,
    "xtick.labelsize": MEDIUM,
    "ytick.labelsize": MEDIUM,
    "legend.fontsize": SMALL,
    "legend.title_fontsize": SMALL,
    "figure.titlesize": TITLE,
    "figure.labelsize": LARGE,
}


def use() -> None:
    """Apply :data:`RC` to Matplotlib's settings (idempotent)."""
    mpl.rcParams.update(RC)
