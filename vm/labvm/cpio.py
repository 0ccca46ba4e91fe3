# SPDX-License-Identifier: GPL-2.0
"""The per-boot initramfs archive: the run's configuration, the banner the
guest compares with its own kernel, and (make vm-run FILES=dir) the
user's files, packed by the kernel's own usr/gen_init_cpio.  It is
appended to the checks' archive (vm/mkinitramfs.sh), which changes only
when the checks do."""

import os
import subprocess

from labvm.errors import die


def write_cpio_list(entries, path):
    with open(path, "w") as f:
        f.write("\n".join(entries) + "\n")


def make_run_cpio(gen, workdir, conf, banner, files_dir=None):
    """The per-boot archive: /run/labvm/conf, the expected kernel banner,
    and (make vm-run FILES=dir) the user's files under /run/labvm/files."""
    os.makedirs(workdir, exist_ok=True)
    conf_path = os.path.join(workdir, "conf")
    with open(conf_path, "w") as f:
        for k, v in conf.items():
            f.write("%s='%s'\n" % (k, str(v).replace("'", "'\\''")))
    banner_path = os.path.join(workdir, "expected-banner")
    with open(banner_path, "w") as f:
        f.write(banner)
    entries = ["dir /run 0755 0 0", "dir /run/labvm 0755 0 0",
               "file /run/labvm/conf %s 0644 0 0" % conf_path,
               "file /run/labvm/expected-banner %s 0644 0 0" % banner_path]
    if files_dir:
        entries.append("dir /run/labvm/files 0755 0 0")
        for root, dirs, files in os.walk(files_dir):
            dirs.sort()
            rel = os.path.relpath(root, files_dir)
            base = "/run/labvm/files" + ("" if rel == "." else "/" + rel)
            for d in dirs:
                p = os.path.join(root, d)
                if os.path.islink(p):
                    entries.append("slink %s/%s %s 0777 0 0" % (base, d, os.readlink(p)))
                else:
                    entries.append("dir %s/%s 0755 0 0" % (base, d))
            for fn in sorted(files):
                p = os.path.join(root, fn)
                if " " in p or " " in fn:
                    die("FILES: %s has a space in its name; rename it." % p)
                if os.path.islink(p):
                    entries.append("slink %s/%s %s 0777 0 0" % (base, fn, os.readlink(p)))
                elif os.path.isfile(p):
                    mode = os.stat(p).st_mode & 0o777
                    entries.append("file %s/%s %s %o 0 0" % (base, fn, os.path.abspath(p), mode))
    lst = os.path.join(workdir, "run.list")
    write_cpio_list(entries, lst)
    out = os.path.join(workdir, "run.cpio")
    with open(out, "wb") as f:
        r = subprocess.run([gen, lst], stdout=f)
    if r.returncode:
        die("packing the per-boot archive failed (%s)" % lst)
    return out


