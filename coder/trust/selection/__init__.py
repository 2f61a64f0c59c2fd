"""Several candidate patches for one request and the choice among them: asked for, checked,
grouped, tested, refined and chosen by rules (pipeline.py reads the steps in order)."""

from coder.trust.selection.pipeline import Selection, Setup, make
from coder.trust.selection.show import show
from coder.trust.selection.testing import TestSetup

__all__ = ["Selection", "Setup", "TestSetup", "make", "show"]
