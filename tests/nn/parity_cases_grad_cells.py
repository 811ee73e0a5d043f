"""The gradient cells (WithGradCell, ForwardValueAndGrad, Jvp, Vjp) return gradients rather
than train a layer: test_grad_cells.py runs each in both modes and in a training loop."""

CASES = []

NOT_A_CASE = {
    "WithGradCell": "returns gradients, no layer: both modes in test_grad_cells.py",
    "ForwardValueAndGrad": "returns (loss, gradients): both modes and a training loop in "
                           "test_grad_cells.py",
    "Jvp": "a forward-mode product of a function: both modes in test_grad_cells.py",
    "Vjp": "a reverse-mode product of a function: both modes in test_grad_cells.py",
}
