from data_helpers import dataset_seed  # noqa: F401  (autouse for every dataset test)
