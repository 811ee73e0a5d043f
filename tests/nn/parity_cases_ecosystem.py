"""Mode-parity entries for the Cells of the ecosystem issue (export and load)."""
CASES = []

NOT_A_CASE = {
    "GraphCell": "runs a loaded ONNX graph with onnxruntime, inference only (no parameters to "
                 "train): tests/ecosystem/test_export.py",
}
