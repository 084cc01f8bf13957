"""Build CodeSearchNet-style (function, docstring) pairs from real source on this machine.

Prints what each filter stage removed. The shipped Go corpus is rebuilt with:
    python -m qidf_research.build_corpus go --out qidf_ctl/demo/data/go-stdlib.jsonl.gz
Java (JDK src.zip, GPLv2+CPE) and Python (CPython stdlib) are built locally, not shipped:
    python -m qidf_research.build_corpus java --out .qidf/corpora/java-jdk.jsonl.gz
    python -m qidf_research.build_corpus python --out .qidf/corpora/python-stdlib.jsonl.gz
"""

from __future__ import annotations

import argparse
import glob
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

from qidf_research.corpora import build_go, build_java, build_python, write_pairs
from qidf_research.corpora.extract import BuildStats


def default_goroot() -> str | None:
    """``go env GOROOT`` when Go is installed, else /usr/local/go if it exists."""
    try:
        res = subprocess.run(["go", "env", "GOROOT"], capture_output=True, text=True, check=True)
        if res.stdout.strip():
            return res.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    return "/usr/local/go" if Path("/usr/local/go/src").is_dir() else None


def default_src_zip() -> str | None:
    """The JDK's src.zip next to $JAVA_HOME, or the first one under /usr/lib/jvm."""
    home = os.environ.get("JAVA_HOME")
    if home and (Path(home) / "lib" / "src.zip").is_file():
        return str(Path(home) / "lib" / "src.zip")
    found = sorted(glob.glob("/usr/lib/jvm/*/lib/src.zip"))
    return found[0] if found else None


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, build one language's pairs, print stage counts, write the file."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("language", choices=["go", "java", "python"])
    ap.add_argument("--out", required=True, help="output .jsonl or .jsonl.gz")
    ap.add_argument("--goroot", default=None, help="Go source tree (default: go env GOROOT)")
    ap.add_argument("--src-zip", default=None, help="JDK lib/src.zip (default: auto)")
    ap.add_argument(
        "--libdir",
        default=None,
        help="CPython stdlib dir (default: this interpreter's, sysconfig 'stdlib')",
    )
    args = ap.parse_args(argv)

    stats = BuildStats()
    if args.language == "go":
        root = args.goroot or default_goroot()
        if not root:
            ap.error("no Go toolchain found: pass --goroot")
        pairs = build_go(Path(root), stats)
    elif args.language == "java":
        src = args.src_zip or default_src_zip()
        if not src:
            ap.error("no JDK src.zip found: pass --src-zip")
        pairs = build_java(Path(src), stats)
    else:
        lib = args.libdir or sysconfig.get_paths()["stdlib"]
        pairs = build_python(Path(lib), stats)

    for line in stats.lines():
        print(line)
    n = write_pairs(pairs, args.out)
    version = pairs[0].version if pairs else "?"
    size = Path(args.out).stat().st_size
    print(f"wrote {n} pairs ({args.language} {version}) to {args.out}: {size} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
