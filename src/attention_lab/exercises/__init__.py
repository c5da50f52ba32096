"""Exercise checks, one module per notebook (mirroring ``solutions/notebook_0N.py``), all re-exported here.

Every ``check_*`` returns a :class:`Feedback` and never raises; most are tables run by :mod:`.runner`.
"""

from . import (
    notebook_00,
    notebook_01,
    notebook_02,
    notebook_03,
    notebook_04,
    notebook_05,
    notebook_06,
    notebook_07,
    notebook_08,
    notebook_09,
)
from .feedback import Feedback
from .notebook_00 import *  # noqa: F403 - each module's __all__ is its checks
from .notebook_01 import *  # noqa: F403
from .notebook_02 import *  # noqa: F403
from .notebook_03 import *  # noqa: F403
from .notebook_04 import *  # noqa: F403
from .notebook_05 import *  # noqa: F403
from .notebook_06 import *  # noqa: F403
from .notebook_07 import *  # noqa: F403
from .notebook_08 import *  # noqa: F403
from .notebook_09 import *  # noqa: F403

_MODULES = (
    notebook_00,
    notebook_01,
    notebook_02,
    notebook_03,
    notebook_04,
    notebook_05,
    notebook_06,
    notebook_07,
    notebook_08,
    notebook_09,
)
__all__ = ["Feedback", *(name for module in _MODULES for name in module.__all__)]
