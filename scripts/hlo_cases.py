"""Writes one test case as the data scripts do: NAME.hlo, NAME.inI.npy (one per parameter)
and NAME.outI.npy (one per output) in a folder."""
import os

import numpy as np


def write_case(folder, name, hlo_text, args, outputs):
    with open(os.path.join(folder, name + ".hlo"), "w") as f:
        f.write(hlo_text)
    if not isinstance(outputs, (tuple, list)):
        outputs = (outputs,)
    for i, a in enumerate(args):
        np.save(os.path.join(folder, f"{name}.in{i}.npy"), np.asarray(a))
    for i, o in enumerate(outputs):
        np.save(os.path.join(folder, f"{name}.out{i}.npy"), np.asarray(o))
    return outputs
