"""What every GPU test module shares: whether a GPU is usable, and the marks that skip it."""
import pytest


def _why_no_gpu():
    try:
        import cupy
        count = cupy.cuda.runtime.getDeviceCount()
    except Exception as e:  # no CuPy, no driver, no device
        return f"CuPy or the GPU is not usable: {type(e).__name__}: {e}"
    return None if count > 0 else "no CUDA device"


NO_GPU = _why_no_gpu()
GPU_MARKS = [pytest.mark.gpu, pytest.mark.skipif(NO_GPU is not None, reason=str(NO_GPU))]
