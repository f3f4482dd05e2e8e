"""Hark: typed tools and a screen worker for voice agents, with a Rust core."""

from hark._core import __version__

__all__ = ["__version__"]
