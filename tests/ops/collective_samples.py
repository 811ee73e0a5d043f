"""SAMPLES of the collective primitives (minispore.ops.collective), merged into
test_registry's table. The registry walk runs in one process, a world of one, where each
collective gives its input's values: the walk checks their shape rules, their gradients
(finite differences) and both modes; tests/distributed runs them on 2 MPI ranks."""
from minispore.context.parallel import WORLD_GROUP


def recipes(b):
    sample = b.sample
    return {
        "all_reduce": lambda rng: [sample(b.normal(rng, (2, 3)), op=op, group=WORLD_GROUP)
                                   for op in ("sum", "max", "min")],
        "all_gather": lambda rng: sample(b.normal(rng, (2, 3)), group=WORLD_GROUP),
        "reduce_scatter": lambda rng: sample(b.normal(rng, (2, 3)), op="sum", group=WORLD_GROUP),
        "broadcast": lambda rng: sample(b.normal(rng, (4,)), root=0, group=WORLD_GROUP),
        "barrier": lambda rng: sample(b.normal(rng, (3,)), group=WORLD_GROUP),
    }
