"""libpva's module name: `import pva; pva.openReport(...)` runs on
Tilescope reports (the objects are tilescope.pva's)."""
from tilescope.pva import *  # noqa: F401,F403
from tilescope.pva import __all__  # noqa: F401
