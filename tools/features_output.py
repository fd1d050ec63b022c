"""Give an exported cell network a second output, `features`: its penultimate layer.

    python tools/features_output.py scan/models/digits.onnx scan/models/digits-2.onnx

The weights are untouched, so `logits` and the calibration stay as they are. The scanner's
per-sheet adaptation (scan/adapt.py) compares cells in this feature space; cv2.dnn in
OpenCV 5 returns only graph outputs, hence the extra output. Needs `onnx` (the [train]
extra); idempotent.
"""

from __future__ import annotations

import sys
from pathlib import Path

FEATURES = "features"  # scan.digit_model.FEATURES_OUTPUT


def add_features_output(path: Path) -> bool:
    """Expose the input of the last Gemm (the logits layer) as `features`; False if done."""
    import onnx
    from onnx import helper

    model = onnx.load(str(path))
    graph = model.graph
    if any(o.name == FEATURES for o in graph.output):
        return False
    last = next(n for n in reversed(graph.node) if n.op_type == "Gemm"
                and "logits" in n.output)
    weight = next(i for i in graph.initializer if i.name == last.input[1])
    width = weight.dims[1] if len(weight.dims) == 2 else weight.dims[0]
    graph.node.append(helper.make_node("Identity", [last.input[0]], [FEATURES],
                                       name="features_out"))
    graph.output.append(helper.make_tensor_value_info(FEATURES, onnx.TensorProto.FLOAT,
                                                      ["n", width]))
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return True


if __name__ == "__main__":
    for arg in sys.argv[1:]:
        print(arg, "updated" if add_features_output(Path(arg)) else "already has features")
