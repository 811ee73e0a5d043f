"""Run a MindSpore script unedited on minispore: `python -m minispore.run script.py [args]`.

    $ python -m minispore.run train.py --epochs 2       # `import mindspore` gets minispore
    $ python -m minispore.run -m my_package.train        # a module, as `python -m` would
    $ minispore-run train.py                              # the console script, the same

The script runs as `__main__` with `sys.argv` as it would see it under plain Python; the only
difference is the import hook of `minispore.compat`, so `import mindspore`,
`from mindspore import nn` and `import mindspore.ops.functional as F` are served by minispore.
"""
import argparse
import runpy
import sys

from . import compat


def main(argv: list[str] | None = None) -> None:
    """Parse `[-m module | script] [args...]`, install the hook and run the program."""
    parser = argparse.ArgumentParser(
        prog="python -m minispore.run",
        description="Run a MindSpore script on minispore without editing its imports.")
    parser.add_argument("-m", dest="module", help="run a module as a script, as python -m does")
    parser.add_argument("program", nargs=argparse.REMAINDER,
                        help="the script's path and its arguments (or, with -m, the arguments)")
    args = parser.parse_args(argv)
    if args.module is None and not args.program:
        parser.error("give a script to run, or -m module")
    compat.install()
    try:
        if args.module is not None:
            sys.argv = [args.module, *args.program]
            runpy.run_module(args.module, run_name="__main__", alter_sys=True)
        else:
            sys.argv = list(args.program)
            runpy.run_path(args.program[0], run_name="__main__")
    except (ImportError, AttributeError) as error:
        raise compat.explain_missing_name(error)


if __name__ == "__main__":
    main()
