"""CUDA-graph replay: a compiled program on the GPU launched as one recorded graph.

Run step by step, a Program on the GPU makes one CuPy call per step, each 10-50 us of Python:
a training step of ~40 steps spends milliseconds on the host for a fraction of one on the GPU.
On its second call (shapes are static: the jit cache keys on them) a `ReplayedProgram`
records its launches into a CUDA graph, and from then on launches the whole graph at once.

Why a replay is never stale and never writes into a caller's data:
* the graph reads and writes memory of its own only: each call copies its inputs into the
  graph's input buffers (device to device) and its results out into fresh arrays, so no
  caller ever holds a buffer that a later replay overwrites;
* intermediates come from a memory pool private to the recording and kept with it: their
  addresses stay valid for every replay, and no other array is ever given that memory;
* a program with a step that talks to the host (`Primitive.host_io`: dropout's mask drawn by
  numpy, print, a loop condition tested in Python) is never recorded; a step that would
  synchronise with the host makes the recording fail, and the program runs step by step;
* the recording is checked once: its first replay must equal, bit for bit, the step-by-step
  run of the same inputs, or the program is never replayed (the reason is logged).

A replay pays off when a program launches many steps over small arrays (a training step);
a single kernel over large arrays (a 64 MB elementwise chain) would only gain two more passes
over memory, so `worth_replaying` weighs the host time saved against the copies.
MINISPORE_CUDA_GRAPHS=0 turns replay off.
"""
import logging
import os

from ..executor import Program

log = logging.getLogger("minispore.jit")

_recording = [False]  # a program run while another one is being recorded runs step by step

# rough costs, for `worth_replaying`: the host time of a step run by Python and CuPy, of one
# copy into or out of a recording, and a device-to-device copy rate (conservative: 1 TB/s)
_HOST_US_PER_STEP = 15.0
_HOST_US_PER_COPY = 4.0
_COPY_BYTES_PER_US = 1e6


def enabled():
    return os.environ.get("MINISPORE_CUDA_GRAPHS", "1") != "0"


class ReplayedProgram(Program):
    """A Program whose calls, from the second on, replay a CUDA graph of its first run's
    launches (see the module docstring). `why_not` says why a program is not replayed."""

    def __init__(self, graph, steps_for, donations=(), in_place_kernel=None):
        super().__init__(graph, steps_for, donations, in_place_kernel)
        host_io = [node.prim.name for node in graph.nodes if node.prim.host_io]
        self.why_not = ("MINISPORE_CUDA_GRAPHS=0" if not enabled() else
                        f"ops.{host_io[0]} exchanges data with the host" if host_io else None)
        self.calls = 0
        self.recording = None

    def run(self, inputs):
        recording = self.recording
        if recording is not None and recording.fits(inputs):
            return recording.replay(inputs)
        outs = Program.run(self, inputs)
        self.calls += 1
        if self.calls == 2 and self.why_not is None and not _recording[0]:
            self.why_not = worth_replaying(len(self.steps), list(inputs) + list(outs))
            if self.why_not is None:
                self._record(inputs, outs)
        return outs

    def _record(self, inputs, reference):
        try:
            recording = Recording(lambda arrays: Program.run(self, arrays), inputs)
            difference = recording.difference(inputs, reference)
        except Exception as e:  # an unsupported call while recording: stay step by step
            self.why_not = f"recording failed: {type(e).__name__}: {e}"
        else:
            self.why_not = difference
            self.recording = recording if difference is None else None
        if self.why_not is not None:
            log.debug("program not replayed as a CUDA graph: %s", self.why_not)


def worth_replaying(n_steps, arrays):
    """None if replaying `n_steps` steps saves more host time than copying `arrays` (the
    inputs and outputs) costs, else why not."""
    saved = n_steps * _HOST_US_PER_STEP
    cost = (len(arrays) * _HOST_US_PER_COPY
            + sum(a.nbytes for a in arrays) / _COPY_BYTES_PER_US)
    if saved > cost:
        return None
    return (f"a replay would cost more than it saves ({n_steps} steps, copies of "
            f"{len(arrays)} arrays)")


class Recording:
    """run(arrays) recorded into a CUDA graph over input buffers of the inputs' shapes."""

    def __init__(self, run, inputs):
        import cupy
        if not all(isinstance(x, cupy.ndarray) for x in inputs):
            raise TypeError("an input is not on the device")
        self.pool = cupy.cuda.MemoryPool()  # private: the graph owns every address it uses
        stream = cupy.cuda.Stream(non_blocking=True)  # a capture cannot use the null stream
        _recording[0] = True
        try:
            with cupy.cuda.using_allocator(self.pool.malloc), stream:
                self.inputs = [cupy.empty(x.shape, x.dtype) for x in inputs]
                stream.begin_capture()
                try:
                    outputs = run(self.inputs)
                except BaseException:
                    _end_quietly(stream)
                    raise
                self.graph = stream.end_capture()
        finally:
            _recording[0] = False
        self.outputs = outputs
        self.signature = [(x.shape, x.dtype) for x in inputs]
        self.ndarray = cupy.ndarray

    def fits(self, inputs):
        """Whether `inputs` have the recorded shapes and dtypes (a Parameter's set_data may
        change them without changing the jit cache key of its program)."""
        return all(x.shape == shape and x.dtype == dtype
                   for x, (shape, dtype) in zip(inputs, self.signature))

    def replay(self, inputs):
        ndarray = self.ndarray
        for buffer, x in zip(self.inputs, inputs):
            if type(x) is ndarray and x.flags.c_contiguous:  # the common case: one memcpy
                if x.nbytes:
                    buffer.data.copy_from_device_async(x.data, x.nbytes)
            else:
                buffer[...] = x
        self.graph.launch()
        return [y.copy() for y in self.outputs]

    def difference(self, inputs, reference):
        """None if a replay on `inputs` gives `reference` bit for bit, else what differs."""
        import cupy
        for k, (got, want) in enumerate(zip(self.replay(inputs), reference)):
            if got.shape != want.shape or got.dtype != want.dtype:
                return f"output {k}: {got.dtype}{got.shape} replayed, {want.dtype}{want.shape} run"
            got_bytes = cupy.ascontiguousarray(got).reshape(-1).view(cupy.uint8)
            want_bytes = cupy.ascontiguousarray(want).reshape(-1).view(cupy.uint8)
            if not bool(cupy.array_equal(got_bytes, want_bytes)):
                return f"output {k} differs between the replay and the step-by-step run"
        return None


def _end_quietly(stream):
    """End a capture that a failed call left open (the capture itself is invalid by now)."""
    try:
        stream.end_capture()
    except Exception:
        pass
