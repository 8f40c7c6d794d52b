#!/usr/bin/env python3
"""Print where `make install` puts the xlat package for PREFIX, for the
Python running this script: on Debian, the dist-packages folder that
Python searches (/usr/local/lib/python3.X/dist-packages for /usr/local,
/usr/lib/python3/dist-packages for /usr), else the prefix's purelib."""

import sys
import sysconfig


def site_dir(prefix):
    prefix = prefix.rstrip("/") or "/"
    schemes = sysconfig.get_scheme_names()
    if "posix_local" in schemes:  # Debian's python3
        if prefix == "/usr":
            return sysconfig.get_path("purelib", "deb_system", vars={"base": "/usr"})
        return "%s/lib/python%d.%d/dist-packages" % ((prefix,) + sys.version_info[:2])
    return sysconfig.get_path("purelib", "posix_prefix",
                              vars={"base": prefix, "platbase": prefix})


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: site_dir.py PREFIX")
    print(site_dir(sys.argv[1]))
