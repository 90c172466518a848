"""The steps of a run that the targets share: load the inputs and compile alongside (load.py),
validate the data (validate_data.py), build (build.py), record (record.py), the run locks
(locks.py), progress lines (progress.py). The targets (compiler/targets/) put them together;
compiler/runner.py picks the target."""
