"""Spiders of the demo shop project."""
