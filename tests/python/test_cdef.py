"""The generated declarations against the library and the compiler: every
exported function is declared, and every public struct has the compiler's
size and member offsets (a struct too small would be overrun by the
library's config_init, silently)."""

import os
import re
import shutil
import subprocess
import tempfile
import unittest

import xlat
from xlat import _cdef

SRCDIR = os.environ.get("XLAT_SRCDIR", os.path.join(os.path.dirname(__file__), "..", ".."))
STRUCT = re.compile(r"typedef struct (\w+) \{(.*?)\} \1;", re.S)


def exported_functions(path):
    out = subprocess.run(["nm", "-D", "--defined-only", path], capture_output=True, text=True,
                         check=True).stdout
    return sorted(line.split()[2].split("@")[0] for line in out.splitlines()
                  if line.split()[1] == "T" and line.split()[2].startswith("xlat_"))


def compiler_layout(structs):
    """`struct size` and `struct.member offset` lines from a C program."""
    lines = ["#include <stdio.h>", "#include <stddef.h>", "#include <xlat/xlat.h>",
             "#include <xlat/experimental.h>", "int main(void) {"]
    for name in structs:
        lines.append('printf("%s %%zu\\n", sizeof(%s));' % (name, name))
        for member, field in xlat.ffi.typeof(name).fields:
            if field.bitshift < 0:
                lines.append('printf("%s.%s %%zu\\n", offsetof(%s, %s));'
                             % (name, member, name, member))
    lines.append("return 0; }")
    with tempfile.TemporaryDirectory() as tmp:
        src, exe = os.path.join(tmp, "layout.c"), os.path.join(tmp, "layout")
        with open(src, "w") as f:
            f.write("\n".join(lines))
        subprocess.run([os.environ.get("CC", "cc"), "-std=gnu11", "-I",
                        os.path.join(SRCDIR, "include"), src, "-o", exe], check=True)
        out = subprocess.run([exe], capture_output=True, text=True, check=True).stdout
    return dict(line.rsplit(" ", 1) for line in out.splitlines())


class CdefTest(unittest.TestCase):
    @unittest.skipUnless(shutil.which("nm"), "needs nm (binutils)")
    def test_every_export_is_declared(self):
        names = exported_functions(xlat.library_path())
        self.assertGreater(len(names), 200)
        missing = [n for n in names if not hasattr(xlat.lib, n)]
        self.assertEqual(missing, [])

    @unittest.skipUnless(shutil.which(os.environ.get("CC", "cc")), "needs a C compiler")
    def test_struct_layout_matches_the_compiler(self):
        structs = sorted(name for name, _ in STRUCT.findall(_cdef.CDEF))
        self.assertIn("xlat_tlb_config", structs)
        layout = compiler_layout(structs)
        for name in structs:
            self.assertEqual(xlat.ffi.sizeof(name), int(layout[name]), name)
            for member, field in xlat.ffi.typeof(name).fields:
                if field.bitshift < 0:
                    self.assertEqual(field.offset, int(layout["%s.%s" % (name, member)]),
                                     "%s.%s" % (name, member))

    def test_config_sizes_cover_v0(self):
        for name, value in xlat.CONSTANTS.items():
            if name.endswith("_SIZE_V0"):
                struct = _cdef.SIZE_THROUGH[name][0]
                self.assertLessEqual(value, xlat.ffi.sizeof(struct), name)

    def test_numeric_constants(self):
        c = xlat.CONSTANTS
        self.assertEqual(c["XLAT_NEVER"], xlat.NEVER)
        self.assertEqual(c["XLAT_PTE_NX"], 1 << 63)
        self.assertEqual(c["XLAT_CLOCK_RATIO_MAX"], 65536)
        self.assertEqual(c["XLAT_VERSION_NUMBER"], xlat.lib.xlat_version_number())
        self.assertEqual(c["XLAT_CTX_CONFIG_SIZE_V0"], 24)  # struct_size, seed, allocator


if __name__ == "__main__":
    unittest.main()
