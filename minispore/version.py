"""The package version, in one place (the kernel cache keys on it)."""
__version__ = "0.1.0"
