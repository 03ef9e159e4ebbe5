"""Tilescope from Python: reports through reportlib (tilescope.pva, with
libpva's names) and what PopVision's libpva has not: summary(), sql() and
compare(). See docs/python.md."""
from . import pva
from .pva import Error, compare, openReport
from ._trace import Trace, openTrace

__all__ = ["Error", "Trace", "compare", "openReport", "openTrace", "pva"]
