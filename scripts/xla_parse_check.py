#!/usr/bin/env python3
"""Checks HLO text files with XLA's own HLO text parser, as shipped in jaxlib.

For each FILE prints "OK FILE" (with the module name and instruction count) or
"FAIL FILE" followed by XLA's error, and exits 1 if any file failed (2 on usage
errors). Run through scripts/xla_parse_check.sh, which provides a venv with jax.

The parser is jaxlib's binding of xla::ParseAndReturnUnverifiedModule:
jax._src.lib.hlo.hlo_module_from_text (module jaxlib._hlo). It checks syntax,
names, operand references, attributes and the shapes written on instructions
against the parser's own rules, but does not run the HLO verifier.
"""
import argparse
import os
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")


def find_parser():
    """XLA's HLO text parser entry point; older jaxlibs named it elsewhere."""
    try:
        from jax._src.lib import hlo  # jaxlib >= 0.8: jaxlib._hlo
        return hlo.hlo_module_from_text
    except (ImportError, AttributeError):
        pass
    from jax._src.lib import xla_client  # older jaxlib: xla_extension
    for owner in (getattr(xla_client, "_xla", None), xla_client):
        fn = getattr(owner, "hlo_module_from_text", None)
        if fn is not None:
            return fn
    sys.exit("xla_parse_check: this jaxlib exposes no hlo_module_from_text")


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("files", nargs="+", metavar="FILE")
    ap.add_argument("-q", "--quiet", action="store_true", help="print failures only")
    args = ap.parse_args()

    parse = find_parser()
    failed = 0
    for path in args.files:
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
            module = parse(text)
        except Exception as e:  # JaxRuntimeError / XlaRuntimeError, OSError, ...
            failed += 1
            print(f"FAIL {path}\n{e}".rstrip() + "\n", flush=True)
            continue
        if not args.quiet:
            count = sum(len(c.instructions()) if hasattr(c, "instructions") else 0
                        for c in module.computations())
            print(f"OK {path} (module {module.name}, {len(list(module.computations()))} "
                  f"computations, {count} instructions)", flush=True)
    print(f"{len(args.files) - failed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
