#!/usr/bin/env python3
"""Write xlat/_cdef.py, the declarations cffi reads, from libxlat's headers.

The C preprocessor runs over <xlat/xlat.h> and <xlat/experimental.h> with
empty stand-ins for the standard headers (cffi knows uint32_t, size_t and
bool itself), so the declarations are the headers' own and cannot drift
from them. Static inline functions lose their bodies (cffi's ABI mode has
nothing to call: the module has Python twins of them), and the numeric
XLAT_ macros become a dict of constants. Standard library only.

    gen_cdef.py --cc cc --include include -o build/python/xlat/_cdef.py
"""

import argparse
import os
import re
import subprocess
import sys
import tempfile

HEADERS = ("xlat/xlat.h", "xlat/experimental.h")

# What the stand-ins of the standard headers define: only the macros the
# numeric XLAT_ constants are written with.
STUB_HEADERS = {
    "stdint.h": "#define UINT64_MAX 0xffffffffffffffffULL\n"
                "#define UINT32_MAX 0xffffffffU\n"
                "#define UINT64_C(x) x##ULL\n"
                "#define UINT32_C(x) x##U\n",
    "stddef.h": "",
    "stdbool.h": "",
}

# Keeps GCC's attributes and the export macro out of what cffi parses.
CPP_DEFINES = ("-D__attribute__(x)=", "-DXLAT_API=", "-U__GNUC__")

SIZE_THROUGH = re.compile(r"^XLAT_SIZE_THROUGH\(\s*(\w+)\s*,\s*(\w+)\s*\)$")
INT_LITERAL = re.compile(r"\b(0[xX][0-9a-fA-F]+|\d+)[uUlL]*\b")
SAFE_EXPR = re.compile(r"^[0-9()+\-*/<>|&~ ]+$")


def run_cpp(cc, stub_dir, include_dir, source, extra=()):
    cmd = [cc, "-E", "-P", "-nostdinc", "-I", stub_dir, "-I", include_dir,
           *CPP_DEFINES, *extra, "-x", "c", "-"]
    done = subprocess.run(cmd, input=source, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit("gen_cdef.py: the preprocessor failed (%s):\n%s"
                 % (" ".join(cmd), done.stderr))
    return done.stdout


def drop_inline_bodies(text):
    """Remove every `static inline` function, declaration and body."""
    out = []
    pos = 0
    while True:
        start = text.find("static inline", pos)
        if start < 0:
            out.append(text[pos:])
            return "".join(out)
        out.append(text[pos:start])
        brace = text.index("{", start)
        depth = 0
        for i in range(brace, len(text)):
            if text[i] == "{":
                depth += 1
            elif text[i] == "}":
                depth -= 1
                if depth == 0:
                    pos = i + 1
                    break


def squeeze_blank_lines(text):
    lines = [line.rstrip() for line in text.splitlines()]
    return "\n".join(line for line in lines if line) + "\n"


def macro_names(cc, stub_dir, include_dir, source):
    """The object-like XLAT_ macros of the headers, guards left out."""
    defs = run_cpp(cc, stub_dir, include_dir, source, ("-dM",))
    names = []
    for line in defs.splitlines():
        match = re.match(r"#define (XLAT_\w+)(\(?)", line)
        if match and not match.group(2) and not match.group(1).endswith("_H"):
            names.append(match.group(1))
    return sorted(names)


def c_int_value(expr):
    """The value of an integer constant expression, or None."""
    python = INT_LITERAL.sub(lambda m: str(int(m.group(1), 0)), expr)
    if not SAFE_EXPR.match(python):
        return None
    python = python.replace("/", "//")
    try:
        value = eval(python, {"__builtins__": {}}, {})  # digits and operators only
    except (SyntaxError, TypeError, ZeroDivisionError):
        return None
    return value if isinstance(value, int) else None


def constants(cc, stub_dir, include_dir, source):
    """Numeric constants, and SIZE_V0 constants as (struct, member)."""
    names = macro_names(cc, stub_dir, include_dir, source)
    # Expand SIZE_THROUGH by hand: cffi computes it from the cdef.
    probe = source + "#undef XLAT_SIZE_THROUGH\n" + "".join(
        "@@ \"%s\" = %s\n" % (name, name) for name in names)
    expanded = run_cpp(cc, stub_dir, include_dir, probe)
    numbers, sizes = {}, {}
    for line in expanded.splitlines():
        match = re.match(r'^@@ "(\w+)" = (.*)$', line)
        if not match:
            continue
        name, expr = match.group(1), match.group(2).strip()
        through = SIZE_THROUGH.match(expr)
        if through:
            sizes[name] = (through.group(1), through.group(2))
            continue
        value = c_int_value(expr)
        if value is not None:
            numbers[name] = value
    return numbers, sizes


def generate(cc, include_dir):
    source = "".join('#include <%s>\n' % h for h in HEADERS)
    with tempfile.TemporaryDirectory() as stub_dir:
        for name, text in STUB_HEADERS.items():
            with open(os.path.join(stub_dir, name), "w") as f:
                f.write(text)
        decls = run_cpp(cc, stub_dir, include_dir, source)
        numbers, sizes = constants(cc, stub_dir, include_dir, source)
    cdef = squeeze_blank_lines(drop_inline_bodies(decls))
    return ('"""Generated by python/gen_cdef.py from include/xlat: do not edit."""\n\n'
            "CDEF = %r\n\nCONSTANTS = %r\n\nSIZE_THROUGH = %r\n"
            % (cdef, numbers, sizes))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cc", default=os.environ.get("CC", "cc"))
    parser.add_argument("--include", required=True, help="the folder holding xlat/xlat.h")
    parser.add_argument("-o", "--output", required=True)
    args = parser.parse_args()
    text = generate(args.cc, args.include)
    tmp = args.output + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, args.output)


if __name__ == "__main__":
    main()
