"""Runnable examples: ``python -m minispore.examples.digits`` trains a CNN on 8x8 digits."""
