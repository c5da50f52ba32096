"""Reference answer for notebooks/00_start_here.ipynb."""

import numpy as np

# alpha / T -> 0 for every score as T -> infinity, so softmax(alpha / T) -> uniform; at any finite T it is not
UNIFORM_TEMPERATURE = np.inf
