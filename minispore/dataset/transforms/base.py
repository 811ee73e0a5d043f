"""The base class of every dataset transform (transforms, vision and text)."""
from ..serialization import record_init


class TensorOperation:
    """A transform: call it on numpy arrays (eagerly) or give it to `Dataset.map`.

    Subclasses implement `__call__(*columns)`, returning an array or a tuple of arrays; a
    random transform sets `random = True` and draws from `dataset.randomness`, which makes
    its choices reproducible per sample in pipelines.
    """

    random = False

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        record_init(cls, "transform")  # for serialize / deserialize

    def __call__(self, *columns):
        raise NotImplementedError

    def __repr__(self):
        fields = ", ".join(f"{k}={v!r}" for k, v in vars(self).items() if not k.startswith("_"))
        return f"{type(self).__name__}({fields})"


def check_prob(prob, api):
    if isinstance(prob, bool) or not isinstance(prob, (int, float)) or not 0 <= prob <= 1:
        raise ValueError(f"{api}: prob must be a number in [0, 1], got {prob!r}")
    return float(prob)
