"""Pure vision and geometry tools: numpy arrays and small dataclasses in, the same out.

Nothing in this package knows about MCP, LangGraph or benchmarks.
"""

import os

# Idle OpenMP threads of torch's CPU pool (the learned matcher, the detector) spin for their next parallel region by
# default, and on a machine whose other cores are busy that spinning takes the CPU time the working threads need.
# Measured on the 640x480 oblique pair (ALIKED + LightGlue, 2 cores, load average 13, A/B in one run): 9.2 CPU s
# and 18.7 s wall with spinning, 5.7 CPU s and 11.4 s with passive waits. The OpenMP runtime reads the policy when it
# loads, at the process's first ``import torch``: it is set here, before any tool imports torch; a value the user
# set wins.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
