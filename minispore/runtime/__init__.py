"""Tensors, dtypes, devices and the interpreters that run primitives (eager now, traced later)."""
