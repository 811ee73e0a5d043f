"""What a pipeline job returns instead of raising (see dataset.workers): the message and
traceback cross process boundaries as text, and the consumer raises RuntimeError naming what
failed."""
import traceback


class Failure:
    """What a job returns instead of raising: a message for the user and the traceback."""

    def __init__(self, message, details="", cause=None):
        self.message = message
        self.details = details
        self.cause = cause  # the exception itself, only when the job ran in this process

    def raise_error(self):
        text = self.message
        if self.cause is None and self.details:
            text += "\n\nTraceback in the worker:\n" + self.details.rstrip()
        raise RuntimeError(text) from self.cause


def failure_from(error, message):
    """A Failure for `error` caught while running a job."""
    return Failure(f"{message}: {type(error).__name__}: {error}", traceback.format_exc(), error)
