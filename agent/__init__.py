"""uav-spatial-agent: tool-augmented spatial reasoning for low-altitude drone imagery."""

__version__ = "0.1.0"
