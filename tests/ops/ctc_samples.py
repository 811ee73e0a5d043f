"""SAMPLES of the CTC primitives (minispore.ops.ctc), merged into test_registry's table.

`recipes(b)` takes test_registry's sample builders, as surface_samples does. Log-probabilities
need not be normalised: the recursions and their derivative hold for any values."""
import numpy as np

# the alpha table is returned for inspection, with no gradient by design
NO_GRADIENT = {"ctc_log_alpha"}
FIRST_ORDER_ONLY = {
    "ctc_loss_grad": "the exact gradient of ctc_loss; a second derivative with respect to "
                     "log_probs would need the recursions' own derivatives",
}


def _lattice(rng, b):
    """(log_probs (6, 3, 4), targets (3, 3) with a repeated label, input and target lengths;
    the third sample has an empty target)."""
    targets = np.array([[1, 1, 2], [3, 2, 1], [2, 3, 1]])
    return (b.normal(rng, (6, 3, 4)), targets, np.array([6, 5, 4]), np.array([3, 2, 0]))


def recipes(b):
    sample = b.sample
    return {
        "ctc_loss": lambda rng: [
            sample(*_lattice(rng, b), blank=0, zero_infinity=False),
            # blank 3 (the last class), and an alignment that cannot fit: loss 0 with
            # zero_infinity
            sample(b.normal(rng, (3, 2, 4)), np.array([[1, 1], [0, 2]]), np.array([3, 2]),
                   np.array([2, 2]), blank=3, zero_infinity=True)],
        "ctc_loss_grad": lambda rng: sample(*_lattice(rng, b), b.normal(rng, (3,)), blank=0,
                                            zero_infinity=False),
        "ctc_log_alpha": lambda rng: sample(*_lattice(rng, b), blank=0),
    }
