"""The digits CNN trained by several processes at once (data parallel, MPI).

    mpirun -n 2 python -m mpi4py -m minispore.examples.digits_data_parallel [--mode graph]

Every rank builds the same network (the same seed), reads its own shard of the training set
(datasets shard by rank in a data-parallel job) and applies the gradients all-reduced across
the ranks, so the ranks stay identical; rank 0 alone writes the checkpoint. Run without
mpirun it is a one-process world and trains as `minispore.examples.digits` does.
"""
import argparse
import os
import tempfile

import minispore as ms
from minispore import dataset as ds
from minispore.communication import comm_func, get_group_size, get_rank, init
from minispore.examples.digits import DigitsCNN, build_model, load_data, train_and_evaluate


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m minispore.examples.digits_data_parallel")
    parser.add_argument("--mode", choices=["pynative", "graph"], default="pynative")
    parser.add_argument("--epochs", type=int, default=10)
    args = parser.parse_args(argv)

    init()
    rank, size = get_rank(), get_group_size()
    ms.set_auto_parallel_context(parallel_mode=ms.ParallelMode.DATA_PARALLEL,
                                 gradients_mean=True)
    ms.set_context(mode=ms.GRAPH_MODE if args.mode == "graph" else ms.PYNATIVE_MODE)
    ms.set_seed(0)                                  # the same initial weights on every rank
    x_train, x_test, y_train, y_test = load_data(0)
    train = ds.NumpySlicesDataset((x_train, y_train), ["image", "label"]).batch(32)
    test = ds.NumpySlicesDataset((x_test, y_test), ["image", "label"], shuffle=False).batch(256)
    log = print if rank == 0 else (lambda *a: None)
    log(f"{size} rank(s), {args.mode} mode; each reads {train.get_dataset_size()} batches of "
        f"its shard per epoch")
    network = DigitsCNN()
    _, accuracy = train_and_evaluate(build_model(network), train, test, args.epochs,
                                     progress_bar=False, log=log)
    path = os.path.join(tempfile.gettempdir(), "minispore_digits_data_parallel.ckpt")
    ms.save_checkpoint(network, path)               # written by rank 0 only
    comm_func.barrier()
    log(f"checkpoint: {path}; rank 0 test accuracy on its shard {accuracy:.2%}")


if __name__ == "__main__":
    main()
