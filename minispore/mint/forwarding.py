"""Names a mint module takes from a minispore namespace when it has them: the functions and
layers whose MindSpore signature is already PyTorch's (mint.nn.ReLU is nn.ReLU)."""


def forwarder(module_name, source, names):
    """(__getattr__, __dir__) for module `module_name`: `names` found in `source` are its
    attributes too (looked up when read, so names that source gains later count)."""
    def getattr_(name):
        if name in names and hasattr(source, name):
            return getattr(source, name)
        raise AttributeError(f"module {module_name!r} has no attribute {name!r}")

    def dir_(module_globals):
        return sorted(set(module_globals) | {n for n in names if hasattr(source, n)})
    return getattr_, dir_
