"""One lock for the course's matplotlib drawing, which may now happen on two threads at once.

Matplotlib is not thread-safe: every figure shares the mathtext parser and the rcParams, and matplotlib's cached
formulas carry the fonts of the thread that first drew them. ipykernel 7 hands a widget message to the main
thread or to a subshell's thread, so an explorer can be asked for a frame while its ipympl view redraws, or
while a cell draws. The course's own drawing holds :data:`DRAWING`: an explorer's construction, frames and
redraws, its ipympl view's events, the diagrams, the figures the inline backend shows (through the course's
formatter, ``use_course_style``) and the training curve. A figure a cell draws by other means (``savefig``
in the reader's own code) does not.
"""

import threading

DRAWING = threading.RLock()
