"""One lock for matplotlib's drawing: the course draws from one thread at a time.

Matplotlib is not thread-safe: every figure shares its fonts and its one mathtext parser. ipykernel 7 hands a
widget message to the main thread or to a subshell's thread, so an explorer can be asked for a frame while its
ipympl view redraws, or while a cell draws a figure. Every draw the course makes holds :data:`DRAWING`: an
explorer's frames and redraws, its ipympl view's events, the figures the inline backend shows, and the
training curve.
"""

import threading

DRAWING = threading.RLock()
